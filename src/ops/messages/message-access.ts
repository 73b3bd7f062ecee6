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
 * message needs a row; a channel message needs a row in a channel the user may still read, or the
 * channel's history. With `modifying` (editing, moving, deleting) a message of an archived channel
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
  const ctx = new NarrowContext(state, user);
  const ok = (row !== undefined && ctx.rowChannelReadable(record.stream_id)) || ctx.canReadHistory(channel);
  return ok ? { record, row } : undefined;
}
