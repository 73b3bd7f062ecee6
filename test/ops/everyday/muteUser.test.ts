import { describe, expect, it } from 'vitest';
import { registerState } from '../../../src/core/register/register-state';
import { muteUser } from '../../../src/ops/personal/muteUser';
import { sendMessage } from '../../../src/ops/messages/sendMessage';
import { expectRefused } from '../../support/expect-result';
import { expectValidEvent, expectValidResponse } from '../../support/openapi';
import { as, cast, devRealm, testCtx, wire } from '../../support/realm';

const OP = 'mute-user';
const NOW = 1795219200;
const state = devRealm();
const mute = (s = state, id: number, who: 'hamlet' | 'polonius' = 'hamlet') =>
  muteUser(s, as(who), { muted_user_id: id }, testCtx());

describe('muteUser (zerver/views/muted_users.py mute_user; test_muted_users.py)', () => {
  it('mutes a user: a muted_users event with the whole list, and register (test_add_muted_user_valid_data)', () => {
    const r = mute(state, cast.cordelia);
    expect(r.status).toBe(200);
    expectValidResponse(OP, 200, r.body);
    // Then the read event for Cordelia's unread messages to Hamlet (the next test).
    expect(r.events[0]).toEqual({
      event: { type: 'muted_users', muted_users: [{ id: cast.cordelia, timestamp: NOW }] },
      users: [cast.hamlet],
    });
    for (const e of r.events) expectValidEvent(e.event);
    const two = mute(r.state, cast.defaultBot);
    expect(two.events[0]?.event).toEqual({
      type: 'muted_users',
      muted_users: [
        { id: cast.cordelia, timestamp: NOW },
        { id: cast.defaultBot, timestamp: NOW },
      ],
    });
    expect(
      registerState(two.state, cast.hamlet, { fetch_event_types: ['muted_users'] }, NOW)['muted_users'],
    ).toEqual([
      { id: cast.cordelia, timestamp: NOW },
      { id: cast.defaultBot, timestamp: NOW },
    ]);
  });

  it('bots and deactivated users can be muted (access_user_by_id allow_bots, allow_deactivated)', () => {
    expect(mute(state, cast.defaultBot).status).toBe(200);
    expect(mute(state, cast.exEmployee).status).toBe(200);
  });

  it("Zulip's errors in its order (test_add_muted_user_mute_self, _mute_twice, _invalid_user)", () => {
    expectRefused(OP, mute(state, cast.hamlet), state, 'Cannot mute self');
    expectRefused(OP, mute(state, 999), state, 'No such user');
    const once = mute(state, cast.cordelia);
    expectRefused(OP, mute(once.state, cast.cordelia), once.state, 'User already muted');
  });

  it("a muted sender's new messages arrive read for the muter (do_send_messages muted_sender_user_ids)", () => {
    const muted = mute(state, cast.cordelia);
    const sent = sendMessage(
      muted.state,
      as('cordelia'),
      { type: 'private', to: [cast.hamlet], content: 'hello' },
      testCtx(),
    );
    expect(sent.status).toBe(200);
    const toHamlet = sent.events.find((e) => e.event.type === 'message' && e.users.includes(cast.hamlet));
    expect((toHamlet?.event as { flags?: string[] } | undefined)?.flags).toContain('read');
    const unmuted = sendMessage(
      state,
      as('cordelia'),
      { type: 'private', to: [cast.hamlet], content: 'hello' },
      testCtx(),
    );
    const plain = unmuted.events.find((e) => e.event.type === 'message' && e.users.includes(cast.hamlet));
    expect((plain?.event as { flags?: string[] } | undefined)?.flags).not.toContain('read');
  });

  it("marks the muter's unread messages from the muted user read (deferred_work mark_muted_user_messages_as_read)", () => {
    const sent = sendMessage(
      state,
      as('cordelia'),
      { type: 'private', to: [cast.hamlet], content: 'psst' },
      testCtx(),
    );
    const id = sent.body['id'];
    const r = mute(sent.state, cast.cordelia);
    expect(r.events.map((e) => e.event.type)).toEqual(['muted_users', 'update_message_flags']);
    expect(r.events[1]).toEqual({
      event: {
        type: 'update_message_flags',
        op: 'add',
        operation: 'add',
        flag: 'read',
        messages: expect.arrayContaining([id]),
        all: false,
      },
      users: [cast.hamlet],
    });
    for (const e of r.events) expectValidEvent(e.event);
    // Nothing unread from that user: no flags event.
    const silent = [...state.users.keys()].find((u) => u !== cast.hamlet && !state.messages.bySender.has(u))!;
    expect(mute(r.state, silent).events.map((e) => e.event.type)).toEqual(['muted_users']);
  });

  it('over the wire: the id is a path segment', () => {
    const r = wire(state, 'hamlet', 'POST', `/users/me/muted_users/${cast.cordelia}`, {}, testCtx());
    expect(r.status).toBe(200);
    expect(r.state.mutedUsers.get(cast.hamlet)).toEqual([{ id: cast.cordelia, timestamp: NOW }]);
  });
});
