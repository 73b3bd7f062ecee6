import { getRowFlags } from '../../core/messages/rows';
import { getMessage, type MessageRecord } from '../../core/messages/store';
import type { User } from '../../core/model/records';
import type { RealmState } from '../../core/state';
import { NarrowContext } from '../../narrow';

/** A message the user may act on, with their row's flag bits (undefined without a row). */
export interface AccessedMessage {
  readonly record: MessageRecord;
  readonly row: number | undefined;
}

/**
 * Zulip's `access_message_and_usermessage` (zerver/lib/message.py, `has_message_access`): a direct
 * message needs a row; a channel message needs content access to its channel (subscribed, or a
 * non-guest in a public channel or in `can_subscribe_group` / `can_add_subscribers_group`; no
 * exception for web-public channels) and, unless the history is shared, a row. With `modifying` (editing, moving, deleting) a message of an archived channel
 * is refused too. Undefined means Zulip's "Invalid message(s)".
 */
export function accessMessage(
  state: RealmState,
  user: User,
  messageId: number,
  modifying: boolean,
): AccessedMessage | undefined {
  const record = getMessage(state.messages, messageId);
  if (record === undefined) return undefined;
  const rows = state.messages.rows.get(user.user_id);
  const row = rows === undefined ? undefined : getRowFlags(rows, record.id);
  if (record.stream_id === null) return row === undefined ? undefined : { record, row };
  const channel = state.channels.get(record.stream_id);
  if (channel === undefined || (modifying && channel.is_archived)) return undefined;
  // Content access without the web-public exception (`has_message_access` has none: a guest
  // reads a web-public channel's messages only while subscribed), plus a row unless the history
  // is shared.
  const readable = new NarrowContext(state, user).rowChannelReadable(record.stream_id);
  const ok = readable && (row !== undefined || channel.history_public_to_subscribers);
  return ok ? { record, row } : undefined;
}
