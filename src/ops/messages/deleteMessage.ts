import { castDraft } from 'immer';
import * as z from 'zod/mini';
import { zulipError } from '../../core/errors';
import { to, type AddressedEvent } from '../../core/events';
import { messageActionRecipients } from '../../core/messages/action-recipients';
import { firstMessageIdInChannel } from '../../core/messages/query';
import { deleteMessages } from '../../core/messages/store';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import {
  hasPermission,
  CHANNEL_SETTING_RULES,
  hasRealmPermission,
} from '../../core/permissions/setting-rules';
import { edit, failure, success } from '../../core/result';
import type { Channel, User } from '../../core/model/records';
import type { RealmState } from '../../core/state';
import type { MessageRecord } from '../../core/messages/store';
import { accessMessage } from './message-access';

/**
 * DELETE /api/v1/messages/{message_id} — https://zulip.com/api/delete-message
 *
 * Zulip's `delete_message_backend`: `access_message` (modifying: an archived channel's message is
 * invalid), then `validate_can_delete_message`, then `do_delete_messages`. The events are a
 * `first_message_id` stream update when the channel's oldest message goes, then `delete_message`
 * (`message_ids`; event-queue hosts split it into one `message_id` event per message for clients
 * without `bulk_message_deletion`), to the message's action recipients and the deleting user.
 *
 * @example
 * ```ts
 * const r = deleteMessage(realm, { userId: 2 }, { message_id: 101 }, { now });
 * expect(r.events.map((e) => e.event.type)).toContain('delete_message');
 * ```
 */
export const deleteMessage = defineOperation({
  name: 'deleteMessage',
  method: 'DELETE',
  path: '/messages/{message_id}',
  operationId: 'delete-message',
  pathParams: ['message_id'],
  params: [param('message_id', z.int().check(z.nonnegative()), { required: true })],
  handler: ({ state, user, params, ctx, ignored }) => {
    const me = user!;
    const accessed = accessMessage(state, me, params.message_id, true);
    if (accessed === undefined) return failure(state, zulipError('Invalid message(s)'));
    const { record } = accessed;
    const channel = record.stream_id === null ? null : (state.channels.get(record.stream_id) ?? null);
    const refusal = deleteRefusal(state, me, record, channel, ctx.now);
    if (refusal !== undefined) return failure(state, zulipError(refusal));
    const { state: next, events } = removeMessages(state, me, channel, record, [record.id]);
    return success(next, { ignored, events });
  },
});

/** Zulip's `validate_can_delete_message` (zerver/views/message_edit.py): the refusal, if any. */
function deleteRefusal(
  state: RealmState,
  me: User,
  record: MessageRecord,
  channel: Channel | null,
  now: number,
): string | undefined {
  if (hasRealmPermission(state, me, 'can_delete_any_message_group')) return undefined;
  const rules = CHANNEL_SETTING_RULES;
  if (
    channel !== null &&
    hasPermission(state, me, rules.can_delete_any_message_group, channel.can_delete_any_message_group)
  )
    return undefined;
  const denied = "You don't have permission to delete this message";
  const sender = state.users.get(record.sender_id);
  if (record.sender_id !== me.user_id && sender?.bot_owner_id !== me.user_id) return denied;
  if (!hasRealmPermission(state, me, 'can_delete_own_message_group')) {
    // Channel messages: the channel's own setting can grant what the organization's does not.
    if (
      channel === null ||
      !hasPermission(state, me, rules.can_delete_own_message_group, channel.can_delete_own_message_group)
    )
      return denied;
  }
  const limit = state.realm.message_content_delete_limit_seconds;
  if (limit !== null && now - record.timestamp > limit) {
    return 'The time limit for deleting this message has passed';
  }
  return undefined;
}

/**
 * Zulip's `_process_grouped_messages_deletion` for messages of one conversation (one channel topic
 * or one direct-message conversation): the store without them, and the events.
 */
export function removeMessages(
  state: RealmState,
  actor: User,
  channel: Channel | null,
  record: MessageRecord,
  ids: readonly number[],
): { state: RealmState; events: AddressedEvent[] } {
  const store = state.messages;
  const recipients = messageActionRecipients(state, store, channel, ids);
  recipients.add(actor.user_id);
  const nextStore = deleteMessages(store, new Set(ids));
  const next = edit(state, (draft) => {
    draft.messages = castDraft(nextStore);
  });
  const events: AddressedEvent[] = [];
  const sorted = [...ids].sort((a, b) => a - b);
  if (channel === null) {
    events.push(to(recipients, { type: 'delete_message', message_ids: sorted, message_type: 'private' }));
    return { state: next, events };
  }
  const firstBefore = firstMessageIdInChannel(store, channel.stream_id);
  if (firstBefore !== null && sorted.includes(firstBefore)) {
    events.push(
      to(recipients, {
        type: 'stream',
        op: 'update',
        property: 'first_message_id',
        value: firstMessageIdInChannel(nextStore, channel.stream_id),
        stream_id: channel.stream_id,
        name: channel.name,
      }),
    );
  }
  events.push(
    to(recipients, {
      type: 'delete_message',
      message_ids: sorted,
      message_type: 'stream',
      stream_id: channel.stream_id,
      topic: record.topic.toLowerCase(),
    }),
  );
  return { state: next, events };
}
