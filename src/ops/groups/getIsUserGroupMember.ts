import * as z from 'zod/mini';
import { zulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { canAccessUser } from '../../core/permissions/user-access';
import { failure, success } from '../../core/result';
import { groupMemberIds } from './group-members';

/**
 * GET /api/v1/user_groups/{user_group_id}/members/{user_id} —
 * https://zulip.com/api/get-is-user-group-member (zerver/views/user_groups.py
 * `get_is_user_group_member`)
 *
 * Whether the user is in the group (through subgroups, or directly with `direct_member_only`).
 * Zulip's order: `Invalid user group`, then the user through `access_user_by_id` with its
 * defaults: `No such user` for an unknown id or a bot, `User is deactivated`,
 * `Insufficient permission` for a user hidden from the caller.
 *
 * @example
 * ```ts
 * const r = getIsUserGroupMember(realm, { userId: 4 }, { user_group_id: 103, user_id: 6 });
 * expect(r.body).toMatchObject({ is_user_group_member: true });
 * ```
 */
export const getIsUserGroupMember = defineOperation({
  name: 'getIsUserGroupMember',
  method: 'GET',
  path: '/user_groups/{user_group_id}/members/{user_id}',
  operationId: 'get-is-user-group-member',
  pathParams: ['user_group_id', 'user_id'],
  params: [
    param('user_group_id', z.int(), { required: true }),
    param('user_id', z.int(), { required: true }),
    param('direct_member_only', z.boolean()),
  ],
  handler: ({ state, user, params, ignored }) => {
    const group = state.groups.get(params.user_group_id);
    if (group === undefined) return failure(state, zulipError('Invalid user group'));
    const target = state.users.get(params.user_id);
    if (target === undefined || target.is_bot) return failure(state, zulipError('No such user'));
    if (!target.is_active) return failure(state, zulipError('User is deactivated'));
    if (!canAccessUser(state, user!, target)) return failure(state, zulipError('Insufficient permission'));
    const members = groupMemberIds(state, group, params.direct_member_only ?? false);
    return success(state, { ignored, data: { is_user_group_member: members.includes(target.user_id) } });
  },
});
