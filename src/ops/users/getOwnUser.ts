import { reusableBody } from '../../core/body-json';
import { defineOperation } from '../../core/operation';
import type { UserRows } from '../../core/messages/rows';
import type { User } from '../../core/model/records';
import type { OpResult, ZulipSuccess } from '../../core/result';
import type { RealmState } from '../../core/state';
import { formatUser, type ApiUser } from '../../core/users/format';

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
  handler: ({ state, user }): OpResult<OwnUser> => {
    // Not anonymous: the operation does not allow spectators, so `invoke` resolved a user.
    const me = user!;
    const maxId = lastRowId(state.messages.rows.get(me.user_id));
    let known = answers.get(me);
    if (
      known === undefined ||
      known.realm !== state.realm ||
      known.fields !== state.customProfileFields ||
      known.maxId !== maxId
    ) {
      const record = formatUser(state, me, me, { clientGravatar: false, includeCustomProfileFields: true });
      const body: ZulipSuccess<OwnUser> = reusableBody({
        result: 'success',
        msg: '',
        ...record,
        max_message_id: maxId,
      });
      known = { realm: state.realm, fields: state.customProfileFields, maxId, body };
      answers.set(me, known);
    }
    return { state, status: 200, body: known.body, events: [], effects: [] };
  },
});

/** GET /users/me's data: the user's dict and `max_message_id`. */
type OwnUser = { readonly [K in keyof ApiUser]: ApiUser[K] } & { readonly max_message_id: number };

/**
 * The answer for a user record, kept while what it was built from stays the same (every input of
 * the user's own dict: the record, the realm's settings for its email domain and avatar path, the
 * profile fields' definitions, and the user's last message id). Records are immutable: a change
 * to the user is a new record, which misses. Clients poll this endpoint; it is answered from here
 * (and its JSON text from `bodyJson`'s memo) until something it shows changes.
 */
const answers = new WeakMap<
  User,
  {
    readonly realm: RealmState['realm'];
    readonly fields: RealmState['customProfileFields'];
    readonly maxId: number;
    readonly body: ZulipSuccess<OwnUser>;
  }
>();
