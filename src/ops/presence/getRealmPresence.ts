import { errors } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { realmPresences } from '../../core/presence/presence';
import { failure, success } from '../../core/result';

/**
 * GET /api/v1/realm/presence — https://zulip.com/api/get-presence
 *
 * Zulip's `get_statuses_for_realm`: every active human's presence in the legacy format (keyed by
 * email), connected within the last 14 days, without `presence_last_update_id`. Reads the host's
 * presence table through the context.
 *
 * @example
 * ```ts
 * const r = getRealmPresence(realm, { userId: 4 });
 * expect(r.body).toMatchObject({ result: 'success', presences: {} });
 * ```
 */
export const getRealmPresence = defineOperation({
  name: 'getRealmPresence',
  method: 'GET',
  path: '/realm/presence',
  operationId: 'get-presence',
  params: [],
  handler: ({ state, user, ctx, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    const { presences } = realmPresences(state, ctx.presence, { slim: false, now: ctx.now });
    return success(state, { data: { presences, server_timestamp: ctx.now }, ignored });
  },
});
