import { errors } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { rawParam } from '../../core/params';
import { INCLUDE_SUBSCRIBERS } from './include-subscribers';
import { subscriptionLists } from '../../core/register/channels';
import { failure, success } from '../../core/result';

/**
 * GET /api/v1/users/me/subscriptions — https://zulip.com/api/get-subscriptions
 *
 * The caller's active subscriptions as register's `subscriptions` lists them (Zulip's
 * `gather_subscriptions`), sorted by name; `subscribers` on request. Null notification settings
 * stay null (the modern API; `notification_settings_null` is a register capability only).
 *
 * @example
 * ```ts
 * const r = getSubscriptions(realm, { userId: 4 }, { include_subscribers: true });
 * expect(r.body['subscriptions']).toContainEqual(expect.objectContaining({ name: 'Verona' }));
 * ```
 */
export const getSubscriptions = defineOperation({
  name: 'getSubscriptions',
  method: 'GET',
  path: '/users/me/subscriptions',
  operationId: 'get-subscriptions',
  params: [rawParam('include_subscribers', INCLUDE_SUBSCRIBERS)],
  handler: ({ state, user, params, ctx, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    const { subscriptions } = subscriptionLists(state, user, {
      includeSubscribers: (params.include_subscribers ?? false) !== false,
      // Zulip's `gather_subscriptions` leaves archived channels out of GET /users/me/subscriptions.
      archived: false,
      now: ctx.now,
    });
    return success(state, { data: { subscriptions }, ignored });
  },
});
