import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getUserGroupMembers } from '../../src/ops/groups/getUserGroupMembers';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { expectRead, expectRefused } from '../support/read-ops';
import { as, devRealm, wire } from '../support/realm';

const OP = 'get-user-group-members';
const state = devRealm();

describe('getUserGroupMembers', () => {
  it('lists members through subgroups, or direct ones only (test_user_groups.py: test_get_user_group_members)', () => {
    // "support" (103) holds Othello and the subgroup "leadership" (102: Desdemona, Iago).
    expect(expectRead(OP, wire(state, 'hamlet', 'GET', '/user_groups/103/members'), state)).toEqual({
      result: 'success',
      msg: '',
      members: [1, 2, 6],
    });
    expect(
      getUserGroupMembers(state, as('hamlet'), { user_group_id: 103, direct_member_only: true }).body,
    ).toMatchObject({
      members: [6],
    });
  });

  it('answers a system group by role', () => {
    const admins = state.systemGroups['role:administrators'];
    expect(getUserGroupMembers(state, as('hamlet'), { user_group_id: admins }).body).toMatchObject({
      members: [1, 2],
    });
    expect(
      getUserGroupMembers(state, as('hamlet'), { user_group_id: admins, direct_member_only: true }).body,
    ).toMatchObject({
      members: [2],
    });
  });

  it('refuses an unknown group: Invalid user group', () => {
    expectRefused(
      OP,
      getUserGroupMembers(state, as('hamlet'), { user_group_id: 9999 }),
      state,
      'Invalid user group',
    );
  });

  it('is total and pure on failure', () => {
    const shaped = [fc.integer({ min: 0, max: 110 }), fc.boolean()];
    checkLibraryLaws(getUserGroupMembers, state, arbParams(['user_group_id', 'direct_member_only'], shaped));
    checkWireLaws(getUserGroupMembers, state, arbWireParams(['direct_member_only']));
  });
});
