/**
 * `MessageCursor.seek` against a plain search: in dense chunks (no id deleted in their range) it
 * takes a message's index from its offset without reading the id column, so every answer is
 * checked over stores with and without deletions, ids asked in any order, absent ids included.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appendMessage } from '../../src/core/messages/store-append';
import { deleteMessages } from '../../src/core/messages/store-delete';
import { MessageCursor } from '../../src/core/messages/store-cursor';
import { EMPTY_STORE, MESSAGE_CHUNK, type MessageStore } from '../../src/core/messages/store-types';

/** `n` channel messages with ids 1..n (three chunks' worth at most). */
function storeOf(n: number): MessageStore {
  let store = EMPTY_STORE;
  for (let id = 1; id <= n; id++)
    store = appendMessage(
      store,
      { id, sender: 1, timestamp: id, bits: 0, content: `m${id}`, streamId: 1, topic: 't', participants: [] },
      [],
    );
  return store;
}

describe('MessageCursor.seek', () => {
  const full = storeOf(2 * MESSAGE_CHUNK + 100);

  it('finds every stored message and no other, whatever the order and the deletions', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 2 * MESSAGE_CHUNK + 100 }), { maxLength: 30 }),
        fc.array(fc.integer({ min: -5, max: 2 * MESSAGE_CHUNK + 110 }), { minLength: 1, maxLength: 200 }),
        fc.boolean(),
        (deleted, asked, sorted) => {
          const store = deleteMessages(full, new Set(deleted));
          const stored = new Set(store.chunks.flatMap((c) => Array.from(c.ids)));
          const cursor = new MessageCursor(store);
          const order = sorted ? [...asked].sort((a, b) => a - b) : asked;
          for (const id of order) {
            const found = cursor.seek(id);
            expect(found).toBe(stored.has(id));
            if (found) expect(cursor.chunk!.ids[cursor.index]).toBe(id);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('finds nothing in an empty store', () => {
    expect(new MessageCursor(EMPTY_STORE).seek(1)).toBe(false);
  });
});
