import * as z from 'zod/mini';
import { activeRealmEmojiNamed, allRealmEmoji } from '../../core/emoji/realm-emoji';
import { zulipError } from '../../core/errors';
import { to } from '../../core/events';
import { defineOperation } from '../../core/operation';
import { rawParam } from '../../core/params';
import { isRealmAdmin } from '../../core/permissions/roles';
import { edit, failure, success } from '../../core/result';
import { activeUserIds } from '../../core/users/realm-users';

/**
 * DELETE /api/v1/realm/emoji/{emoji_name} — https://zulip.com/api/deactivate-custom-emoji
 *
 * Zulip's `delete_emoji` (zerver/views/realm_emoji.py): the active custom emoji of that name must
 * exist (404, "Emoji 'x' does not exist"); `check_remove_custom_emoji` lets administrators and
 * the emoji's author deactivate it. The emoji is kept, deactivated (reactions with it remain and
 * can still be removed or voted for), and every active user gets a `realm_emoji` `update` event
 * with all custom emoji (`notify_realm_emoji`).
 *
 * @example
 * ```ts
 * const r = deactivateCustomEmoji(realm, { userId: 2 }, { emoji_name: 'no_such_emoji' });
 * expect(r.status).toBe(404);
 * ```
 */
export const deactivateCustomEmoji = defineOperation({
  name: 'deactivateCustomEmoji',
  method: 'DELETE',
  path: '/realm/emoji/{emoji_name}',
  operationId: 'deactivate-custom-emoji',
  pathParams: ['emoji_name'],
  params: [rawParam('emoji_name', z.string(), { required: true })],
  handler: ({ state, user, params, ignored }) => {
    const me = user!;
    const emoji = activeRealmEmojiNamed(state, params.emoji_name);
    if (emoji === undefined)
      return failure(state, zulipError(`Emoji '${params.emoji_name}' does not exist`, 'BAD_REQUEST', 404));
    if (!isRealmAdmin(me) && emoji.author_id !== me.user_id)
      return failure(state, zulipError('Must be an organization administrator or emoji author'));
    const next = edit(state, (draft) => {
      draft.realmEmoji = draft.realmEmoji.set(emoji.id, { ...emoji, deactivated: true });
    });
    const event = to(activeUserIds(next), {
      type: 'realm_emoji',
      op: 'update',
      realm_emoji: allRealmEmoji(next),
    });
    return success(next, { ignored, events: [event] });
  },
});
