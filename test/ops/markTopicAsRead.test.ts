import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { markTopicAsRead } from '../../src/ops/messages/markTopicAsRead';
import { FLAG_BITS } from '../../src/core/messages/flags';
import { getRowFlags } from '../../src/core/messages/rows';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { expectOk, expectRefused } from '../support/read-ops';
import { as, cast, devRealm, wire } from '../support/realm';

const OP = 'mark-topic-as-read';
const PATH = '/mark_topic_as_read';
const state = devRealm();
const readBit = (s: typeof state, id: number) =>
  getRowFlags(s.messages.rows.get(cast.hamlet)!, id)! & FLAG_BITS.read;

describe('markTopicAsRead', () => {
  it('marks the topic read, its name compared case-insensitively (test_message_flags.py: test_mark_topic_as_read)', () => {
    const r = wire(state, 'hamlet', 'POST', PATH, { stream_id: '1', topic_name: 'WEATHER' });
    expect(expectOk(OP, r)).toEqual({ result: 'success', msg: '' });
    const event = r.events[0]!.event as unknown as { messages: number[] };
    expect(event.messages.length).toBeGreaterThan(0);
    expect(r.events[0]!.users).toEqual([cast.hamlet]);
    expect(r.events[0]!.event).toMatchObject({
      type: 'update_message_flags',
      op: 'add',
      flag: 'read',
      all: false,
    });
    for (const id of event.messages) {
      expect(readBit(state, id)).toBe(0);
      expect(readBit(r.state, id)).toBeTruthy();
    }
    expect(r.state.messages.rows.get(cast.hamlet)).not.toBe(state.messages.rows.get(cast.hamlet));
  });

  it("refuses a topic the caller holds no row in: No such topic '…' (user_message_exists_for_topic)", () => {
    expectRefused(
      OP,
      markTopicAsRead(state, as('hamlet'), { stream_id: 1, topic_name: 'nope' }),
      state,
      "No such topic 'nope'",
    );
    // Hamlet holds no row in #newcomers (public, not subscribed).
    expectRefused(
      OP,
      markTopicAsRead(state, as('hamlet'), { stream_id: 10, topic_name: 'lunch' }),
      state,
      "No such topic 'lunch'",
    );
  });

  it('checks the channel before the topic (Invalid channel ID first)', () => {
    expectRefused(
      OP,
      markTopicAsRead(state, as('hamlet'), { stream_id: 7, topic_name: 'nope' }),
      state,
      'Invalid channel ID',
    );
  });

  it("marks the whole channel for an empty topic name, as Zulip's `if topic_name:` does", () => {
    const r = markTopicAsRead(state, as('hamlet'), { stream_id: 1, topic_name: '' });
    expectOk(OP, r);
    expect(r.events[0]!.event).toMatchObject({ messages: [112, 123, 156] });
  });

  it('sends no event when the topic holds nothing unread', () => {
    const once = markTopicAsRead(state, as('hamlet'), { stream_id: 1, topic_name: '' }).state;
    const r = markTopicAsRead(once, as('hamlet'), { stream_id: 1, topic_name: 'weather' });
    expectOk(OP, r);
    expect(r.events).toEqual([]);
    expect(r.state).toBe(once);
  });

  it('checks its parameters in order', () => {
    expectRefused(
      OP,
      wire(state, 'hamlet', 'POST', PATH, { topic_name: 'x' }),
      state,
      "Missing 'stream_id' argument",
      'REQUEST_VARIABLE_MISSING',
    );
    expectRefused(
      OP,
      wire(state, 'hamlet', 'POST', PATH, { stream_id: '1' }),
      state,
      "Missing 'topic_name' argument",
      'REQUEST_VARIABLE_MISSING',
    );
  });

  it('is total and pure on failure', () => {
    const shaped = [fc.integer({ min: 0, max: 11 }), fc.constantFrom('lunch', 'weather', '', 'nope')];
    checkLibraryLaws(markTopicAsRead, state, arbParams(['stream_id', 'topic_name'], shaped));
    checkWireLaws(
      markTopicAsRead,
      state,
      arbWireParams(['stream_id', 'topic_name'], [fc.constantFrom('1', 'lunch')]),
    );
  });
});
