import * as z from 'zod/mini';
import { accessChannelById, isAccessError } from '../../core/channels/access-channel';
import { errors } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param, rawParam } from '../../core/params';
import { failure } from '../../core/result';
import { setOwnTopicPolicy } from './topic-policy';

/**
 * POST /api/v1/user_topics — https://zulip.com/api/update-user-topic (zerver/views/user_topics.py
 * `update_user_topic`, zerver/actions/user_topics.py `bulk_do_set_user_topic_visibility_policy`)
 *
 * Sets the caller's visibility policy for one topic: 0 inherit (removes the row), 1 muted,
 * 2 unmuted, 3 followed. Parameters in Zulip's order (`stream_id`, `topic` of at most the
 * server's topic length, `visibility_policy` in 0..3). Setting a policy needs access to the
 * channel (`access_stream_by_id`: `Invalid channel ID`); removing one only needs the channel to
 * exist in the organization, so a user who lost access can still clear a row. Topics compare
 * case-insensitively: an existing row keeps its spelling. Setting the current policy, or
 * removing a row that is not there, changes nothing and sends no event; otherwise the caller gets
 * the legacy `muted_topics` event, then `user_topic`.
 *
 * @example
 * ```ts
 * const r = updateUserTopic(realm, { userId: 4 }, { stream_id: 1, topic: 'weather', visibility_policy: 3 }, { now });
 * expect(r.status).toBe(200);
 * expect(r.events.map((e) => e.event.type)).toEqual(['muted_topics', 'user_topic']);
 * ```
 */
export const updateUserTopic = defineOperation({
  name: 'updateUserTopic',
  method: 'POST',
  path: '/user_topics',
  operationId: 'update-user-topic',
  params: [
    param('stream_id', z.int(), { required: true }),
    rawParam('topic', z.string(), { required: true }),
    param('visibility_policy', z.int(), { required: true }),
  ],
  handler: ({ state, user, params, ctx, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    const max = state.server.max_topic_length;
    if ([...params.topic].length > max)
      return failure(state, errors.badRequest(`topic is too long (limit: ${max} characters)`));
    const policy = params.visibility_policy;
    if (policy !== 0 && policy !== 1 && policy !== 2 && policy !== 3)
      return failure(state, errors.badRequest('Invalid visibility_policy'));
    let streamId: number;
    if (policy === 0) {
      // access_stream_to_remove_visibility_policy_by_id: existence in the realm is enough.
      if (!state.channels.has(params.stream_id)) return failure(state, errors.invalidChannelId());
      streamId = params.stream_id;
    } else {
      const channel = accessChannelById(state, user, params.stream_id);
      if (isAccessError(channel)) return failure(state, channel);
      streamId = channel.stream_id;
    }

    return setOwnTopicPolicy(state, user.user_id, streamId, params.topic, policy, ctx.now, ignored);
  },
});
