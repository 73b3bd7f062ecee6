import * as z from 'zod/mini';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure, success } from '../../core/result';
import { accessUserForRead } from '../../core/users/access-user';
import { formatUser } from '../../core/users/format';

/**
 * GET /api/v1/users/{user_id} — https://zulip.com/api/get-user (zerver/views/users.py
 * `get_members_backend` with a user id, zerver/lib/users.py `access_user_by_id`)
 *
 * One user, formatted as GET /users formats it (`client_gravatar` default true,
 * `include_custom_profile_fields` default false). Deactivated users and bots are found; an
 * unknown id is `No such user`; a user hidden from the caller by `can_access_all_users_group`
 * is `Insufficient permission` (Zulip's `check_can_access_user`).
 *
 * @example
 * ```ts
 * const r = getUser(realm, { userId: 4 }, { user_id: 2 });
 * expect(r.body).toMatchObject({ user: { user_id: 2, full_name: 'Iago' } });
 * ```
 */
export const getUser = defineOperation({
  name: 'getUser',
  method: 'GET',
  path: '/users/{user_id}',
  operationId: 'get-user',
  pathParams: ['user_id'],
  params: [
    param('user_id', z.int(), { required: true }),
    param('client_gravatar', z.boolean()),
    param('include_custom_profile_fields', z.boolean()),
  ],
  handler: ({ state, user, params, ignored }) => {
    const me = user!;
    const target = accessUserForRead(state, me, state.users.get(params.user_id));
    if ('msg' in target) return failure(state, target);
    const opts = {
      clientGravatar: params.client_gravatar ?? true,
      includeCustomProfileFields: params.include_custom_profile_fields ?? false,
    };
    return success(state, { ignored, data: { user: formatUser(state, me, target, opts) } });
  },
});
