import { zulipError, type ZulipError } from '../../core/errors';
import { to, type AddressedEvent } from '../../core/events';
import { activeRealmEmojiNamed } from '../../core/emoji/realm-emoji';
import { unicodeEmoji } from '../../core/emoji/unicode';
import { messageActionRecipients } from '../../core/messages/action-recipients';
import type { MessageRecord } from '../../core/messages/store';
import type { Reaction, User } from '../../core/model/records';
import type { RealmState } from '../../core/state';

/**
 * What the reaction operations share: Zulip's emoji lookups (zerver/lib/emoji.py) and the
 * `reaction` event (`notify_reaction_update`, zerver/actions/reactions.py).
 */

export type ReactionType = Reaction['reaction_type'];

/** Zulip's `get_emoji_data`: the code and type of an emoji named `name`, or its error. */
export function emojiByName(
  state: RealmState,
  name: string,
): { emoji_code: string; reaction_type: ReactionType } | ZulipError {
  // An active custom emoji wins over the extra and Unicode emoji of the same name.
  const custom = activeRealmEmojiNamed(state, name);
  if (custom !== undefined) return { emoji_code: String(custom.id), reaction_type: 'realm_emoji' };
  if (name === 'zulip') return { emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' };
  const code = unicodeEmoji().nameToCode.get(name);
  if (code !== undefined) return { emoji_code: code, reaction_type: 'unicode_emoji' };
  return zulipError(`Emoji '${name}' does not exist`);
}

/** Zulip's `check_emoji_request`: the refusal of a new reaction, if any, in Zulip's order. */
export function emojiRefusal(
  state: RealmState,
  name: string,
  code: string,
  type: string,
): string | undefined {
  switch (type) {
    case 'realm_emoji': {
      // Codes are ids as strings: "01" or " 1" name no emoji.
      const custom = /^[1-9][0-9]{0,9}$/.test(code) ? state.realmEmoji.get(Number(code)) : undefined;
      if (custom === undefined) return 'Invalid custom emoji.';
      if (custom.name !== name) return 'Invalid custom emoji name.';
      return custom.deactivated ? 'This custom emoji has been deactivated.' : undefined;
    }
    case 'zulip_extra_emoji':
      if (code !== 'zulip') return 'Invalid emoji code.';
      return name !== code ? 'Invalid emoji name.' : undefined;
    case 'unicode_emoji': {
      const table = unicodeEmoji();
      if (!table.codeToNames.has(code)) return 'Invalid emoji code.';
      return table.nameToCode.get(name) !== code ? 'Invalid emoji name.' : undefined;
    }
    default:
      return 'Invalid emoji type.';
  }
}

/** The `reaction` event for `reaction`, addressed to the message's action recipients. */
export function reactionEvent(
  state: RealmState,
  actor: User,
  record: MessageRecord,
  reaction: Reaction,
  op: 'add' | 'remove',
): AddressedEvent {
  const channel = record.stream_id === null ? null : (state.channels.get(record.stream_id) ?? null);
  const recipients = messageActionRecipients(state, state.messages, channel, [record.id]);
  return to(recipients, {
    type: 'reaction',
    op,
    user_id: actor.user_id,
    user: { user_id: actor.user_id, email: actor.email, full_name: actor.full_name },
    message_id: record.id,
    emoji_name: reaction.emoji_name,
    emoji_code: reaction.emoji_code,
    reaction_type: reaction.reaction_type,
  });
}
