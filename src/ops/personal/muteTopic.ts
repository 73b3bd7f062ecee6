import * as z from 'zod/mini';
import { accessChannelById, isAccessError } from '../../core/channels/access-channel';
import { errors, zulipError } from '../../core/errors';
import type { Channel } from '../../core/model/records';
import { defineOperation } from '../../core/operation';
import { param, rawParam } from '../../core/params';
import { failure } from '../../core/result';
import { setOwnTopicPolicy } from './topic-policy';

/**
 * PATCH /api/v1/users/me/subscriptions/muted_topics — https://zulip.com/api/mute-topic
 * (zerver/views/user_topics.py `update_muted_topic`; test_muted_topics.py)
 *
 * The legacy way to mute (`op: add`) or unmute (`op: remove`) a topic, still what the Python
 * client's `mute_topic` calls. Exactly one of `stream_id` and `stream` (a name) names the channel
 * (`Unsupported parameter combination`). Muting needs access to the channel (`Invalid channel ID`,
 * `Invalid channel name '…'`); unmuting only that the channel exists (`Topic is not muted`
 * otherwise). The effect and events are POST /user_topics' with policy 1 or 0.
 *
 * @example
 * ```ts
 * const r = muteTopic(realm, { userId: 4 }, { stream: 'Verona', topic: 'lunch', op: 'add' }, { now });
 * expect(r.status).toBe(200);
 * ```
 */
export const muteTopic = defineOperation({
  name: 'muteTopic',
  method: 'PATCH',
  path: '/users/me/subscriptions/muted_topics',
  operationId: 'mute-topic',
  params: [
    param('stream_id', z.int()),
    rawParam('stream', z.string()),
    rawParam('topic', z.string(), { required: true }),
    rawParam('op', z.enum(['add', 'remove']), { required: true }),
  ],
  handler: ({ state, user, params, ctx, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    const max = state.server.max_topic_length;
    if ([...params.topic].length > max)
      return failure(state, errors.badRequest(`topic is too long (limit: ${max} characters)`));
    if ((params.stream_id === undefined) === (params.stream === undefined))
      return failure(state, errors.unsupportedCombination(['stream_id', 'stream']));
    const byName =
      params.stream === undefined ? undefined : state.channelsByName.get(params.stream.toLowerCase());
    let channel: Channel | undefined;
    if (params.op === 'add') {
      const id = params.stream_id ?? byName;
      const found = id === undefined ? undefined : accessChannelById(state, user, id);
      if (found === undefined || isAccessError(found)) {
        if (params.stream !== undefined)
          return failure(state, zulipError(`Invalid channel name '${params.stream}'`));
        return failure(state, found ?? errors.invalidChannelId());
      }
      channel = found;
    } else {
      channel = state.channels.get(params.stream_id ?? byName ?? -1);
      if (channel === undefined) return failure(state, zulipError('Topic is not muted'));
    }
    const policy = params.op === 'add' ? 1 : 0;
    return setOwnTopicPolicy(state, user.user_id, channel.stream_id, params.topic, policy, ctx.now, ignored);
  },
});
