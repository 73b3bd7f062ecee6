import { describe, expect, it } from 'vitest';
import { setTypingStatus } from '../../../src/ops/typing/setTypingStatus';
import { createRealm } from '../../../src/core/snapshot/create';
import { expectValidEvent, expectValidResponse } from '../../support/openapi';
import { as, cast, devRealm, devSnapshot, testCtx, wire } from '../../support/realm';

const OP = 'set-typing-status';
const state = devRealm();
const email = (id: number) => state.users.get(id)!.email;

function withSetting(userId: number, name: string, value: boolean) {
  const snap = devSnapshot();
  const user = (snap['users'] as Array<Record<string, unknown>>).find((u) => u['user_id'] === userId)!;
  user['settings'] = { ...(user['settings'] as object), [name]: value };
  return createRealm(snap);
}

describe('setTypingStatus (zerver/views/typing.py, zerver/actions/typing.py)', () => {
  it('a direct message: the sender is added to the recipients; nothing is stored', () => {
    const r = setTypingStatus(state, as('hamlet'), { op: 'start', to: [cast.cordelia] }, testCtx());
    expect(r.state).toBe(state);
    expect(r.body).toEqual({ result: 'success', msg: '' });
    expectValidResponse(OP, 200, r.body);
    expect(r.events).toEqual([
      {
        event: {
          type: 'typing',
          message_type: 'direct',
          op: 'start',
          sender: { user_id: cast.hamlet, email: email(cast.hamlet) },
          recipients: [
            { user_id: cast.cordelia, email: email(cast.cordelia) },
            { user_id: cast.hamlet, email: email(cast.hamlet) },
          ],
        },
        users: [cast.hamlet, cast.cordelia],
      },
    ]);
    expectValidEvent(r.events[0]!.event);
  });

  it('deactivated recipients are valid but not notified (test_typing.py)', () => {
    const r = setTypingStatus(state, as('hamlet'), { op: 'stop', to: [cast.exEmployee] }, testCtx());
    expect(r.events[0]!.users).toEqual([cast.hamlet]);
  });

  it('recipients who turned off receives_typing_notifications get nothing', () => {
    const realm = withSetting(cast.cordelia, 'receives_typing_notifications', false);
    const r = setTypingStatus(realm, as('hamlet'), { op: 'start', to: [cast.cordelia] }, testCtx());
    expect(r.events[0]!.users).toEqual([cast.hamlet]);
  });

  it('a channel topic: the subscribers, with stream_id and topic', () => {
    const r = setTypingStatus(
      state,
      as('hamlet'),
      { type: 'channel', op: 'start', stream_id: 5, topic: 'boats' },
      testCtx(),
    );
    expect(r.events).toEqual([
      {
        event: {
          type: 'typing',
          message_type: 'stream',
          op: 'start',
          sender: { user_id: cast.hamlet, email: email(cast.hamlet) },
          stream_id: 5,
          topic: 'boats',
        },
        users: [2, 4, 6],
      },
    ]);
    expectValidEvent(r.events[0]!.event);
    const legacyName = setTypingStatus(
      state,
      as('hamlet'),
      { type: 'stream', op: 'stop', stream_id: 5, topic: 'general chat' },
      testCtx(),
    );
    expect(legacyName.events[0]!.event).toMatchObject({ topic: '', op: 'stop' });
  });

  it("Zulip's errors, in its order", () => {
    const err = (who: 'hamlet' | 'cordelia', params: Record<string, string>) =>
      wire(state, who, 'POST', '/typing', params).body;
    expect(err('hamlet', { to: '[5]' })).toMatchObject({ msg: "Missing 'op' argument" });
    expect(err('hamlet', { op: 'go', to: '[5]' })).toMatchObject({ msg: 'Invalid op' });
    expect(err('hamlet', { type: 'private', op: 'start', to: '[5]' })).toMatchObject({ msg: 'Invalid type' });
    expect(err('hamlet', { op: 'start' })).toMatchObject({ msg: "Missing 'to' argument" });
    expect(err('hamlet', { op: 'start', to: '[]' })).toMatchObject({ msg: "Empty 'to' list" });
    expect(err('hamlet', { op: 'start', to: '[5, 9999]' })).toEqual({
      result: 'error',
      msg: 'Invalid user ID 9999',
      code: 'BAD_REQUEST',
    });
    expect(err('hamlet', { type: 'channel', op: 'start', topic: 'x' })).toMatchObject({
      msg: 'Missing channel ID',
    });
    expect(err('hamlet', { type: 'channel', op: 'start', stream_id: '5' })).toMatchObject({
      msg: 'Missing topic',
    });
    expect(err('hamlet', { type: 'channel', op: 'start', stream_id: '7', topic: 'x' })).toMatchObject({
      msg: 'Invalid channel ID',
    });
    expect(err('hamlet', { type: 'channel', op: 'start', stream_id: '8', topic: 'x' })).toMatchObject({
      msg: 'Invalid channel ID',
    });
  });

  it('a sender who turned the sending setting off is refused', () => {
    const realm = withSetting(cast.hamlet, 'send_private_typing_notifications', false);
    expect(setTypingStatus(realm, as('hamlet'), { op: 'start', to: [5] }, testCtx()).body).toMatchObject({
      msg: 'User has disabled typing notifications for direct messages',
    });
    const quiet = withSetting(cast.hamlet, 'send_stream_typing_notifications', false);
    expect(
      setTypingStatus(
        quiet,
        as('hamlet'),
        { type: 'stream', op: 'start', stream_id: 5, topic: 't' },
        testCtx(),
      ).body,
    ).toMatchObject({
      msg: 'User has disabled typing notifications for channel messages',
    });
  });
});
