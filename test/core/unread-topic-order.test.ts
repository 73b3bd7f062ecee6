/**
 * `unread_msgs.streams` as Zulip's `aggregate_streams` lists it: one bucket per channel and
 * lower-cased topic, spelled as its oldest unread row's topic, sorted by channel and then by the
 * lower-cased topic in code-point order (Python's string order). Pinned here on topics that prefix
 * one another, differ only in case or past their third unit, or lie outside ASCII and outside the
 * Basic Multilingual Plane (where code-point and UTF-16 orders differ).
 */
import { describe, expect, it } from 'vitest';
import { unreadMsgs } from '../../src/core/register/unread';
import type { RealmState } from '../../src/core/state';
import { sendMessage } from '../../src/ops/messages/sendMessage';
import { as, cast, devRealm, testCtx } from '../support/realm';

function sendAll(topics: ReadonlyArray<readonly [number, string]>): RealmState {
  let state: RealmState = devRealm();
  for (const [to, topic] of topics) {
    const r = sendMessage(state, as('othello'), { type: 'stream', to, topic, content: 'hi' }, testCtx());
    expect(r.body, topic).toMatchObject({ result: 'success' });
    state = r.state;
  }
  return state;
}

/** The given topics, each with one unread message of channel 1, in the order hamlet's unread_msgs lists them. */
function listedTopics(topics: readonly string[]): string[] {
  const state = sendAll(topics.map((t) => [1, t] as const));
  const listed = unreadMsgs(state, cast.hamlet, true).streams.filter((s) => s.stream_id === 1);
  return listed.filter((s) => topics.includes(s.topic)).map((s) => s.topic);
}

describe('unread_msgs topic order and grouping', () => {
  it('sorts each channel by lower-cased topic in code-point order', () => {
    const topics = [
      'abc',
      'ab',
      'a',
      'abd',
      'abcd',
      'abcc',
      'b',
      'é',
      'e\u0301',
      '😀',
      '\uff5a',
      'zz',
      'a b',
      'C',
    ];
    const mine = listedTopics(topics);
    // U+FF5A sorts before U+1F600 by code point; as UTF-16 units the emoji's surrogate (U+D83D) came first.
    expect(mine).toEqual([
      'a',
      'a b',
      'ab',
      'abc',
      'abcc',
      'abcd',
      'abd',
      'b',
      'C',
      'e\u0301',
      'zz',
      'é',
      '\uff5a',
      '😀',
    ]);
  });

  it('orders upper-case spellings as their lower-cased forms, ASCII or not', () => {
    // The sort folds ASCII letters unit by unit and lower-cases whole strings only past a non-ASCII
    // unit: 'Z' must follow '[' and '_' (as 'z' does), a difference after a shared non-ASCII
    // prefix or inside the first three units must still decide, and expanding lower-casings
    // ('İ' → 'i̇') and final sigmas must order as the whole lower-cased strings do.
    const topics = [
      'Zebra',
      '[x',
      '_y',
      'apple',
      'APPLE PIE',
      'Ab',
      'aC',
      'CAFÉ B',
      'café a',
      'Café',
      'İstanbul',
      'istanbul',
      'ΟΔΟΣ',
      'οδοσ x',
      'ÀB',
      'àa',
      'Ω',
      'ω1',
      '\u00c5x',
      'Å',
    ];
    const mine = listedTopics(topics);
    const codePoints = (s: string): number[] => [...s.toLowerCase()].map((c) => c.codePointAt(0)!);
    const byFolded = (a: string, b: string): number => {
      const [x, y] = [codePoints(a), codePoints(b)];
      for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
      return x.length - y.length;
    };
    expect(new Set(topics.map((t) => t.toLowerCase())).size).toBe(topics.length);
    expect(mine).toEqual([...topics].sort(byFolded));
  });

  it('groups topics differing only in case under the oldest spelling, per channel', () => {
    const state = sendAll([
      [1, 'Lunch'],
      [3, 'LUNCH'],
      [1, 'lunch'],
      [1, 'LUNCH'],
      [3, 'lunch'],
    ]);
    const streams = unreadMsgs(state, cast.hamlet, true).streams.filter(
      (s) => s.topic.toLowerCase() === 'lunch',
    );
    expect(streams.map((s) => [s.stream_id, s.topic, s.unread_message_ids.length])).toEqual([
      [1, 'Lunch', 3],
      [3, 'LUNCH', 2],
    ]);
    for (const s of streams)
      expect(s.unread_message_ids).toEqual([...s.unread_message_ids].sort((a, b) => a - b));
  });

  it('puts the empty topic with "general chat" in any case when it is shown by its display name', () => {
    const before = devRealm().messages.lastId;
    const state = sendAll([
      [1, 'General Chat'],
      [1, ''],
      [1, 'general chat'],
    ]);
    const [spelled, empty, lower] = [before + 1, before + 2, before + 3];
    const bucketOf = (emptyTopicName: boolean, id: number) =>
      unreadMsgs(state, cast.hamlet, emptyTopicName).streams.find((s) => s.unread_message_ids.includes(id));
    const shared = bucketOf(false, spelled)!;
    expect(shared.unread_message_ids).toEqual(expect.arrayContaining([spelled, empty, lower]));
    // A send to "general chat" is stored under the empty topic (Zulip's rename on send); "General Chat" is not.
    expect(bucketOf(true, empty)!.topic).toBe('');
    expect(bucketOf(true, empty)!.unread_message_ids).toEqual(expect.arrayContaining([empty, lower]));
    expect(bucketOf(true, spelled)!.unread_message_ids).not.toContain(empty);
  });
});
