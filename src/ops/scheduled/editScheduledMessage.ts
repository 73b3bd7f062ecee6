import { castDraft } from 'immer';
import * as z from 'zod/mini';
import { errors, zulipError, type ZulipError } from '../../core/errors';
import { to } from '../../core/events';
import {
  channelAddresseeTopic,
  checkChannelSend,
  checkDirectAddressee,
  checkDirectSend,
  checkTopicPrintable,
  normalizeMessageContent,
  truncateTopic,
} from '../../core/messages/send-checks';
import type { ScheduledMessage } from '../../core/model/records';
import { defineOperation } from '../../core/operation';
import { accepts, param, rawParam, zulipIssue } from '../../core/params';
import { edit, editRecord, failure, success } from '../../core/result';
import type { RealmState } from '../../core/state';
import { stripUnicodeWhitespace } from '../../core/text/whitespace';
import { messageTypeSchema } from '../messages/send-recipients';
import { directRecipientsForApi, scheduledMessageForApi } from './format';

type RecipientType = 'stream' | 'private';

/** `Json[int | list[int]]`: Zulip reports any mismatch against the first branch. */
const toSchema = accepts<number | readonly number[]>()(
  z.pipe(
    z.unknown(),
    z.transform((value, ctx): number | number[] => {
      if (Number.isSafeInteger(value)) return value as number;
      if (Array.isArray(value) && value.every((v) => Number.isSafeInteger(v))) return value as number[];
      zulipIssue(ctx, '{var}["int"] is not an integer');
      return z.NEVER;
    }),
  ),
);

const futureError = (): ZulipError => errors.badRequest('Scheduled delivery time must be in the future.');

/**
 * PATCH /api/v1/scheduled_messages/{scheduled_message_id} — https://zulip.com/api/update-scheduled-message
 *
 * Differences from Zulip:
 * - `sending_client`, `failure_message`, attachments and `has_attachment` are not modelled.
 * - `rendered_content` comes from the project's small Markdown subset (src/core/markdown.ts).
 * - The send re-validation skips wildcard and group mention permissions (see send-checks.ts).
 * - Reminders (the other kind of scheduled message) do not exist in the realm state.
 *
 * @example
 * ```ts
 * const r = editScheduledMessage(realm, { userId: 4 }, { scheduled_message_id: 1, content: 'Lunch at one?' }, { now });
 * expect(r.body).toEqual({ result: 'success', msg: '' });
 * expect(r.state.scheduledMessages.get(1)?.content).toBe('Lunch at one?');
 * ```
 */
