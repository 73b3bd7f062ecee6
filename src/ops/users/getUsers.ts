import * as z from 'zod';
import { zulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { accessibleUserIds, accessibleUserIdsAmong } from '../../core/permissions/user-access';
import { failure, success } from '../../core/result';
import type { RealmState } from '../../core/state';
import { formatUser } from '../../core/users/format';

/**
 * Spectators may list users only when the server and the realm allow web-public access and the
 * realm has a web-public channel that is not archived (Zulip's `allow_web_public_streams_access`).
 */
export function spectatorsAllowed(state: RealmState): boolean {
  if (!state.server.web_public_streams_enabled || !state.realm.enable_spectator_access) return false;
  for (const c of state.channels.values()) if (c.is_web_public && !c.is_archived) return true;
  return false;
}

/**
 * GET /api/v1/users — https://zulip.com/api/get-users
 *
 * Lists the realm's users (active and deactivated, humans and bots) in user id order, formatted by
 * `formatUser`. Differences from Zulip: none known beyond the shared ones of the user formatter
 * (avatar hash of uploaded avatars, fake email domain) and the access rule's reading of
 * "shares a conversation", see docs/differences/users.md.
 *
 * @example
 * ```ts
 * const r = getUsers(realm, { userId: 4 }, { user_ids: [2, 4] });
 * expect(r.body['members']).toMatchObject([{ user_id: 2, full_name: 'Iago' }, { user_id: 4, full_name: 'King Hamlet' }]);
 * ```
 */
export const getUsers = defineOperation({
  name: 'getUsers',
  method: 'GET',
  path: '/users',
  operationId: 'get-users',
  allowAnonymous: true,
  params: [
    param('client_gravatar', z.boolean()),
    param('include_custom_profile_fields', z.boolean()),
    param('user_ids', z.array(z.int())),
  ],
  handler: ({ state, user, params, ignored }) => {
    if (user === null && !spectatorsAllowed(state)) {
      // Zulip's MissingAuthenticationError, raised by the view (after parsing).
      return failure(
        state,
        zulipError('Not logged in: API authentication or user session required', 'UNAUTHENTICATED_USER', 401),
      );
    }
    const opts = {
      clientGravatar: params.client_gravatar ?? true,
      includeCustomProfileFields: params.include_custom_profile_fields ?? false,
    };
    // With user_ids, look only at the requested ids rather than listing the realm.
    const ids =
      params.user_ids === undefined
        ? accessibleUserIds(state, user)
        : accessibleUserIdsAmong(state, user, params.user_ids);
    const members = ids.map((id) => formatUser(state, user, state.users.get(id)!, opts));
    return success(state, { data: { members }, ignored });
  },
});
