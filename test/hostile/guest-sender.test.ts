/**
 * A restricted guest never learns the name or email of a sender GET /users hides from them
 * (issue 31): Zulip's `can_access_sender=False` form in the message event, GET /messages and GET
 * /messages/{id}. The property over random realms is test/laws/guest-senders.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { createRealm } from '../../src/core/snapshot/create';
import { seededRandom } from '../../src/core/context';
import { fakeEmailDomain } from '../../src/core/users/format';
import { getMessage, getMessages, getUsers, sendMessage } from '../../src/ops/index';
import { cast, devSnapshot, testCtx } from '../support/realm';
import { expectValidEvent, expectValidResponse } from '../support/openapi';

/** The dev realm with guests restricted and Othello off Verona: he shares nothing with Polonius. */
function realm() {
  const snap = devSnapshot();
  snap.realm = { ...snap.realm, can_access_all_users_group: 'role:members' };
  snap.subscriptions = snap.subscriptions.filter((s) => !(s.user_id === cast.othello && s.stream_id === 1));
  return createRealm(snap, { random: seededRandom(1) });
}

describe('a restricted guest and a sender hidden from them', () => {
  it('gets "Unknown user", user{id}@domain and the placeholder avatar in events and fetches', () => {
    const state = realm();
    const guest = { userId: cast.polonius };
    const listed = (getUsers(state, guest, {}).body as { members: { user_id: number; full_name: string }[] })
      .members;
    expect(listed.find((u) => u.user_id === cast.othello)?.full_name).toBe('Unknown user');

    const sent = sendMessage(
      state,
      { userId: cast.othello },
      { type: 'stream', to: 1, topic: 'hidden', content: 'who am I?' },
      testCtx(),
    );
    expect(sent.status).toBe(200);
    const id = Number(sent.body['id' as keyof typeof sent.body]);
    const hidden = {
      sender_id: cast.othello,
      sender_full_name: 'Unknown user',
      sender_email: `user${cast.othello}@${fakeEmailDomain(state)}`,
      avatar_url: '/static/images/unknown-user-avatar.png',
    };
    const othello = sent.state.users.get(cast.othello)!;
    const toGuest = sent.events.filter((e) => e.event.type === 'message' && e.users.includes(cast.polonius));
    expect(toGuest).toHaveLength(1);
    expectValidEvent(toGuest[0]!.event);
    expect(toGuest[0]!.event).toMatchObject({ message: hidden });
    // Everyone else who receives it sees Othello as he is.
    const toHamlet = sent.events.find((e) => e.event.type === 'message' && e.users.includes(cast.hamlet))!;
    expect(toHamlet.users).not.toContain(cast.polonius);
    expect(toHamlet.event).toMatchObject({ message: { sender_full_name: othello.full_name } });

    const one = getMessage(sent.state, guest, { message_id: id });
    expectValidResponse('get-message', one.status, one.body);
    expect(one.body).toMatchObject({ message: hidden });
    const window = getMessages(sent.state, guest, { anchor: id, num_before: 0, num_after: 0 }, testCtx());
    expectValidResponse('get-messages', window.status, window.body);
    expect(window.body).toMatchObject({ messages: [hidden] });
    // Hamlet (a member) reads the same message with Othello's real name.
    const plain = getMessage(sent.state, { userId: cast.hamlet }, { message_id: id });
    expect(plain.body).toMatchObject({
      message: { sender_full_name: othello.full_name, sender_email: othello.email },
    });
  });
});
