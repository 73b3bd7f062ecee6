import { to, type AddressedEvent } from '../../core/events';
import { emojiByName, emojiRefusal } from '../../core/emoji/check';
import { messageActionRecipients } from '../../core/messages/action-recipients';
import type { MessageRecord } from '../../core/messages/store';
import type { Reaction, User } from '../../core/model/records';
import type { RealmState } from '../../core/state';

/**
 * What the reaction operations share: Zulip's emoji lookups (zerver/lib/emoji.py) and the
 * `reaction` event (`notify_reaction_update`, zerver/actions/reactions.py).
 */

export type ReactionType = Reaction['reaction_type'];
export { emojiByName, emojiRefusal };

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
