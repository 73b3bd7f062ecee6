/**
 * `unreadMsgs` against a reference built the plain way: every unread row decoded as a whole
 * message, grouped as Zulip's `aggregate_streams` groups them (channel and lower-cased topic, the
 * bucket spelled as its oldest row), each list sorted at the end, topics by code point. The builder
 * in unread.ts reads the columns, keys buckets by interned topic id and sorts by number before
 * string; this pins its
 * answer to the reference's on random realms, with channels left or muted, topic settings in any
 * case, and the empty topic next to its display name.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { FLAG_BITS } from '../../src/core/messages/flags';
import { forEachRow } from '../../src/core/messages/rows';
import { getMessage } from '../../src/core/messages/store-read';
import { isUnreadMuted } from '../../src/core/messages/unread-muting';
import type { UserTopic } from '../../src/core/model/records';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../../src/core/model/realm';
import { MAX_UNREAD_MESSAGES, unreadMsgs, type UnreadMsgs } from '../../src/core/register/unread';
import type { RealmState } from '../../src/core/state';
import { sendMessage } from '../../src/ops/messages/sendMessage';
import { simulateRealm } from '../../src/simulate/simulate';
import { as, cast, devRealm, testCtx, type CastName } from '../support/realm';

function referenceUnread(state: RealmState, userId: number, emptyTopicName: boolean): UnreadMsgs {
  const unread: Array<[number, number]> = [];
  const rows = state.messages.rows.get(userId);
  if (rows !== undefined)
    forEachRow(rows, (id, flags) => {
      if ((flags & FLAG_BITS.read) === 0) unread.push([id, flags]);
    });
  const kept = unread.slice(-MAX_UNREAD_MESSAGES);
  const streams = new Map<string, { stream_id: number; topic: string; unread_message_ids: number[] }>();
  const pms = new Map<number, number[]>();
  const huddles = new Map<string, number[]>();
  const mentions: number[] = [];
  let count = 0;
  const push = <K>(map: Map<K, number[]>, key: K, id: number): void => {
    const list = map.get(key);
    if (list === undefined) map.set(key, [id]);
    else list.push(id);
  };
  for (const [id, flags] of kept) {
    const m = getMessage(state.messages, id)!;
    let muted = false;
    if (m.stream_id !== null) {
      const sub = state.subscriptions.get(m.stream_id)?.get(userId);
      if (sub !== undefined && !sub.active) continue;
      muted = isUnreadMuted(state, userId, m.stream_id, m.topic);
      const topic = m.topic === '' && !emptyTopicName ? EMPTY_TOPIC_DISPLAY_NAME : m.topic;
      const key = JSON.stringify([m.stream_id, topic.toLowerCase()]);
      const bucket = streams.get(key);
      if (bucket === undefined) streams.set(key, { stream_id: m.stream_id, topic, unread_message_ids: [id] });
      else bucket.unread_message_ids.push(id);
    } else {
      const participants = m.participants!;
      const others = participants.filter((p) => p !== userId);
      if (others.length <= 1) push(pms, others[0] ?? userId, id);
      else push(huddles, [...participants].sort((a, b) => a - b).join(','), id);
    }
    if (!muted) count++;
    const wildcard = FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned;
    if ((flags & FLAG_BITS.mentioned) !== 0 || ((flags & wildcard) !== 0 && !muted)) mentions.push(id);
  }
  const cmp = (a: string | number, b: string | number): number => (a < b ? -1 : a > b ? 1 : 0);
  const codePoints = (t: string): number[] => Array.from(t.toLowerCase(), (c) => c.codePointAt(0)!);
  const byCodePoint = (a: string, b: string): number => {
    const x = codePoints(a);
    const y = codePoints(b);
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
    return x.length - y.length;
  };
  return {
    pms: [...pms]
      .sort((a, b) => cmp(a[0], b[0]))
      .map(([other, ids]) => ({ other_user_id: other, sender_id: other, unread_message_ids: ids })),
    streams: [...streams.values()].sort((a, b) => a.stream_id - b.stream_id || byCodePoint(a.topic, b.topic)),
    huddles: [...huddles]
      .sort((a, b) => cmp(a[0], b[0]))
      .map(([key, ids]) => ({ user_ids_string: key, unread_message_ids: ids })),
    mentions,
    count,
    old_unreads_missing: unread.length > kept.length,
  };
}

/** Changes to a user's subscriptions and topic settings, drawn by fast-check. */
const tweaks = fc.array(
  fc.record({
    pick: fc.nat(),
    kind: fc.constantFrom('leave', 'mute', 'topic'),
    policy: fc.constantFrom(1, 2, 3),
    upper: fc.boolean(),
  }),
  { maxLength: 12 },
);

