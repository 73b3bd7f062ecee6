import * as z from 'zod/mini';
import { errors, zulipError } from '../../core/errors';
import { to } from '../../core/events';
import { checkSendAccess } from '../../core/messages/send-checks';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../../core/model/realm';
import type { User } from '../../core/model/records';
import { defineOperation } from '../../core/operation';
import { param, rawParam } from '../../core/params';
import { hasContentAccess } from '../../core/permissions/channels';
import { failure, success } from '../../core/result';

/** Zulip's `MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS`: larger channels get no typing events. */
const MAX_CHANNEL_SIZE_FOR_TYPING = 100;

/**
 * POST /api/v1/typing — https://zulip.com/api/set-typing-status
 *
 * Zulip's `send_notification_backend` (zerver/views/typing.py) and zerver/actions/typing.py:
 * nothing is stored; the answer is the unchanged state and `typing` events. Direct messages: every
 * id in `to` must be a user of the realm (the sender is added), and the event goes to the active
 * recipients who receive typing notifications. Channel topics: the caller must be allowed to post
 * there; the event goes to the channel's subscribers who receive typing notifications, unless the
 * channel has more than 100 subscribers. The sender's own `send_*_typing_notifications` setting
 * off is an error.
 *
 * @example
 * ```ts
 * const r = setTypingStatus(realm, { userId: 4 }, { op: 'start', to: [5] });
 * expect(r.events[0]?.event).toMatchObject({ type: 'typing', message_type: 'direct', op: 'start' });
 * ```
 */
export const setTypingStatus = defineOperation({
  name: 'setTypingStatus',
  method: 'POST',
  path: '/typing',
  operationId: 'set-typing-status',
  params: [
    rawParam('type', z.enum(['direct', 'stream', 'channel'])),
    rawParam('op', z.enum(['start', 'stop']), { required: true }),
    param('to', z.array(z.int())),
    param('stream_id', z.int()),
    rawParam('topic', z.string()),
  ],
  handler: ({ state, user, params, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    const sender = { user_id: user.user_id, email: user.email };
    if (params.type === 'stream' || params.type === 'channel') {
      if (params.stream_id === undefined) return failure(state, errors.badRequest('Missing channel ID'));
      if (params.topic === undefined) return failure(state, errors.badRequest('Missing topic'));
      if (!user.settings.send_stream_typing_notifications)
        return failure(
          state,
          errors.badRequest('User has disabled typing notifications for channel messages'),
        );
      const channel = state.channels.get(params.stream_id);
      if (channel === undefined || channel.is_archived || !hasContentAccess(state, user, channel))
        return failure(state, errors.invalidChannelId());
      const denied = checkSendAccess(state, user, channel);
      if (denied) return failure(state, denied);
      const topic =
        params.topic === EMPTY_TOPIC_DISPLAY_NAME || params.topic === '(no topic)' ? '' : params.topic;
      const event = {
        type: 'typing' as const,
        message_type: 'stream',
        op: params.op,
        sender,
        stream_id: channel.stream_id,
        topic,
      };
      const subscribers: User[] = [];
      for (const sub of state.subscriptions.get(channel.stream_id)?.values() ?? []) {
        const u = state.users.get(sub.user_id);
        if (sub.active && u?.is_active) subscribers.push(u);
      }
      if (subscribers.length > MAX_CHANNEL_SIZE_FOR_TYPING) return success(state, { ignored });
      const users = subscribers.filter((u) => u.settings.receives_typing_notifications).map((u) => u.user_id);
      return success(state, { ignored, events: users.length > 0 ? [to(users, event)] : [] });
    }
    if (params.to === undefined) return failure(state, errors.badRequest("Missing 'to' argument"));
    if (params.to.length === 0) return failure(state, errors.badRequest("Empty 'to' list"));
    if (!user.settings.send_private_typing_notifications)
      return failure(state, errors.badRequest('User has disabled typing notifications for direct messages'));
    const ids = params.to.includes(user.user_id) ? params.to : [...params.to, user.user_id];
    const recipients: User[] = [];
    for (const id of ids) {
      const u = state.users.get(id);
      if (u === undefined) return failure(state, zulipError(`Invalid user ID ${id}`));
      recipients.push(u);
    }
    const event = {
      type: 'typing' as const,
      message_type: 'direct',
      op: params.op,
      sender,
      recipients: recipients.map((u) => ({ user_id: u.user_id, email: u.email })),
    };
    const users = recipients
      .filter((u) => u.is_active && u.settings.receives_typing_notifications)
      .map((u) => u.user_id);
    return success(state, { ignored, events: users.length > 0 ? [to(users, event)] : [] });
  },
});
