import * as z from 'zod/mini';
import { errors } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { hasMetadataAccess, isSubscribed } from '../../core/permissions/channels';
import { canAccessUser } from '../../core/permissions/user-access';
import { failure, success } from '../../core/result';

/**
 * GET /api/v1/users/{user_id}/subscriptions/{stream_id} — https://zulip.com/api/get-subscription-status
 *
 * Zulip's `get_subscription_backend`: the target must be an active user the caller may see
 * (`access_user_by_id`, "No such user"), the channel one whose metadata the caller may see and not
 * archived (`access_stream_by_id` without content access, "Invalid channel ID").
 *
 * @example
 * ```ts
 * const r = getSubscriptionStatus(realm, { userId: 4 }, { user_id: 4, stream_id: 1 });
 * expect(r.body).toEqual({ result: 'success', msg: '', is_subscribed: true });
 * ```
 */
export const getSubscriptionStatus = defineOperation({
  name: 'getSubscriptionStatus',
  method: 'GET',
  path: '/users/{user_id}/subscriptions/{stream_id}',
  operationId: 'get-subscription-status',
  pathParams: ['user_id', 'stream_id'],
  params: [param('user_id', z.int(), { required: true }), param('stream_id', z.int(), { required: true })],
  handler: ({ state, user, params, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    const target = state.users.get(params.user_id);
    if (target === undefined || !target.is_active || !canAccessUser(state, user, target))
      return failure(state, errors.badRequest('No such user'));
    const channel = state.channels.get(params.stream_id);
    if (channel === undefined || channel.is_archived || !hasMetadataAccess(state, user, channel))
      return failure(state, errors.invalidChannelId());
    return success(state, {
      data: { is_subscribed: isSubscribed(state, channel.stream_id, target.user_id) },
      ignored,
    });
  },
});
