import * as z from 'zod/mini';
import { accessChannelById, canReadSubscribers, isAccessError } from '../../core/channels/access-channel';
import { zulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { subscriberIds } from '../../core/permissions/channels';
import { failure, success } from '../../core/result';

/**
 * GET /api/v1/streams/{stream_id}/members — https://zulip.com/api/get-subscribers
 * (zerver/views/streams.py `get_subscribers_backend`, zerver/lib/stream_subscription.py
 * `get_subscriber_ids` / `validate_user_access_to_subscribers_helper`)
 *
 * The channel's active subscribers who are active users, ascending. In Zulip's order: the channel
 * (`require_content_access=False`: `Invalid channel ID` for a missing channel or one the caller
 * cannot see at all), then the subscriber list itself: web-public channels to anyone, a guest only
 * where subscribed, public channels to members, private ones to subscribers, administrators and
 * holders of the settings granting metadata access — else
 * `Unable to retrieve subscribers for private channel`.
 *
 * @example
 * ```ts
 * const r = getSubscribers(realm, { userId: 4 }, { stream_id: 2 });
 * expect(r.body).toMatchObject({ subscribers: [1, 2, 4, 5, 6, 7, 9] });
 * ```
 */
export const getSubscribers = defineOperation({
  name: 'getSubscribers',
  method: 'GET',
  path: '/streams/{stream_id}/members',
  operationId: 'get-subscribers',
  pathParams: ['stream_id'],
  params: [param('stream_id', z.int(), { required: true })],
  handler: ({ state, user, params, ignored }) => {
    const me = user!;
    const channel = accessChannelById(state, me, params.stream_id, true);
    if (isAccessError(channel)) return failure(state, channel);
    if (!canReadSubscribers(state, me, channel))
      return failure(state, zulipError('Unable to retrieve subscribers for private channel'));
    return success(state, { ignored, data: { subscribers: subscriberIds(state, channel.stream_id) } });
  },
});
