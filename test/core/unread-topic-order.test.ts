/**
 * `unread_msgs.streams` is sorted by channel, then topic as JavaScript compares strings (UTF-16
 * units; unread.ts sorts each channel's buckets itself): pinned here on topics that
 * prefix one another, differ only in case or past their third unit, or lie outside ASCII.
 */
import { describe, expect, it } from 'vitest';
import { unreadMsgs } from '../../src/core/register/unread';
import type { RealmState } from '../../src/core/state';
import { sendMessage } from '../../src/ops/messages/sendMessage';
import { as, cast, devRealm, testCtx } from '../support/realm';

const TOPICS = [
  'abc',
  'ab',
  'a',
  'abd',
  'abcd',
  'abcc',
  'B',
  'b',
  'é',
  'e\u0301',
  '😀',
  '\uff5a',
  'zz',
  'Ab',
  'a b',
];

describe('unread_msgs topic order', () => {
  it('sorts each channel by topic as strings compare, whatever their first units', () => {
    let state: RealmState = devRealm();
    for (const [k, topic] of TOPICS.entries()) {
      const r = sendMessage(
        state,
        as('othello'),
        { type: 'stream', to: k % 2 === 0 ? 1 : 3, topic, content: 'hi' },
        testCtx(),
      );
      expect(r.body, topic).toMatchObject({ result: 'success' });
      state = r.state;
    }
    for (const emptyTopicName of [true, false]) {
      const streams = unreadMsgs(state, cast.hamlet, emptyTopicName).streams;
      const sorted = [...streams].sort((a, b) =>
        a.stream_id !== b.stream_id
          ? a.stream_id - b.stream_id
          : a.topic < b.topic
            ? -1
            : a.topic > b.topic
              ? 1
              : 0,
      );
      expect(streams.map((s) => [s.stream_id, s.topic])).toEqual(sorted.map((s) => [s.stream_id, s.topic]));
      for (const topic of TOPICS) expect(streams.some((s) => s.topic === topic)).toBe(true);
    }
  });
});
