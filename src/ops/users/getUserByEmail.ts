import * as z from 'zod/mini';
import { defineOperation } from '../../core/operation';
import { param, rawParam } from '../../core/params';
import { failure, success } from '../../core/result';
import { accessUserForRead, userByEmail } from '../../core/users/access-user';
import { formatUser } from '../../core/users/format';

/**
 * GET /api/v1/users/{email} — https://zulip.com/api/get-user-by-email (zerver/views/users.py
 * `get_user_by_email`, zerver/lib/users.py `access_user_by_email`)
 *
 * One user by email, formatted as GET /users formats it. The path names the API email
 * (case-insensitive), or the real address when the caller may see it; otherwise `No such user`.
 * Then Zulip's read access: `Insufficient permission` for a user hidden from the caller.
 * Deactivated users and bots are found. Routed after GET /users/{user_id} and GET /users/me, so a
 * path of digits is an id and `me` is the caller.
 *
 * @example
 * ```ts
 * const r = getUserByEmail(realm, { userId: 4 }, { email: 'iago@zulip.com' });
 * expect(r.body).toMatchObject({ user: { user_id: 2 } });
 * ```
 */
export const getUserByEmail = defineOperation({
  name: 'getUserByEmail',
  method: 'GET',
  path: '/users/{email}',
  operationId: 'get-user-by-email',
  pathParams: ['email'],
  params: [
    rawParam('email', z.string(), { required: true }),
    param('client_gravatar', z.boolean()),
    param('include_custom_profile_fields', z.boolean()),
  ],
  handler: ({ state, user, params, ignored }) => {
    const me = user!;
    const target = accessUserForRead(state, me, userByEmail(state, me, params.email));
    if ('msg' in target) return failure(state, target);
    const opts = {
      clientGravatar: params.client_gravatar ?? true,
      includeCustomProfileFields: params.include_custom_profile_fields ?? false,
    };
    return success(state, { ignored, data: { user: formatUser(state, me, target, opts) } });
  },
});
