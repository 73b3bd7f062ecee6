import * as z from 'zod/mini';
import { zulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { sortUniqueIds } from '../../core/indexes/id-sets';
import {
  accessibleUserIds,
  accessibleUserIdsAmong,
  isUserAccessRestricted,
} from '../../core/permissions/user-access';
import { failure, success } from '../../core/result';
import type { RealmState } from '../../core/state';
import { formatUser, type ApiUser } from '../../core/users/format';
import { inaccessibleUserRecord, type InaccessibleUser } from '../../core/users/inaccessible-user';

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
 * `formatUser`. A guest restricted by `can_access_all_users_group` gets the users they can access,
 * then every other one as an "Unknown user" placeholder (Zulip's `get_users_for_api`). Differences
 * from Zulip: none known beyond the shared ones of the user formatter (avatar hash of uploaded
 * avatars, fake email domain) and the access rule's reading of "shares a conversation", see
 * docs/differences/users.md.
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
    const members: Array<ApiUser | InaccessibleUser> = ids.map((id) =>
      formatUser(state, user, state.users.get(id)!, opts),
    );
    // A restricted guest also gets every other listed user as an "Unknown user" placeholder, after
    // the accessible ones (Zulip's get_users_for_api; only /register's user_list_incomplete drops them).
    if (isUserAccessRestricted(state, user)) {
      const seen = new Set(ids);
      const listed = params.user_ids === undefined ? state.users.keys() : sortUniqueIds(params.user_ids);
      for (const id of listed)
        if (!seen.has(id) && state.users.has(id)) members.push(inaccessibleUserRecord(state, id));
    }
    return success(state, { data: { members }, ignored });
  },
});
