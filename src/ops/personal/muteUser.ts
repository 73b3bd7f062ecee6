import * as z from 'zod/mini';
import { errors } from '../../core/errors';
import { to } from '../../core/events';
import { idListToArray } from '../../core/messages/idlist';
import { markRowsRead, unreadAmong } from '../../core/messages/mark-read';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { edit, failure, success } from '../../core/result';
import type { RealmState } from '../../core/state';
import { accessUserForRead } from '../../core/users/access-user';
import { hasMuted, mutedUsersList } from '../../core/users/muted-users';
import { readEvent } from '../messages/read-event';

/**
 * POST /api/v1/users/me/muted_users/{muted_user_id} — https://zulip.com/api/mute-user
 * (zerver/views/muted_users.py `mute_user`, zerver/actions/muted_users.py `do_mute_user`)
 *
 * Mutes a user for the caller. In Zulip's order: `Cannot mute self`, then the user through
 * `access_user_by_id` (bots and deactivated users allowed: `No such user`, or
 * `Insufficient permission` for a user the caller may not access), then `User already muted`.
 * The caller gets a `muted_users` event with the whole list. Then, as Zulip's deferred
 * `mark_muted_user_messages_as_read`, the caller's unread messages from that user become read
 * (one `update_message_flags` event; the cost follows the messages that user sent). New messages
 * from the muted user arrive already read (`personalFlags`).
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
    const rows = state.messages.rows.get(user.user_id);
    const sent = state.messages.bySender.get(target.user_id);
    const unread = rows === undefined || sent === undefined ? [] : unreadAmong(rows, idListToArray(sent));
    const muted = edit(state, (draft) => {
      draft.mutedUsers = draft.mutedUsers.set(user.user_id, [
        ...(state.mutedUsers.get(user.user_id) ?? []),
        row,
      ]);
    });
    const next: RealmState =
      unread.length === 0
        ? muted
        : Object.freeze({ ...muted, messages: markRowsRead(state.messages, user.user_id, unread) });
    const event = { type: 'muted_users' as const, muted_users: mutedUsersList(next, user.user_id) };
    const events = [to([user.user_id], event)];
    if (unread.length > 0) events.push(readEvent(user.user_id, unread, false));
    return success(next, { ignored, events });
  },
});
