import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { FLAG_BITS } from '../../src/core/messages/flags';
import { forEachRow } from '../../src/core/messages/rows';
import { MAX_UNREAD_MESSAGES, unreadMsgs } from '../../src/core/register/unread';
import { simulateRealm } from '../../src/simulate/simulate';

// Zulip's `get_raw_unread_data` reports the newest MAX_UNREAD_MESSAGES unread rows and sets
// `old_unreads_missing` when there are more. `unreadMsgs` walks the rows newest-first and stops one
// past the limit; this pins that it lists exactly the newest ones, every bucket's ids ascending.
describe('unread_msgs past MAX_UNREAD_MESSAGES', () => {
  const state = simulateRealm({ users: 3, channels: 1, messages: 60_000, seed: 3 });
  const unreadOf = (userId: number): number[] => {
    const out: number[] = [];
    const rows = state.messages.rows.get(userId);
    if (rows) forEachRow(rows, (id, bits) => void ((bits & FLAG_BITS.read) === 0 && out.push(id)));
    return out;
  };
  const heavy = [...state.users.keys()]
    .map((id) => ({ id, unread: unreadOf(id) }))
    .sort((a, b) => b.unread.length - a.unread.length)[0]!;

  it('lists the newest unread rows only, and says older ones are missing', () => {
    expect(heavy.unread.length).toBeGreaterThan(MAX_UNREAD_MESSAGES);
    const u = unreadMsgs(state, heavy.id, true);
    expect(u.old_unreads_missing).toBe(true);
    const listed = [
      ...u.streams.flatMap((s) => s.unread_message_ids),
      ...u.pms.flatMap((p) => p.unread_message_ids),
      ...u.huddles.flatMap((h) => h.unread_message_ids),
    ].sort((a, b) => a - b);
    expect(listed).toEqual(heavy.unread.slice(-MAX_UNREAD_MESSAGES));
    for (const s of u.streams)
      expect(s.unread_message_ids).toEqual([...s.unread_message_ids].sort((a, b) => a - b));
  });

  it('a user with fewer unread rows than the limit gets all of them', () => {
    const light = [...state.users.keys()].find((id) => {
      const n = unreadOf(id).length;
      return n > 0 && n <= MAX_UNREAD_MESSAGES;
    });
    if (light === undefined) return;
    const u = unreadMsgs(state, light, false);
    expect(u.old_unreads_missing).toBe(false);
    const n = [...u.streams, ...u.pms, ...u.huddles].reduce((a, b) => a + b.unread_message_ids.length, 0);
    expect(n).toBe(unreadOf(light).length);
  });
});

// The channel buckets are ordered by channel id, then topic in code-point order (Zulip sorts the
// (stream_id, topic) keys); each channel's buckets are insertion-sorted, which this pins for
// realms of many topics per channel.
describe('unread_msgs channel buckets', () => {
  it('are in (stream_id, topic) order, with and without empty_topic_name', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.boolean(), (seed, emptyTopicName) => {
        const state = simulateRealm({ users: 4, channels: 3, messages: 600, seed });
        for (const userId of state.users.keys()) {
          const { streams } = unreadMsgs(state, userId, emptyTopicName);
          for (let i = 1; i < streams.length; i++) {
            const a = streams[i - 1]!;
            const b = streams[i]!;
            expect(a.stream_id < b.stream_id || (a.stream_id === b.stream_id && a.topic < b.topic)).toBe(
              true,
            );
          }
        }
      }),
      { numRuns: 25 },
    );
  });
});
