import * as z from 'zod/mini';
import { errors, zulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure, success } from '../../core/result';
import { accessUserForRead } from '../../core/users/access-user';
import { formatUserStatus, NO_STATUS } from '../../core/users/user-status';

/**
 * GET /api/v1/users/{user_id}/status — https://zulip.com/api/get-user-status
 * (zerver/views/presence.py `get_status_backend`, zerver/lib/user_status.py `get_user_status`)
 *
 * A user's status, with only the parts that are set (`{}` for none). The user goes through
 * `access_user_by_id` without bots or deactivated users: `No such user` for an unknown id or a
 * bot, `User is deactivated`, `Insufficient permission` for a user the caller may not access.
 *
 * @example
 * ```ts
 * const r = getUserStatus(realm, { userId: 4 }, { user_id: 5 });
 * expect(r.body).toEqual({ result: 'success', msg: '', status: {} });
 * ```
 */
export const getUserStatus = defineOperation({
  name: 'getUserStatus',
  method: 'GET',
  path: '/users/{user_id}/status',
  operationId: 'get-user-status',
  pathParams: ['user_id'],
  params: [param('user_id', z.int(), { required: true })],
  handler: ({ state, user, params, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    const target = state.users.get(params.user_id);
    if (target === undefined || target.is_bot) return failure(state, zulipError('No such user'));
    if (!target.is_active) return failure(state, zulipError('User is deactivated'));
    const accessed = accessUserForRead(state, user, target);
    if ('msg' in accessed) return failure(state, accessed);
    const status = formatUserStatus(state.userStatuses.get(target.user_id) ?? NO_STATUS);
    return success(state, { data: { status }, ignored });
  },
});
