import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getUser } from '../../src/ops/users/getUser';
import { getUsers } from '../../src/ops/users/getUsers';
import { createRealm } from '../../src/core/snapshot/create';
import { seededRandom } from '../../src/core/context';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { expectRead, expectRefused } from '../support/read-ops';
import { as, cast, devRealm, devSnapshot, wire } from '../support/realm';

const OP = 'get-user';
const state = devRealm();

describe('getUser', () => {
  it('answers the user as GET /users lists it (test_users.py: test_get_user_by_id)', () => {
    const body = expectRead(OP, wire(state, 'hamlet', 'GET', '/users/2'), state);
    const listed = getUsers(state, as('hamlet'), {}).body as { members: Array<{ user_id: number }> };
    expect(body['user']).toEqual(listed.members.find((m) => m.user_id === 2));
  });

  it('finds deactivated users and bots, with custom profile fields on request', () => {
    expect(getUser(state, as('hamlet'), { user_id: cast.exEmployee }).body).toMatchObject({
      user: { is_active: false },
    });
    expect(getUser(state, as('hamlet'), { user_id: cast.defaultBot }).body).toMatchObject({
      user: { is_bot: true },
    });
    const withFields = getUser(state, as('hamlet'), { user_id: 4, include_custom_profile_fields: true });
    expect(withFields.body).toMatchObject({ user: { profile_data: expect.any(Object) } });
  });

  it('answers No such user for an unknown id', () => {
    expectRefused(OP, getUser(state, as('hamlet'), { user_id: 999 }), state, 'No such user');
  });

  it('refuses a user hidden from a restricted guest: Insufficient permission (access_user_common)', () => {
    const snap = devSnapshot();
    // Only members may see everyone: Polonius (guest) sees only users he shares a conversation with.
    snap.realm = { ...snap.realm, can_access_all_users_group: state.systemGroups['role:members'] };
    // Polonius leaves #Verona, the channel everyone is in; he shares nothing with Othello then.
    const verona = snap.subscriptions.find((x) => x.user_id === cast.polonius && x.stream_id === 1)!;
    Object.assign(verona, { active: false });
    const s = createRealm(snap, { random: seededRandom(1) });
    expectRefused(OP, getUser(s, as('polonius'), { user_id: cast.othello }), s, 'Insufficient permission');
    expect(getUser(s, as('polonius'), { user_id: cast.polonius }).status).toBe(200);
  });

  it('is total and pure on failure', () => {
    const shaped = [fc.integer({ min: 0, max: 20 }), fc.boolean()];
    checkLibraryLaws(
      getUser,
      state,
      arbParams(['user_id', 'client_gravatar', 'include_custom_profile_fields'], shaped),
    );
    checkWireLaws(getUser, state, arbWireParams(['user_id', 'client_gravatar']));
  });
});
