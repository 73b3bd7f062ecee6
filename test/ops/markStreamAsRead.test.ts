import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { markStreamAsRead } from '../../src/ops/messages/markStreamAsRead';
import { FLAG_BITS } from '../../src/core/messages/flags';
import { getRowFlags } from '../../src/core/messages/rows';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { expectOk, expectRefused } from '../support/read-ops';
import { as, cast, devRealm, wire } from '../support/realm';

const OP = 'mark-stream-as-read';
const PATH = '/mark_stream_as_read';
const state = devRealm();

describe('markStreamAsRead', () => {
  it("marks the channel's unread rows read (test_message_flags.py: test_mark_stream_as_read)", () => {
    const r = wire(state, 'hamlet', 'POST', PATH, { stream_id: '1' });
    expect(expectOk(OP, r)).toEqual({ result: 'success', msg: '' });
    const rows = r.state.messages.rows.get(cast.hamlet)!;
    for (const id of [112, 123, 156]) expect(getRowFlags(rows, id)! & FLAG_BITS.read).toBeTruthy();
    // Other channels' unread rows stay unread (103 is in #Scotland).
    expect(getRowFlags(rows, 103)! & FLAG_BITS.read).toBe(0);
    expect(r.events).toEqual([
      {
        event: {
          type: 'update_message_flags',
          op: 'add',
          operation: 'add',
          flag: 'read',
          messages: [112, 123, 156],
          all: false,
        },
        users: [cast.hamlet],
      },
    ]);
  });

  it('sends no event when nothing was unread (do_mark_stream_messages_as_read returns early)', () => {
    const once = markStreamAsRead(state, as('hamlet'), { stream_id: 1 }).state;
    const r = markStreamAsRead(once, as('hamlet'), { stream_id: 1 });
    expectOk(OP, r);
    expect(r.state).toBe(once);
    expect(r.events).toEqual([]);
  });

  it('refuses channels the caller cannot access with Invalid channel ID (access_stream_by_id)', () => {
    // 7: private, Hamlet not subscribed; 999: no such channel; a guest and an unsubscribed public channel.
    expectRefused(OP, markStreamAsRead(state, as('hamlet'), { stream_id: 7 }), state, 'Invalid channel ID');
    expectRefused(OP, markStreamAsRead(state, as('hamlet'), { stream_id: 999 }), state, 'Invalid channel ID');
    expectRefused(OP, markStreamAsRead(state, as('polonius'), { stream_id: 2 }), state, 'Invalid channel ID');
    // A non-guest may mark a public channel it is not subscribed to (nothing to do there).
    expectOk(OP, markStreamAsRead(state, as('hamlet'), { stream_id: 10 }));
  });

  it('checks its parameter', () => {
    expectRefused(
      OP,
      wire(state, 'hamlet', 'POST', PATH),
      state,
      "Missing 'stream_id' argument",
      'REQUEST_VARIABLE_MISSING',
    );
    expectRefused(
      OP,
      wire(state, 'hamlet', 'POST', PATH, { stream_id: 'x' }),
      state,
      'stream_id is not valid JSON',
    );
    expectRefused(
      OP,
      wire(state, 'hamlet', 'POST', PATH, { stream_id: '"1"' }),
      state,
      'stream_id is not an integer',
    );
  });

  it('is total and pure on failure', () => {
    checkLibraryLaws(markStreamAsRead, state, arbParams(['stream_id'], [fc.integer({ min: 0, max: 11 })]));
    checkWireLaws(
      markStreamAsRead,
      state,
      arbWireParams(['stream_id'], [fc.integer({ min: 0, max: 11 }).map(String)]),
    );
  });
});