export const editScheduledMessage = defineOperation({
  name: 'editScheduledMessage',
  method: 'PATCH',
  path: '/scheduled_messages/{scheduled_message_id}',
  operationId: 'update-scheduled-message',
  pathParams: ['scheduled_message_id'],
  params: [
    param('scheduled_message_id', z.int(), { required: true }),
    rawParam('type', messageTypeSchema),
    param('to', toSchema),
    // OptionalTopic: a raw string, stripped of surrounding whitespace; `subject` is its legacy name.
    rawParam('topic', z.pipe(z.string(), z.transform(stripTopic)), { alias: 'subject' }),
    rawParam('content'),
    param('scheduled_delivery_timestamp', z.int()),
  ],
  handler: ({ state, user, params, ctx, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    const { type, to: rawTo, topic, content, scheduled_delivery_timestamp: deliverAt } = params;
    if ([type, rawTo, topic, content, deliverAt].every((v) => v === undefined))
      return failure(state, errors.badRequest('Nothing to change'));
    if (type !== undefined && rawTo === undefined)
      return failure(state, errors.badRequest('Recipient required when updating type of scheduled message.'));
    const newType: RecipientType | undefined =
      type === undefined ? undefined : type === 'channel' || type === 'stream' ? 'stream' : 'private';
    if (newType === 'stream' && topic === undefined)
      return failure(
        state,
        errors.badRequest('Topic required when updating scheduled message type to channel.'),
      );
    // Zulip checks the time before it looks the message up, so a bad id with a past time gets this.
    if (deliverAt !== undefined && deliverAt <= ctx.now) return failure(state, futureError());

    const existing = state.scheduledMessages.get(params.scheduled_message_id);
    if (existing === undefined || existing.sender_id !== user.user_id)
      return failure(state, zulipError('Scheduled message does not exist', 'BAD_REQUEST', 404));
    if (existing.delivered) return failure(state, errors.badRequest('Scheduled message was already sent'));
    if (existing.failed && deliverAt === undefined) return failure(state, futureError());

    let next: ScheduledMessage = existing;
    let validatedContent: string | undefined;
    if (newType !== undefined || rawTo !== undefined || content !== undefined) {
      const rebuilt = revalidate(
        state,
        user.user_id,
        existing,
        newType ?? existing.type,
        rawTo,
        topic,
        content ?? existing.content,
      );
      if ('code' in rebuilt) return failure(state, rebuilt);
      validatedContent = rebuilt.content;
      if (newType !== undefined || rawTo !== undefined) {
        const target = rebuilt;
        next = editRecord(next, (d) => {
          d.type = target.type;
          d.to = castDraft(target.to);
          d.topic = target.topic;
        });
      }
    }
    if (newType === undefined && rawTo === undefined && topic !== undefined && existing.type === 'stream') {
      // A topic-only change on a channel message is not re-validated as a send: only the printable
      // check and truncation (so the empty topic passes even where topics are required).
      const refused = checkTopicPrintable(topic);
      if (refused) return failure(state, refused);
      const newTopic = truncateTopic(state, topic);
      next = editRecord(next, (d) => {
        d.topic = newTopic;
      });
    }
    const finalContent = validatedContent;
    next = editRecord(next, (d) => {
      if (finalContent !== undefined) d.content = finalContent;
      if (deliverAt !== undefined) d.scheduled_delivery_timestamp = deliverAt;
      d.failed = false;
    });
    const saved = next;
    const after = edit(state, (draft) => {
      draft.scheduledMessages = draft.scheduledMessages.set(saved.scheduled_message_id, saved);
    });
    const event = {
      type: 'scheduled_messages' as const,
      op: 'update' as const,
      scheduled_message: scheduledMessageForApi(saved),
    };
    return success(after, { ignored, events: [to([user.user_id], event)] });
  },
});

/** pydantic's `strip_whitespace` (Unicode White_Space, not Python's `str.strip`). */
function stripTopic(topic: string): string {
  return stripUnicodeWhitespace(topic);
}

interface Rebuilt {
  readonly type: RecipientType;
  readonly to: number | readonly number[];
  readonly topic: string;
  readonly content: string;
}

/**
 * Rebuilds the message from the new and existing parts and runs the send checks, in Zulip's order:
 * recipient data types, the addressee (topic / user ids), the content, then channel or DM permissions.
 */
function revalidate(
  state: RealmState,
  senderId: number,
  existing: ScheduledMessage,
  type: RecipientType,
  rawTo: number | number[] | undefined,
  topic: string | undefined,
  rawContent: string,
): Rebuilt | ZulipError {
  const sender = state.users.get(senderId)!;
  if (type === 'stream') {
    let streamId: number;
    if (rawTo === undefined) {
      // The existing recipient: a channel id, or (type changed from direct) the DM's user ids.
      if (typeof existing.to !== 'number') return errors.badRequest('Cannot send to multiple channels');
      streamId = existing.to;
    } else if (typeof rawTo === 'number') streamId = rawTo;
    else return errors.badRequest('Invalid data type for channel ID');
    const addressed = channelAddresseeTopic(topic ?? existing.topic);
    if (typeof addressed !== 'string') return addressed;
    const content = normalizeMessageContent(state, rawContent);
    if (typeof content !== 'string') return content;
    const finalTopic = truncateTopic(state, addressed);
    const refused = checkChannelSend(state, sender, streamId, finalTopic);
    return refused ?? { type, to: streamId, topic: finalTopic, content };
  }
  let ids: number[];
  if (rawTo === undefined)
    ids = directRecipientsForApi(senderId, typeof existing.to === 'number' ? [existing.to] : existing.to);
  else if (typeof rawTo === 'number') return errors.badRequest('Invalid data type for recipients');
  else ids = [...new Set(rawTo)].sort((a, b) => a - b);
  const badAddressee = checkDirectAddressee(state, ids);
  if (badAddressee) return badAddressee;
  const content = normalizeMessageContent(state, rawContent);
  if (typeof content !== 'string') return content;
  const refused = checkDirectSend(state, sender, ids);
  return refused ?? { type, to: directRecipientsForApi(senderId, ids), topic: '', content };
}
