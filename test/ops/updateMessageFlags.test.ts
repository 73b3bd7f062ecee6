import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { updateMessageFlags } from '../../src/ops/messages/updateMessageFlags';
import { getMessages } from '../../src/ops/messages/getMessages';
import { FLAG_BITS } from '../../src/core/messages/flags';
import { getRowFlags } from '../../src/core/messages/rows';
import { createRealm } from '../../src/core/snapshot/create';
import { seededRandom } from '../../src/core/context';
import type { RealmState } from '../../src/core/state';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { expectOk, expectRefused } from '../support/read-ops';
import { as, cast, devRealm, devSnapshot, testCtx, wire } from '../support/realm';

const OP = 'update-message-flags';
const PATH = '/messages/flags';
const state = devRealm();
const flagsOf = (s: RealmState, user: number, id: number) => getRowFlags(s.messages.rows.get(user)!, id);

// Hamlet's rows in the dev realm: 112 unread and 101 read in #Verona, 133 an unread DM; no row
// for 110 (#newcomers, public, shared history, not subscribed) nor 107 (#secrets, private,
// protected history, not subscribed).
describe('updateMessageFlags', () => {
  it('stars messages and answers the ids as sent (test_message_flags.py: test_change_star)', () => {
    const r = wire(state, 'hamlet', 'POST', PATH, { messages: '[112, 101]', op: 'add', flag: 'starred' });
    expect(expectOk(OP, r)).toEqual({ result: 'success', msg: '', messages: [112, 101] });
    expect(flagsOf(r.state, cast.hamlet, 112)! & FLAG_BITS.starred).toBeTruthy();
    expect(flagsOf(r.state, cast.hamlet, 101)! & FLAG_BITS.starred).toBeTruthy();
    expect(flagsOf(state, cast.hamlet, 112)! & FLAG_BITS.starred).toBe(0);
    expect(r.events).toEqual([
      {
        event: {
          type: 'update_message_flags',
          op: 'add',
          operation: 'add',
          flag: 'starred',
          messages: [112, 101],
          all: false,
        },
        users: [cast.hamlet],
      },
    ]);
    // The star shows in GET /messages.
    const got = getMessages(
      r.state,
      as('hamlet'),
      { anchor: '112', num_before: 0, num_after: 0, narrow: [] },
      testCtx(),
    );
    expect(got.body).toMatchObject({ messages: [{ id: 112, flags: ['starred'] }] });
  });

  it('reports in the event only the messages whose flag changes, in request order, repeats kept', () => {
    const r = updateMessageFlags(state, as('hamlet'), {
      messages: [101, 112, 123, 112],
      op: 'add',
      flag: 'read',
    });
    expectOk(OP, r);
    // 101 is read already; Zulip's filter keeps each listed id whose flag differs.
    expect(r.events[0]!.event).toMatchObject({ messages: [112, 123, 112] });
    expect(flagsOf(r.state, cast.hamlet, 123)! & FLAG_BITS.read).toBeTruthy();
  });

  it('still sends the event when nothing changes, with the same state', () => {
    const r = updateMessageFlags(state, as('hamlet'), { messages: [101], op: 'add', flag: 'read' });
    expectOk(OP, r);
    expect(r.state).toBe(state);
    expect(r.events[0]!.event).toMatchObject({ messages: [], all: false });
  });

  it('marking read ignores messages the user cannot see, since nothing changes for them', () => {
    // No row counts as {read, historical}: neither 107 nor a missing id is checked (test_mark_unread... inverse).
    const r = updateMessageFlags(state, as('hamlet'), { messages: [107, 99999], op: 'add', flag: 'read' });
    expectOk(OP, r);
    expect(r.state).toBe(state);
  });

  it('creates a historical row for a public channel with shared history (test_change_star_public_stream_historical)', () => {
    const r = updateMessageFlags(state, as('hamlet'), { messages: [110], op: 'add', flag: 'starred' });
    expectOk(OP, r);
    expect(flagsOf(r.state, cast.hamlet, 110)).toBe(
      FLAG_BITS.read | FLAG_BITS.historical | FLAG_BITS.starred,
    );
    expect(r.events[0]!.event).toMatchObject({ messages: [110] });
  });

  it('refuses messages the user may not get a row for, changing nothing (test_change_star_private_stream_security_for_guest...)', () => {
    for (const messages of [[112, 107], [99999]]) {
      // 107: private channel with protected history; 99999: no such message.
      expectRefused(
        OP,
        updateMessageFlags(state, as('hamlet'), { messages, op: 'add', flag: 'starred' }),
        state,
        'Invalid message(s)',
      );
    }
    // A guest gets no historical row in a public channel it is not subscribed to.
    expectRefused(
      OP,
      updateMessageFlags(state, as('polonius'), { messages: [102], op: 'add', flag: 'starred' }),
      state,
      'Invalid message(s)',
    );
    // Nobody gets a row for a direct message they were not part of (111 is Hamlet's, not Polonius's).
    expectRefused(
      OP,
      updateMessageFlags(state, as('polonius'), { messages: [111], op: 'add', flag: 'starred' }),
      state,
      'Invalid message(s)',
    );
  });

  it('marks unread with message_details, skipping channels the user is not subscribed to (test_mark_unread_in_unsubscribed_stream)', () => {
    const snap = devSnapshot();
    const sub = snap.subscriptions.find((s) => s.user_id === cast.hamlet && s.stream_id === 1)!;
    Object.assign(sub, { active: false });
    const s = createRealm(snap, { random: seededRandom(1) });
    const r = updateMessageFlags(s, as('hamlet'), { messages: [101, 113, 111], op: 'remove', flag: 'read' });
    expectOk(OP, r);
    expect(flagsOf(r.state, cast.hamlet, 101)! & FLAG_BITS.read).toBeTruthy();
    expect(flagsOf(r.state, cast.hamlet, 113)! & FLAG_BITS.read).toBe(0);
    const event = r.events[0]!.event as Record<string, unknown>;
    expect(event).toMatchObject({ op: 'remove', flag: 'read', messages: [113, 111] });
    expect(event['message_details']).toEqual({
      113: { type: 'stream', stream_id: 2, topic: expect.any(String), unmuted_stream_msg: true },
      111: { type: 'private', user_ids: expect.any(Array) },
    });
  });

  it("checks in Zulip's order: parameters, flag, editability, operation", () => {
    const w = (p: Record<string, string>) => wire(state, 'hamlet', 'POST', PATH, p);
    expectRefused(
      OP,
      w({ op: 'add', flag: 'x' }),
      state,
      "Missing 'messages' argument",
      'REQUEST_VARIABLE_MISSING',
    );
    expectRefused(
      OP,
      w({ messages: '[1]', flag: 'x' }),
      state,
      "Missing 'op' argument",
      'REQUEST_VARIABLE_MISSING',
    );
    expectRefused(
      OP,
      w({ messages: '[1]', op: 'x' }),
      state,
      "Missing 'flag' argument",
      'REQUEST_VARIABLE_MISSING',
    );
    expectRefused(OP, w({ messages: 'x', op: 'x', flag: 'x' }), state, 'messages is not valid JSON');
    expectRefused(OP, w({ messages: '[112]', op: 'bogus', flag: 'bogus' }), state, "Invalid flag: 'bogus'");
    expectRefused(
      OP,
      w({ messages: '[112]', op: 'bogus', flag: 'mentioned' }),
      state,
      "Flag not editable: 'mentioned'",
    );
    expectRefused(
      OP,
      w({ messages: '[112]', op: 'bogus', flag: 'read' }),
      state,
      "Invalid message flag operation: 'bogus'",
    );
    expectRefused(
      OP,
      w({ messages: '[112]', op: 'add', flag: 'is_private' }),
      state,
      "Invalid flag: 'is_private'",
    );
  });

  it('refuses anonymous callers', () => {
    expect(wire(state, null, 'POST', PATH, { messages: '[]', op: 'add', flag: 'read' }).status).toBe(401);
  });

  it('is total and pure on failure', () => {
    const shaped = [
      fc.array(fc.constantFrom(101, 107, 110, 111, 112, 133, 99999)),
      fc.constantFrom('add', 'remove'),
      fc.constantFrom('read', 'starred', 'collapsed', 'mentioned'),
    ];
    checkLibraryLaws(updateMessageFlags, state, arbParams(['messages', 'op', 'flag'], shaped));
    checkWireLaws(
      updateMessageFlags,
      state,
      arbWireParams(['messages', 'op', 'flag'], [fc.constantFrom('add', 'read', '[112]')]),
    );
  });

  it('agrees with the rows after any add/remove (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(101, 112, 123, 133, 110)),
        fc.boolean(),
        fc.constantFrom('read', 'starred', 'collapsed'),
        (messages, add, flag) => {
          const r = updateMessageFlags(state, as('hamlet'), { messages, op: add ? 'add' : 'remove', flag });
          expect(r.status).toBe(200);
          const bit = FLAG_BITS[flag as 'read'];
          for (const id of messages) {
            const f = flagsOf(r.state, cast.hamlet, id);
            if (f !== undefined) expect((f & bit) !== 0).toBe(add);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
