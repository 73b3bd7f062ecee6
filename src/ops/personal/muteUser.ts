import * as z from 'zod/mini';
import { errors } from '../../core/errors';
import { to } from '../../core/events';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { edit, failure, success } from '../../core/result';
import { accessUserForRead } from '../../core/users/access-user';
import { hasMuted, mutedUsersList } from '../../core/users/muted-users';

/**
 * POST /api/v1/users/me/muted_users/{muted_user_id} — https://zulip.com/api/mute-user
 * (zerver/views/muted_users.py `mute_user`, zerver/actions/muted_users.py `do_mute_user`)
 *
 * Mutes a user for the caller. In Zulip's order: `Cannot mute self`, then the user through
 * `access_user_by_id` (bots and deactivated users allowed: `No such user`, or
 * `Insufficient permission` for a user the caller may not access), then `User already muted`.
 * The caller gets a `muted_users` event with the whole list. New messages from the muted user
 * arrive already read (`personalFlags`).
 *
 * Differs from Zulip: Zulip also marks the caller's existing unread messages from that user as
 * read, in a deferred queue worker; the engine does not (docs/differences/everyday.md).
 *
 * @example
 * ```ts
 * const r = muteUser(realm, { userId: 4 }, { muted_user_id: 5 }, { now });
 * expect(r.status).toBe(200);
 * expect(r.events[0]?.event.type).toBe('muted_users');
 * ```
 */
export const muteUser = defineOperation({
  name: 'muteUser',
  method: 'POST',
  path: '/users/me/muted_users/{muted_user_id}',
  operationId: 'mute-user',
  pathParams: ['muted_user_id'],
  params: [param('muted_user_id', z.int(), { required: true })],
  handler: ({ state, user, params, ctx, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    if (params.muted_user_id === user.user_id) return failure(state, errors.badRequest('Cannot mute self'));
    const target = accessUserForRead(state, user, state.users.get(params.muted_user_id));
    if ('code' in target) return failure(state, target);
    if (hasMuted(state, user.user_id, target.user_id))
      return failure(state, errors.badRequest('User already muted'));
    const row = Object.freeze({ id: target.user_id, timestamp: Math.floor(ctx.now) });
    const next = edit(state, (draft) => {
      draft.mutedUsers = draft.mutedUsers.set(user.user_id, [
        ...(state.mutedUsers.get(user.user_id) ?? []),
        row,
      ]);
    });
    const event = { type: 'muted_users' as const, muted_users: mutedUsersList(next, user.user_id) };
    return success(next, { ignored, events: [to([user.user_id], event)] });
  },
});
