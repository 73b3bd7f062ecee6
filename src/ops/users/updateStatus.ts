import * as z from 'zod/mini';
import { errors } from '../../core/errors';
import { to } from '../../core/events';
import type { UserStatus } from '../../core/model/records';
import { defineOperation } from '../../core/operation';
import { param, rawParam } from '../../core/params';
import { userIdsWhoCanAccess } from '../../core/permissions/user-access';
import { edit, failure, success } from '../../core/result';
import { pythonStrip } from '../../core/text/whitespace';
import { checkStatusEmoji } from '../../core/users/status-emoji';
import { NO_STATUS } from '../../core/users/user-status';

/** Zulip's `UserStatus.MAX_STATUS_TEXT_LENGTH`. */
const MAX_STATUS_TEXT = 60;

/**
 * POST /api/v1/users/me/status — https://zulip.com/api/update-status
 * (zerver/views/presence.py `update_user_status_backend`, zerver/lib/user_status.py
 * `check_update_user_status`, zerver/actions/user_status.py `do_update_user_status`)
 *
 * Sets the caller's status; bots are refused (`human_users_only`). Parameters are parsed in
 * Zulip's (alphabetical) order: `away`, `emoji_code`, `emoji_name`, `reaction_type`,
 * `status_text` (stripped, at most 60 characters). Then `Client did not pass any new values.`
 * when none of `away`, `status_text`, `emoji_name` is given. An empty `emoji_name` clears the
 * emoji; another is checked by `checkStatusEmoji`. Parts not given are kept. Active users who can
 * access the caller get a `user_status` event with the parts given; nothing changes and no event
 * is sent when the status is already so.
 *
 * @example
 * ```ts
 * const r = updateStatus(realm, { userId: 4 }, { status_text: 'On vacation', emoji_name: 'zulip' });
 * expect(r.status).toBe(200);
 * expect(r.events[0]?.event).toMatchObject({ type: 'user_status', user_id: 4, status_text: 'On vacation' });
 * ```
 */
export const updateStatus = defineOperation({
  name: 'updateStatus',
  method: 'POST',
  path: '/users/me/status',
  operationId: 'update-status',
  params: [
    param('away', z.boolean()),
    rawParam('emoji_code', z.string()),
    rawParam('emoji_name', z.string()),
    rawParam('reaction_type', z.string()),
    rawParam('status_text', z.string()),
  ],
  handler: ({ state, user, params, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    if (user.is_bot) return failure(state, errors.notForBots());
    const text = params.status_text === undefined ? undefined : pythonStrip(params.status_text);
    if (text !== undefined && [...text].length > MAX_STATUS_TEXT)
      return failure(
        state,
        errors.badRequest(`status_text is too long (limit: ${MAX_STATUS_TEXT} characters)`),
      );
    const { away, emoji_name: emojiName } = params;
    if (away === undefined && text === undefined && emojiName === undefined)
      return failure(state, errors.badRequest('Client did not pass any new values.'));

    let emoji: Pick<UserStatus, 'emoji_name' | 'emoji_code' | 'reaction_type'> | undefined;
    if (emojiName === '') emoji = { emoji_name: '', emoji_code: '', reaction_type: 'unicode_emoji' };
    else if (emojiName !== undefined) {
      const checked = checkStatusEmoji(state, emojiName, params.emoji_code, params.reaction_type);
      if ('code' in checked && 'msg' in checked) return failure(state, checked);
      emoji = checked;
    }

    const before = state.userStatuses.get(user.user_id) ?? NO_STATUS;
    const after: UserStatus = Object.freeze({
      ...before,
      ...(away === undefined ? {} : { away }),
      ...(text === undefined ? {} : { status_text: text }),
      ...emoji,
    });
    if (
      after.away === before.away &&
      after.status_text === before.status_text &&
      after.emoji_name === before.emoji_name &&
      after.emoji_code === before.emoji_code &&
      after.reaction_type === before.reaction_type
    )
      return success(state, { ignored });
    const isEmpty =
      !after.away &&
      after.status_text === '' &&
      after.emoji_name === '' &&
      after.reaction_type === 'unicode_emoji';
    const next = edit(state, (draft) => {
      draft.userStatuses = isEmpty
        ? draft.userStatuses.delete(user.user_id)
        : draft.userStatuses.set(user.user_id, after);
    });
    const event = {
      type: 'user_status' as const,
      user_id: user.user_id,
      ...(away === undefined ? {} : { away }),
      ...(text === undefined ? {} : { status_text: text }),
      ...emoji,
    };
    return success(next, { ignored, events: [to(userIdsWhoCanAccess(next, user), event)] });
  },
});
