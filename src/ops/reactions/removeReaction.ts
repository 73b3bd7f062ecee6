import * as z from 'zod/mini';
import { zulipError } from '../../core/errors';
import { setReactions } from '../../core/messages/store-reactions';
import { defineOperation } from '../../core/operation';
import { param, rawParam } from '../../core/params';
import { failure, success } from '../../core/result';
import type { RealmState } from '../../core/state';
import { accessMessage } from '../messages/message-access';
import { emojiByName, reactionEvent } from './reaction-emoji';

/**
 * DELETE /api/v1/messages/{message_id}/reactions — https://zulip.com/api/remove-reaction
 *
 * Zulip's `remove_reaction` (zerver/views/reactions.py): the message must be one the user may act
 * on ("Invalid message(s)"); without `emoji_code` the code is looked up from `emoji_name` (neither:
 * "At least one of the following arguments must be present: emoji_name, emoji_code"); the user's
 * reaction with that code and `reaction_type` (default `unicode_emoji`) must exist ("Reaction
 * doesn't exist."). The emoji itself is not validated again: a reaction with a since-deactivated
 * custom emoji can still be removed. The `reaction` event (op `remove`) carries the stored name.
 *
 * @example
 * ```ts
 * addReaction(realm, { userId: 4 }, { message_id: 101, emoji_name: 'octopus' });
 * const r = removeReaction(realm, { userId: 4 }, { message_id: 101, emoji_code: '1f419' });
 * ```
 */
export const removeReaction = defineOperation({
  name: 'removeReaction',
  method: 'DELETE',
  path: '/messages/{message_id}/reactions',
  operationId: 'remove-reaction',
  pathParams: ['message_id'],
  params: [
    param('message_id', z.int().check(z.nonnegative()), { required: true }),
    rawParam('emoji_name', z.string()),
    rawParam('emoji_code', z.string()),
    rawParam('reaction_type', z.string()),
  ],
  handler: ({ state, user, params, ignored }) => {
    const me = user!;
    const accessed = accessMessage(state, me, params.message_id, true);
    if (accessed === undefined) return failure(state, zulipError('Invalid message(s)'));
    const { record } = accessed;
    let code = params.emoji_code;
    const type = params.reaction_type ?? 'unicode_emoji';
    if (code === undefined) {
      if (params.emoji_name === undefined)
        return failure(
          state,
          zulipError('At least one of the following arguments must be present: emoji_name, emoji_code'),
        );
      const found = emojiByName(state, params.emoji_name);
      if ('code' in found) return failure(state, found);
      code = found.emoji_code;
    }
    const at = record.reactions.findIndex(
      (r) => r.user_id === me.user_id && r.emoji_code === code && r.reaction_type === type,
    );
    const reaction = record.reactions[at];
    if (reaction === undefined)
      return failure(state, zulipError("Reaction doesn't exist.", 'REACTION_DOES_NOT_EXIST'));
    const store = setReactions(
      state.messages,
      record.id,
      record.reactions.filter((_, k) => k !== at),
    );
    const next: RealmState = Object.freeze({ ...state, messages: store });
    return success(next, { ignored, events: [reactionEvent(next, me, record, reaction, 'remove')] });
  },
});
