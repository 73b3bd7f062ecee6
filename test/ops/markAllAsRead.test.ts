import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { markAllAsRead } from '../../src/ops/messages/markAllAsRead';
import { FLAG_BITS } from '../../src/core/messages/flags';
import { forEachRow } from '../../src/core/messages/rows';
import type { RealmState } from '../../src/core/state';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { expectOk } from '../support/read-ops';
import { as, cast, devRealm, wire } from '../support/realm';

const OP = 'mark-all-as-read';
const state = devRealm();
const unread = (s: RealmState, user: number) => {
  const out: number[] = [];
  forEachRow(s.messages.rows.get(user)!, (id, f) => (f & FLAG_BITS.read) === 0 && out.push(id));
  return out;
};

describe('markAllAsRead', () => {
  it('marks every unread row read and answers complete (test_message_flags.py: test_mark_all_as_read)', () => {
    expect(unread(state, cast.hamlet).length).toBeGreaterThan(0);
    const r = wire(state, 'hamlet', 'POST', '/mark_all_as_read');
    expect(expectOk(OP, r)).toEqual({ result: 'success', msg: '', complete: true });
    expect(unread(r.state, cast.hamlet)).toEqual([]);
    // Other users and the old state keep their rows.
    expect(unread(r.state, cast.iago)).toEqual(unread(state, cast.iago));
    expect(unread(state, cast.hamlet).length).toBeGreaterThan(0);
    // Zulip's ReadMessagesEvent: no ids, all: true, to the reader only.
    expect(r.events).toEqual([
      {
        event: {
          type: 'update_message_flags',
          op: 'add',
          operation: 'add',
          flag: 'read',
          messages: [],
          all: true,
        },
        users: [cast.hamlet],
      },
    ]);
  });

  it('sends the event even when nothing was unread, with the same state', () => {
    const once = markAllAsRead(state, as('hamlet')).state;
    const r = markAllAsRead(once, as('hamlet'));
    expectOk(OP, r);
    expect(r.state).toBe(once);
    expect(r.events).toHaveLength(1);
  });

  it('reports unknown parameters as ignored', () => {
    expect(wire(state, 'hamlet', 'POST', '/mark_all_as_read', { x: '1' }).body).toMatchObject({
      ignored_parameters_unsupported: ['x'],
    });
  });

  it('refuses anonymous callers', () => {
    expect(wire(state, null, 'POST', '/mark_all_as_read').status).toBe(401);
  });

  it('is total and pure on failure', () => {
    checkLibraryLaws(markAllAsRead, state, arbParams([]), 60);
    checkWireLaws(markAllAsRead, state, arbWireParams([]), 40);
  });

  it('leaves every user with no unread row (property over callers)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...Object.values(cast)), (userId) => {
        const r = markAllAsRead(state, { userId });
        if (r.status === 200 && state.messages.rows.get(userId)) expect(unread(r.state, userId)).toEqual([]);
      }),
      { numRuns: 20 },
    );
  });
});
