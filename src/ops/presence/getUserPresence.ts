import * as z from 'zod/mini';
import { errors } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { rawParam } from '../../core/params';
import { canAccessUser } from '../../core/permissions/user-access';
import { legacyPresence, PRESENCE_SETTINGS } from '../../core/presence/presence';
import { failure, success } from '../../core/result';
import type { User } from '../../core/model/records';
import type { RealmState } from '../../core/state';
import { decodePercentOrRaw } from '../../core/url';

/**
 * GET /api/v1/users/{user_id_or_email}/presence — https://zulip.com/api/get-user-presence
 *
 * Zulip's `get_presence_backend`: the user by id (an integer path) or by API email, active and
 * accessible to the caller ("No such user" otherwise), not a bot; the legacy format without
 * `client` and `pushable`, the aggregated status `offline` once older than
 * `OFFLINE_THRESHOLD_SECS` (140 s).
 *
 * @example
 * ```ts
 * const r = getUserPresence(realm, { userId: 4 }, { user_id_or_email: '5' });
 * expect(r.body).toMatchObject({ result: 'error', msg: 'No presence data for 5' });
 * ```
 */
export const getUserPresence = defineOperation({
  name: 'getUserPresence',
  method: 'GET',
  path: '/users/{user_id_or_email}/presence',
  operationId: 'get-user-presence',
  pathParams: ['user_id_or_email'],
  params: [rawParam('user_id_or_email', z.string(), { required: true })],
  handler: ({ state, user, params, ctx, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    const key = decodePercentOrRaw(params.user_id_or_email);
    const target = findUser(state, key);
    if (target === undefined || !target.is_active || !canAccessUser(state, user, target))
      return failure(state, errors.badRequest('No such user'));
    if (target.is_bot) return failure(state, errors.badRequest('Presence is not supported for bot users.'));
    const row = ctx.presence.get(target.user_id);
    if (row === undefined) return failure(state, errors.badRequest(`No presence data for ${key}`));
    const { aggregated, website } = legacyPresence(row, target, ctx.now);
    const offline = ctx.now - aggregated.timestamp > PRESENCE_SETTINGS.offlineThresholdSecs;
    const presence = {
      aggregated: {
        status: offline ? ('offline' as const) : aggregated.status,
        timestamp: aggregated.timestamp,
      },
      website: { status: website.status, timestamp: website.timestamp },
    };
    return success(state, { data: { presence }, ignored });
  },
});

/** An integer path is a user id (Python's `int()`), anything else an API email. */
function findUser(state: RealmState, key: string): User | undefined {
  if (/^\s*[+-]?\d+\s*$/.test(key)) return state.users.get(Number(key));
  const id = state.usersByEmail.get(key.toLowerCase());
  return id === undefined ? undefined : state.users.get(id);
}
