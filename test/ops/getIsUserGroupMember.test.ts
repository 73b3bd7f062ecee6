import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getIsUserGroupMember } from '../../src/ops/groups/getIsUserGroupMember';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { expectRead, expectRefused } from '../support/read-ops';
import { as, cast, devRealm, wire } from '../support/realm';

const OP = 'get-is-user-group-member';
const state = devRealm();
const ask = (user_group_id: number, user_id: number, direct?: boolean) =>
  getIsUserGroupMember(state, as('hamlet'), {
    user_group_id,
    user_id,
    ...(direct === undefined ? {} : { direct_member_only: direct }),
  });

describe('getIsUserGroupMember', () => {
  it('answers membership through subgroups, or directly (test_user_groups.py: test_get_is_user_group_member)', () => {
    expect(expectRead(OP, wire(state, 'hamlet', 'GET', '/user_groups/103/members/2'), state)).toEqual({
      result: 'success',
      msg: '',
      is_user_group_member: true,
    });
    expect(ask(103, cast.iago, true).body).toMatchObject({ is_user_group_member: false });
    expect(ask(103, cast.hamlet).body).toMatchObject({ is_user_group_member: false });
  });

  it("checks in Zulip's order: the group, then the user (access_user_by_id defaults)", () => {
    expectRefused(OP, ask(9999, 999), state, 'Invalid user group');
    expectRefused(OP, ask(103, 999), state, 'No such user');
    expectRefused(OP, ask(103, cast.defaultBot), state, 'No such user');
    expectRefused(OP, ask(103, cast.exEmployee), state, 'User is deactivated');
  });

  it('is total and pure on failure', () => {
    const shaped = [fc.integer({ min: 0, max: 110 }), fc.boolean()];
    checkLibraryLaws(
      getIsUserGroupMember,
      state,
      arbParams(['user_group_id', 'user_id', 'direct_member_only'], shaped),
    );
    checkWireLaws(getIsUserGroupMember, state, arbWireParams(['direct_member_only']));
  });
});
