/**
 * GET /messages' dicts after the fetch path began sharing what repeats: one `DictCache` asked in
 * any order (its last-answer memos of sender, topic, channel and flags must never leak from one
 * message into the next), frozen shared flag lists and empty arrays. Each dict must serialize as
 * `messageDict` of the decoded record with freshly built flag names does, and what is shared
 * must be frozen so that no caller can change another answer through it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FLAG_BITS } from '../../src/core/messages/flags';
import { decode } from '../../src/core/messages/store';
import { MessageCursor } from '../../src/core/messages/store-cursor';
import { channelDictAt, DictCache, flagNames, messageDict } from '../../src/ops/messages/message-dict';
import { getMessages } from '../../src/ops';
import { devRealm } from '../support/realm';

describe('channelDictAt with one cache over a random sequence of messages and flags', () => {
  const state = devRealm();
  const ids = state.messages.chunks.flatMap((c) => Array.from(c.ids));
  const allBits = Object.values(FLAG_BITS).reduce((a, b) => a | b, 0);
  // -1: a message the reader has no row for (read + historical).
  const bits = fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: allBits }));
  const pick = fc.tuple(fc.integer({ min: 0, max: ids.length - 1 }), bits);

  it('equals messageDict with fresh flag names, key order included', () => {
    fc.assert(
      fc.property(
        fc.array(pick, { minLength: 1, maxLength: 60 }),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        (picks, applyMarkdown, allowEmptyTopicName, clientGravatar) => {
          const opts = { applyMarkdown, clientGravatar, allowEmptyTopicName };
          const cache = new DictCache(state, clientGravatar, undefined);
          const general = new DictCache(state, clientGravatar, undefined);
          const cursor = new MessageCursor(state.messages);
          for (const [k, b] of picks) {
            const id = ids[k]!;
            expect(cursor.seek(id)).toBe(true);
            const chunk = cursor.chunk!;
            const fresh = b < 0 ? ['read', 'historical'] : flagNames(b);
            const dict = channelDictAt(state, chunk, cursor.index, id, opts, cache.flagNames(b), cache);
            if (dict === undefined) continue;
            const expected = messageDict(
              state,
              decode(state.messages, chunk, cursor.index),
              opts,
              fresh,
              general,
            );
            expect(JSON.stringify(dict)).toBe(JSON.stringify(expected));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('shares only frozen arrays, so one answer cannot change another', () => {
    const hamlet = [...state.users.values()].find((u) => u.full_name === 'King Hamlet')!;
    const params = { anchor: 'newest', num_before: 100, num_after: 0 };
    const a = getMessages(state, { userId: hamlet.user_id }, params).body['messages'] as Array<
      Record<string, unknown>
    >;
    const b = getMessages(state, { userId: hamlet.user_id }, params).body['messages'] as Array<
      Record<string, unknown>
    >;
    expect(a.length).toBeGreaterThan(0);
    for (const [i, dict] of a.entries()) {
      expect(b[i]).not.toBe(dict);
      for (const key of ['flags', 'topic_links', 'submessages', 'reactions']) {
        const value = dict[key] as string[];
        // Shared between answers only when frozen: a write throws instead of reaching another dict.
        if (value === b[i]![key]) expect(() => value.push('x')).toThrow(TypeError);
      }
      expect(Object.isFrozen(dict['flags'])).toBe(true);
    }
  });
});
