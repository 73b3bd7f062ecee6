/**
 * `DirectMapped`, the front `DictCache` keeps before its maps: whatever keys collide, a read
 * answers the value last set for that key, or nothing; never another key's value.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DirectMapped } from '../../src/core/collections/direct-mapped';
import { DictCache } from '../../src/ops/messages/message-dict';
import { devRealm } from '../support/realm';

describe('DirectMapped', () => {
  it('answers the last value set for a key or undefined, never another key’s', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.oneof(fc.nat(40), fc.nat(0x7fffffff))), { maxLength: 200 }),
        (ops) => {
          const front = new DirectMapped<number>(3);
          const model = new Map<number, number>();
          ops.forEach(([write, key], step) => {
            if (write) {
              front.set(key, step);
              model.set(key, step);
            } else {
              const got = front.get(key);
              if (got !== undefined) expect(got).toBe(model.get(key));
            }
          });
          // The last key set in each slot is still there.
          for (const [write, key] of ops)
            if (write) expect([undefined, model.get(key)]).toContain(front.get(key));
        },
      ),
    );
  });
});

describe('DictCache behind its fronts', () => {
  it('answers every sender and topic as a fresh cache does, keys colliding in the front included', () => {
    const state = devRealm();
    const users = [...state.users.keys()];
    const topics = [...state.messages.topics.names.keys()];
    // Ids 256 apart share a front slot; unknown ones take the map's fallback answer.
    const senderIds = [...users, ...users.map((u) => u + 256), ...users.map((u) => u + 512)];
    const topicIds = [...topics, ...topics.map((t) => t + 256)].filter((t) =>
      state.messages.topics.names.has(t),
    );
    fc.assert(
      fc.property(
        fc.array(fc.nat(senderIds.length - 1), { maxLength: 300 }),
        fc.array(fc.nat(Math.max(0, topicIds.length - 1)), { maxLength: 300 }),
        (senderPicks, topicPicks) => {
          const cache = new DictCache(state, true, undefined);
          for (const k of senderPicks) {
            const id = senderIds[k]!;
            expect(cache.sender(id)).toEqual(new DictCache(state, true, undefined).sender(id));
          }
          for (const k of topicPicks) {
            const id = topicIds[k];
            if (id === undefined) continue;
            expect(cache.topicName(id)).toBe(new DictCache(state, true, undefined).topicName(id));
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
