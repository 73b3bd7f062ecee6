/**
 * `channelDictAt` (GET /messages' dict of a never-edited channel message, read from the store's
 * columns) against `messageDict` of the decoded record: the same keys in the same order, the same
 * values, for every channel message of the dev realm (reactions and an empty topic included) and
 * every option combination; undefined for the rest, which take `messageDict`.
 */
import { describe, expect, it } from 'vitest';
import { decode } from '../../src/core/messages/store';
import { MessageCursor } from '../../src/core/messages/store-cursor';
import { channelDictAt, DictCache, messageDict } from '../../src/ops/messages/message-dict';
import { devRealm } from '../support/realm';

describe('channelDictAt', () => {
  const state = devRealm();
  const ids = state.messages.chunks.flatMap((c) => Array.from(c.ids));
  const flags = ['read'];

  for (const applyMarkdown of [true, false])
    for (const allowEmptyTopicName of [true, false])
      it(`equals messageDict, key order included (apply_markdown ${applyMarkdown}, empty topic ${allowEmptyTopicName})`, () => {
        const opts = { applyMarkdown, clientGravatar: true, allowEmptyTopicName };
        const cache = new DictCache(state, opts.clientGravatar, undefined);
        const cursor = new MessageCursor(state.messages);
        let fast = 0;
        for (const id of ids) {
          expect(cursor.seek(id)).toBe(true);
          const chunk = cursor.chunk!;
          const dict = channelDictAt(state, chunk, cursor.index, id, opts, flags, cache);
          const general = messageDict(state, decode(state.messages, chunk, cursor.index), opts, flags, cache);
          if (dict === undefined) {
            expect(general['type'] === 'private' || state.messages.edits.has(id)).toBe(true);
            continue;
          }
          fast++;
          expect(JSON.stringify(dict)).toBe(JSON.stringify(general));
        }
        expect(fast).toBeGreaterThan(0);
      });
});

describe('DictCache.edited', () => {
  it('answers edits.has for every message, asked chunk by chunk in any order, after edits anywhere', () => {
    const base = devRealm();
    const ids = base.messages.chunks.flatMap((c) => Array.from(c.ids));
    // Edit records on a spread of messages (first, last, middle of the store), none, or all.
    for (const picked of [[], [ids[0]!], [ids[ids.length - 1]!], ids.filter((_, i) => i % 7 === 3), ids]) {
      const edits = base.messages.edits.setAll(picked.map((id) => [id, { history: [] }] as const));
      const state = { ...base, messages: base.messages.with({ edits }) };
      const cache = new DictCache(state, true, undefined);
      const cursor = new MessageCursor(state.messages);
      for (const id of [...ids, ...ids.slice().reverse()]) {
        expect(cursor.seek(id)).toBe(true);
        expect(cache.edited(cursor.chunk!, id)).toBe(edits.has(id));
      }
    }
  });
});
