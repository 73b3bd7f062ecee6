import type { IntMap } from '../collections/int-map';
import type { User } from '../model/records';
import type { RealmState } from '../state';
import { registerUserDict } from '../users/format';

type RegisterUser = ReturnType<typeof registerUserDict>;

/**
 * The `realm_users` / `realm_non_active_users` lists as a viewer of one role sees them, apart from
 * the viewer's own entry. Every other entry depends only on the viewer's role (which delivery
 * addresses it may see) and `client_gravatar`, so every register of a role shares one walk.
 */
interface RoleLists {
  readonly realm: RealmState['realm'];
  readonly fields: RealmState['customProfileFields'];
  readonly active: readonly RegisterUser[];
  readonly inactive: readonly RegisterUser[];
  /** Where each user sits: its index in `active`, or `~index` in `inactive`. */
  readonly at: ReadonlyMap<number, number>;
}

/**
 * Keyed by the users map: a persistent map gets a new identity on any user change, so a stale
 * entry is never found; the realm and the custom profile fields are checked as `registerUserDict`
 * checks them. At most a few entries per map (roles × `client_gravatar`).
 */
const listsByUsers = new WeakMap<IntMap<User>, Map<number, RoleLists>>();

/**
 * The two user lists of register for a viewer whose access is not restricted: fresh arrays (the
 * caller owns them), made by copying the role's shared lists and putting the viewer's own dict in
 * its place (one sees one's own delivery address whatever one's role).
 */
export function unrestrictedUserLists(
  state: RealmState,
  me: User,
  clientGravatar: boolean,
): { active: RegisterUser[]; inactive: RegisterUser[] } {
  let byRole = listsByUsers.get(state.users);
  if (byRole === undefined) listsByUsers.set(state.users, (byRole = new Map()));
  const key = me.role * 2 + (clientGravatar ? 1 : 0);
  let lists = byRole.get(key);
  if (lists === undefined || lists.realm !== state.realm || lists.fields !== state.customProfileFields) {
    lists = buildRoleLists(state, me, clientGravatar);
    byRole.set(key, lists);
  }
  const active = lists.active.slice();
  const inactive = lists.inactive.slice();
  const at = lists.at.get(me.user_id);
  if (at !== undefined) {
    const own = registerUserDict(state, me, me, clientGravatar);
    if (at >= 0) active[at] = own;
    else inactive[~at] = own;
  }
  return { active, inactive };
}

/** One walk of the users, as `me`'s role sees them (`me`'s own entry is replaced by the caller). */
function buildRoleLists(state: RealmState, me: User, clientGravatar: boolean): RoleLists {
  const active: RegisterUser[] = [];
  const inactive: RegisterUser[] = [];
  const at = new Map<number, number>();
  // A stand-in viewer of the same role that is nobody, so no entry gets the self rule.
  const roleViewer: User = { ...me, user_id: -1 };
  state.users.forEachValue((u) => {
    const dict = registerUserDict(state, roleViewer, u, clientGravatar);
    if (u.is_active) at.set(u.user_id, active.push(dict) - 1);
    else at.set(u.user_id, ~(inactive.push(dict) - 1));
  });
  return { realm: state.realm, fields: state.customProfileFields, active, inactive, at };
}
