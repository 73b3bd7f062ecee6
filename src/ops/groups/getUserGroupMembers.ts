import * as z from 'zod/mini';
import { zulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure, success } from '../../core/result';
import { groupMemberIds } from './group-members';

/**
 * GET /api/v1/user_groups/{user_group_id}/members — https://zulip.com/api/get-user-group-members
 * (zerver/views/user_groups.py `get_user_group_members`)
 *
 * The group's active members, ascending: through subgroups at any depth, or only its direct
 * members with `direct_member_only`. `Invalid user group` for an id outside the realm;
 * deactivated groups are found.
 *
 * @example
 * ```ts
 * const r = getUserGroupMembers(realm, { userId: 4 }, { user_group_id: 103 });
 * expect(r.body).toMatchObject({ members: [1, 2, 6] });
 * ```
 */
export const getUserGroupMembers = defineOperation({
  name: 'getUserGroupMembers',
  method: 'GET',
  path: '/user_groups/{user_group_id}/members',
  operationId: 'get-user-group-members',
  pathParams: ['user_group_id'],
  params: [param('user_group_id', z.int(), { required: true }), param('direct_member_only', z.boolean())],
  handler: ({ state, params, ignored }) => {
    const group = state.groups.get(params.user_group_id);
    if (group === undefined) return failure(state, zulipError('Invalid user group'));
    const members = groupMemberIds(state, group, params.direct_member_only ?? false);
    return success(state, { ignored, data: { members } });
  },
});
