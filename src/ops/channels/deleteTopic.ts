import { castDraft } from 'immer';
import * as z from 'zod/mini';
import { errors } from '../../core/errors';
import { to, type AddressedEvent } from '../../core/events';
import { messageActionRecipients } from '../../core/messages/action-recipients';
import { firstMessageIdInChannel, topicMessageIds } from '../../core/messages/query';
import { getRowFlags } from '../../core/messages/rows';
import { deleteMessages, type MessageStore } from '../../core/messages/store';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../../core/model/realm';
import type { Channel, User } from '../../core/model/records';
import { defineOperation } from '../../core/operation';
import { accepts, param, rawParam, zulipIssue } from '../../core/params';
import { hasContentAccess, isPublic } from '../../core/permissions/channels';
import { isGuest, isRealmAdmin } from '../../core/permissions/roles';
import { edit, failure, success } from '../../core/result';
import type { RealmState } from '../../core/state';
import { resetUserTopics } from '../../core/channels/reset-user-topics';

/** Zulip's `NonNegativeInt` path id: any integer (the route only matches digits), not below 0. */
const nonNegativeInt = accepts<number>()(
  z.unknown().check(
    z.superRefine((v, ctx) => {
      if (typeof v !== 'number' || !Number.isInteger(v)) zulipIssue(ctx, '{var} is not an integer');
      else if (v < 0) zulipIssue(ctx, '{var} is too small');
    }),
  ) as unknown as z.ZodMiniType<number>,
);

/**
 * POST /api/v1/streams/{stream_id}/delete_topic (Zulip operationId `delete-topic`):
 * https://zulip.com/api/delete-topic
 *
 * Deletes a topic's messages newest first, `ctx.deleteTopic.batchSize` (Zulip: 100) at a time, with
 * one `delete_message` event per batch. Differences from Zulip:
 * - Zulip stops after 50 seconds; we stop after `ctx.deleteTopic.maxBatches` batches (default: no
 *   limit) and answer `complete: false` only when messages are left (Zulip's clock check can also
 *   fire after the last batch).
 * - Events are not addressed to deactivated users (they have no event queues); Zulip also skips
 *   long-idle users, which we do not model.
 *
 * @example
 * ```ts
 * const r = deleteTopic(realm, { userId: 2 }, { stream_id: 1, topic_name: 'lunch' }, { now });
 * expect(r.body).toMatchObject({ result: 'success', complete: true });
 * expect(r.events.map((e) => e.event['type'])).toContain('delete_message');
 * ```
 */
export const deleteTopic = defineOperation({
  name: 'deleteTopic',
  method: 'POST',
  path: '/streams/{stream_id}/delete_topic',
  operationId: 'delete-topic',
  pathParams: ['stream_id'],
  guard: (_state, user) => (isRealmAdmin(user) ? undefined : errors.mustBeAdmin()),
  params: [
    param('stream_id', nonNegativeInt, { required: true }),
    rawParam('topic_name', z.string(), { required: true }),
  ],
  handler: ({ state, user, params, ctx, ignored }) => {
    const caller = user!;
    const channel = state.channels.get(params.stream_id);
    // Admins are not exempt: deleting needs content access to an unarchived channel.
    if (channel === undefined || channel.is_archived || !hasContentAccess(state, caller, channel)) {
      return failure(state, errors.invalidChannelId());
    }
    const topic = params.topic_name === EMPTY_TOPIC_DISPLAY_NAME ? '' : params.topic_name;
    let remaining = accessibleTopicMessages(state, caller, channel, topic);
    const { batchSize, maxBatches } = ctx.deleteTopic;
    const size = Number.isFinite(batchSize) ? Math.max(1, Math.floor(batchSize)) : 100;
    const events: AddressedEvent[] = [];
    let store = state.messages;
    let batches = 0;
    while (remaining.length > 0) {
      if (batches >= maxBatches) {
        return success(withMessages(state, store), { data: { complete: false }, ignored, events });
      }
      const batch = remaining.slice(Math.max(0, remaining.length - size));
      remaining = remaining.slice(0, remaining.length - batch.length);
      store = deleteBatch(state, store, caller, channel, topic, batch, events);
      batches++;
    }
    const afterMessages = withMessages(state, store);
    const reset = resetUserTopics(afterMessages, channel, topic, ctx.now);
    return success(reset.state, { data: { complete: true }, ignored, events: [...events, ...reset.events] });
  },
});

/**
 * The topic's messages the caller may see (Zulip's `bulk_access_stream_messages_query`, content
 * access already checked): all of them, except in a protected-history channel only those the caller
 * received.
 */
function accessibleTopicMessages(state: RealmState, caller: User, channel: Channel, topic: string): number[] {
  const ids = topicMessageIds(state.messages, channel.stream_id, topic);
  if ((isPublic(channel) && !isGuest(caller)) || channel.history_public_to_subscribers) return ids;
  const rows = state.messages.rows.get(caller.user_id);
  return rows === undefined ? [] : ids.filter((id) => getRowFlags(rows, id) !== undefined);
}

/** Deletes one batch (ascending ids) from `store`, appending its events; returns the new store. */
function deleteBatch(
  state: RealmState,
  store: MessageStore,
  caller: User,
  channel: Channel,
  topic: string,
  batch: readonly number[],
  events: AddressedEvent[],
): MessageStore {
  const recipients = messageActionRecipients(state, store, channel, batch);
  recipients.add(caller.user_id);
  const firstBefore = firstMessageIdInChannel(store, channel.stream_id);
  const next = deleteMessages(store, new Set(batch));
  // Zulip queues the first_message_id update before the delete event of the same batch.
  if (firstBefore !== null && batch.includes(firstBefore)) {
    const value = firstMessageIdInChannel(next, channel.stream_id);
    events.push(
      to(recipients, {
        type: 'stream',
        op: 'update',
        property: 'first_message_id',
        value,
        stream_id: channel.stream_id,
        name: channel.name,
      }),
    );
  }
  events.push(
    to(recipients, {
      type: 'delete_message',
      message_ids: [...batch],
      message_type: 'stream',
      stream_id: channel.stream_id,
      topic: topic.toLowerCase(),
    }),
  );
  return next;
}

function withMessages(state: RealmState, store: MessageStore): RealmState {
  if (store === state.messages) return state;
  return edit(state, (draft) => {
    draft.messages = castDraft(store);
  });
}
