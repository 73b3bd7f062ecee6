import * as z from 'zod/mini';
import { errors } from '../../core/errors';
import { to } from '../../core/events';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { edit, failure, success } from '../../core/result';
import { accessUserForRead } from '../../core/users/access-user';
import { hasMuted, mutedUsersList } from '../../core/users/muted-users';

/**
 * DELETE /api/v1/users/me/muted_users/{muted_user_id} — https://zulip.com/api/unmute-user
 * (zerver/views/muted_users.py `unmute_user`, zerver/actions/muted_users.py `do_unmute_user`)
 *
 * Unmutes a user. In Zulip's order: the user through `access_user_by_id` (`No such user`,
 * `Insufficient permission`), then `User is not muted` (also for oneself, whom no one can mute).
 * The caller gets a `muted_users` event with the remaining list.
 *
 * @example
 * ```ts
 * const muted = muteUser(realm, { userId: 4 }, { muted_user_id: 5 }, { now });
 * const r = unmuteUser(muted.state, { userId: 4 }, { muted_user_id: 5 }, { now });
 * expect(r.status).toBe(200);
 * ```
 */
export const unmuteUser = defineOperation({
  name: 'unmuteUser',
  method: 'DELETE',
  path: '/users/me/muted_users/{muted_user_id}',
  operationId: 'unmute-user',
  pathParams: ['muted_user_id'],
  params: [param('muted_user_id', z.int(), { required: true })],
  handler: ({ state, user, params, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    const target = accessUserForRead(state, user, state.users.get(params.muted_user_id));
    if ('code' in target) return failure(state, target);
    if (!hasMuted(state, user.user_id, target.user_id))
      return failure(state, errors.badRequest('User is not muted'));
    const rest = (state.mutedUsers.get(user.user_id) ?? []).filter((m) => m.id !== target.user_id);
    const next = edit(state, (draft) => {
      draft.mutedUsers =
        rest.length > 0 ? draft.mutedUsers.set(user.user_id, rest) : draft.mutedUsers.delete(user.user_id);
    });
    const event = { type: 'muted_users' as const, muted_users: mutedUsersList(next, user.user_id) };
    return success(next, { ignored, events: [to([user.user_id], event)] });
  },
});
