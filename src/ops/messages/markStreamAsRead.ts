import * as z from 'zod/mini';
import { accessChannelById, isAccessError } from '../../core/channels/access-channel';
import { markRowsRead } from '../../core/messages/mark-read';
import { unreadInChannel } from '../../core/messages/query';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure, success } from '../../core/result';
import type { RealmState } from '../../core/state';
import { readEvent } from './read-event';

/**
 * POST /api/v1/mark_stream_as_read — https://zulip.com/api/mark-stream-as-read (zerver/views/message_flags.py
 * `mark_stream_as_read`, zerver/actions/message_flags.py `do_mark_stream_messages_as_read`)
 *
 * Marks the caller's unread rows in a channel as read. The channel goes through Zulip's
 * `access_stream_by_id` first (`Invalid channel ID` for a missing channel or one the caller has no
 * content access to). One `update_message_flags` event (`all: false`, the ids ascending) to the
 * caller, and none when nothing was unread. Deprecated in Zulip (FL 153), still served.
 *
 * @example
 * ```ts
 * const r = markStreamAsRead(realm, { userId: 4 }, { stream_id: 1 });
 * expect(r.body).toEqual({ result: 'success', msg: '' });
 * ```
 */
export const markStreamAsRead = defineOperation({
  name: 'markStreamAsRead',
  method: 'POST',
  path: '/mark_stream_as_read',
  operationId: 'mark-stream-as-read',
  params: [param('stream_id', z.int(), { required: true })],
  handler: ({ state, user, params, ignored }) => {
    const me = user!;
    const channel = accessChannelById(state, me, params.stream_id);
    if (isAccessError(channel)) return failure(state, channel);
    const ids = unreadInChannel(state.messages, me.user_id, channel.stream_id);
    if (ids.length === 0) return success(state, { ignored });
    const next: RealmState = Object.freeze({
      ...state,
      messages: markRowsRead(state.messages, me.user_id, ids),
    });
    return success(next, { ignored, events: [readEvent(me.user_id, ids, false)] });
  },
});
