import * as z from 'zod/mini';
import { accessChannelById, isAccessError } from '../../core/channels/access-channel';
import { zulipError } from '../../core/errors';
import { markRowsRead, unreadAmong } from '../../core/messages/mark-read';
import { getRowFlags } from '../../core/messages/rows';
import { topicMessageIds, unreadInChannel } from '../../core/messages/query';
import { defineOperation } from '../../core/operation';
import { param, rawParam } from '../../core/params';
import { failure, success } from '../../core/result';
import type { RealmState } from '../../core/state';
import { readEvent } from './read-event';

/**
 * POST /api/v1/mark_topic_as_read — https://zulip.com/api/mark-topic-as-read (zerver/views/message_flags.py
 * `mark_topic_as_read`, zerver/actions/message_flags.py `do_mark_stream_messages_as_read`)
 *
 * Marks the caller's unread rows in one topic of a channel as read (topics compared
 * case-insensitively). In Zulip's order: the channel through `access_stream_by_id`
 * (`Invalid channel ID`), then — for a non-empty `topic_name` — `No such topic '…'` when the caller
 * holds no row at all in that topic (`user_message_exists_for_topic`). An empty `topic_name`
 * skips both the check and the topic filter, so it marks the whole channel, as Zulip's
 * `if topic_name:` does. One `update_message_flags` event to the caller, none when nothing was
 * unread. Deprecated in Zulip (FL 153), still served.
 *
 * @example
 * ```ts
 * const r = markTopicAsRead(realm, { userId: 4 }, { stream_id: 1, topic_name: 'weather' });
 * expect(r.status).toBe(200);
 * ```
 */
export const markTopicAsRead = defineOperation({
  name: 'markTopicAsRead',
  method: 'POST',
  path: '/mark_topic_as_read',
  operationId: 'mark-topic-as-read',
  params: [
    param('stream_id', z.int(), { required: true }),
    rawParam('topic_name', z.string(), { required: true }),
  ],
  handler: ({ state, user, params, ignored }) => {
    const me = user!;
    const channel = accessChannelById(state, me, params.stream_id);
    if (isAccessError(channel)) return failure(state, channel);
    const topic = params.topic_name;
    let ids: number[];
    if (topic === '') {
      ids = unreadInChannel(state.messages, me.user_id, channel.stream_id);
    } else {
      const inTopic = topicMessageIds(state.messages, channel.stream_id, topic);
      const rows = state.messages.rows.get(me.user_id);
      if (rows === undefined || !inTopic.some((id) => getRowFlags(rows, id) !== undefined))
        return failure(state, zulipError(`No such topic '${topic}'`));
      ids = unreadAmong(rows, inTopic);
    }
    if (ids.length === 0) return success(state, { ignored });
    const next: RealmState = Object.freeze({
      ...state,
      messages: markRowsRead(state.messages, me.user_id, ids),
    });
    return success(next, { ignored, events: [readEvent(me.user_id, ids, false)] });
  },
});
