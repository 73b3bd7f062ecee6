import { to, type AddressedEvent } from '../../core/events';

/**
 * Zulip's `ReadMessagesEvent` (zerver/actions/message_flags.py): the `update_message_flags` event
 * the mark-as-read endpoints send to the reader alone. `all: true` (mark_all_as_read) carries no
 * ids: Zulip's clients then mark everything they hold as read.
 */
export function readEvent(userId: number, messages: number[], all: boolean): AddressedEvent {
  return to([userId], {
    type: 'update_message_flags',
    op: 'add',
    operation: 'add',
    flag: 'read',
    messages,
    all,
  });
}
