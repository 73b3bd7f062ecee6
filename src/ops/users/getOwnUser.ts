import { defineOperation } from '../../core/operation';
import type { UserRows } from '../../core/messages/rows';
import { success } from '../../core/result';
import { formatUser } from '../../core/users/format';

/** The last (largest) message id of a user's rows, or -1 when there are none. */
export function lastRowId(rows: UserRows | undefined): number {
  const last = rows?.chunks[rows.chunks.length - 1];
  if (last === undefined || last.ids.length === 0) return -1;
  return last.ids[last.ids.length - 1]!;
}

/**
 * GET /api/v1/users/me — https://zulip.com/api/get-own-user
 *
 * The caller's own user record (as GET /users formats it with client_gravatar=false and custom
 * profile fields included) plus `max_message_id`: the largest id among the caller's own
 * UserMessage rows, or -1. Zulip's view takes no typed parameters, so unknown parameters are never
 * reported. Differences from Zulip: those of the shared user formatter (docs/differences/users.md).
 *
 * @example
 * ```ts
 * const r = getOwnUser(realm, { userId: 4 });
 * expect(r.body).toMatchObject({ user_id: 4, full_name: 'King Hamlet', is_admin: false });
 * ```
 */
export const getOwnUser = defineOperation({
  name: 'getOwnUser',
  method: 'GET',
  path: '/users/me',
  operationId: 'get-own-user',
  reportsIgnored: false,
  params: [],
  handler: ({ state, user }) => {
    // Not anonymous: the operation does not allow spectators, so `invoke` resolved a user.
    const me = user!;
    const record = formatUser(state, me, me, { clientGravatar: false, includeCustomProfileFields: true });
    return success(state, {
      data: { ...record, max_message_id: lastRowId(state.messages.rows.get(me.user_id)) },
    });
  },
});
