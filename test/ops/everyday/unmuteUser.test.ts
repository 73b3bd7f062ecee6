import { describe, expect, it } from 'vitest';
import { muteUser } from '../../../src/ops/personal/muteUser';
import { unmuteUser } from '../../../src/ops/personal/unmuteUser';
import { expectRefused } from '../../support/expect-result';
import { expectValidEvent, expectValidResponse } from '../../support/openapi';
import { as, cast, devRealm, testCtx, wire } from '../../support/realm';

const OP = 'unmute-user';
const state = devRealm();
const muted = muteUser(state, as('hamlet'), { muted_user_id: cast.cordelia }, testCtx()).state;

describe('unmuteUser (zerver/views/muted_users.py unmute_user; test_muted_users.py)', () => {
  it('unmutes: a muted_users event with the remaining list (test_remove_muted_user_valid_data)', () => {
    const r = unmuteUser(muted, as('hamlet'), { muted_user_id: cast.cordelia }, testCtx());
    expect(r.status).toBe(200);
    expectValidResponse(OP, 200, r.body);
    expect(r.events).toEqual([{ event: { type: 'muted_users', muted_users: [] }, users: [cast.hamlet] }]);
    for (const e of r.events) expectValidEvent(e.event);
    expect(r.state.mutedUsers.get(cast.hamlet)).toBeUndefined();
  });

  it("Zulip's errors (test_remove_muted_user_unmute_before_muting, _invalid_user)", () => {
    const un = (id: number) => unmuteUser(muted, as('hamlet'), { muted_user_id: id }, testCtx());
    expectRefused(OP, un(999), muted, 'No such user');
    expectRefused(OP, un(cast.iago), muted, 'User is not muted');
    expectRefused(OP, un(cast.hamlet), muted, 'User is not muted');
  });

  it('over the wire: DELETE with the id in the path', () => {
    const r = wire(muted, 'hamlet', 'DELETE', `/users/me/muted_users/${cast.cordelia}`, {}, testCtx());
    expect(r.status).toBe(200);
  });
});
