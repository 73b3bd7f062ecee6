import { errors, type ZulipError } from '../errors';
import { emojiByName, emojiRefusal } from '../emoji/check';
import type { UserStatus } from '../model/records';
import type { RealmState } from '../state';

type ReactionType = UserStatus['reaction_type'];

/**
 * The emoji check of POST /users/me/status (`update_user_status_backend`): a name without a code
 * or type is looked up (`emoji_name_to_emoji_code`: custom emoji, `zulip`, then Unicode names),
 * then the triple goes through `check_emoji_request`, as a reaction's does.
 *
 * Returns the emoji triple to store, or Zulip's error.
 */
export function checkStatusEmoji(
  state: RealmState,
  name: string,
  code: string | undefined,
  type: string | undefined,
): { emoji_name: string; emoji_code: string; reaction_type: ReactionType } | ZulipError {
  let emojiCode = code;
  let reactionType = type;
  if (emojiCode === undefined || reactionType === undefined) {
    const found = emojiByName(state, name);
    if ('code' in found) return found;
    emojiCode ??= found.emoji_code;
    reactionType ??= found.reaction_type;
  }
  const refusal = emojiRefusal(state, name, emojiCode, reactionType);
  if (refusal !== undefined) return errors.badRequest(refusal);
  return { emoji_name: name, emoji_code: emojiCode, reaction_type: reactionType as ReactionType };
}