type Tweak = { pick: number; kind: 'leave' | 'mute' | 'topic'; policy: 1 | 2 | 3; upper: boolean };

/** `state` with `tweaks` applied to `userId`: subscriptions left or muted, topic settings added. */
function tweaked(state: RealmState, userId: number, list: readonly Tweak[]): RealmState {
  const subscribed = [...state.subscriptions.entries()].filter(([, subs]) => subs.get(userId) !== undefined);
  let subscriptions = state.subscriptions;
  const topics: UserTopic[] = [...(state.userTopics.get(userId) ?? [])];
  for (const t of list) {
    const entry = subscribed[t.pick % Math.max(1, subscribed.length)];
    if (entry === undefined) break;
    const [streamId] = entry;
    const subs = subscriptions.get(streamId)!;
    const sub = subs.get(userId)!;
    if (t.kind === 'leave')
      subscriptions = subscriptions.set(streamId, subs.set(userId, { ...sub, active: false }));
    else if (t.kind === 'mute')
      subscriptions = subscriptions.set(streamId, subs.set(userId, { ...sub, is_muted: !sub.is_muted }));
    else {
      const ids = state.messages.byChannel.get(streamId)?.chunks.flatMap((c) => [...c]) ?? [];
      const id = ids[t.pick % Math.max(1, ids.length)];
      const m = id === undefined ? undefined : getMessage(state.messages, id);
      if (m === undefined) continue;
      const topic_name = t.upper ? m.topic.toUpperCase() : m.topic;
      topics.push({
        user_id: userId,
        stream_id: streamId,
        topic_name,
        visibility_policy: t.policy,
        last_updated: 0,
      });
    }
  }
  return { ...state, subscriptions, userTopics: state.userTopics.set(userId, topics) };
}

describe('unread_msgs against a reference build', () => {
  it('matches on random simulated realms, with channels left or muted and topic settings', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.boolean(),
        tweaks,
        (seed, emptyTopicName, list) => {
          const base = simulateRealm({ users: 6, channels: 4, messages: 500, seed });
          for (const userId of base.users.keys()) {
            const state = tweaked(base, userId, list);
            expect(unreadMsgs(state, userId, emptyTopicName)).toEqual(
              referenceUnread(state, userId, emptyTopicName),
            );
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  it('matches with the empty topic, its display name and topics differing in case', () => {
    const TOPICS = [
      '',
      EMPTY_TOPIC_DISPLAY_NAME,
      'General Chat',
      'a',
      'A',
      'ab',
      'AB',
      'é',
      'É',
      '😀',
      '\uff5a',
      '\ud7ff',
      'e\u0301',
      'abc',
      'abd',
    ];
    const SENDERS: CastName[] = ['othello', 'iago', 'hamlet'];
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(TOPICS.length - 1), fc.constantFrom(1, 3), fc.nat(SENDERS.length - 1)), {
          minLength: 1,
          maxLength: 25,
        }),
        tweaks,
        (sends, list) => {
          let state: RealmState = devRealm();
          for (const [t, to, s] of sends) {
            const r = sendMessage(
              state,
              as(SENDERS[s]!),
              { type: 'stream', to, topic: TOPICS[t]!, content: 'hi' },
              testCtx(),
            );
            state = r.state;
          }
          for (const userId of [cast.hamlet, cast.othello, cast.iago]) {
            const tweakedState = tweaked(state, userId, list);
            for (const emptyTopicName of [true, false])
              expect(unreadMsgs(tweakedState, userId, emptyTopicName)).toEqual(
                referenceUnread(tweakedState, userId, emptyTopicName),
              );
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
