import { zulipError, type ZulipError } from '../errors';
import { userIdByDeliveryEmail } from '../indexes/user-indexes';
import type { User } from '../model/records';
import { canAccessUser } from '../permissions/user-access';
import type { RealmState } from '../state';
import { apiEmail, canSeeDeliveryEmail, fakeEmailDomain } from './format';

/**
 * Zulip's `access_user_common` for reading a user (`allow_deactivated`, `allow_bots`, not
 * `for_admin`), as GET /users/{user_id} and GET /users/{email} call it: deactivated users and
 * bots are found; a user the caller may not access (`can_access_all_users_group`) is
 * `Insufficient permission`.
 */
export function accessUserForRead(
  state: RealmState,
  viewer: User,
  target: User | undefined,
): User | ZulipError {
  if (target === undefined) return zulipError('No such user');
  if (!canAccessUser(state, viewer, target)) return zulipError('Insufficient permission');
  return target;
}

/**
 * The user a GET /users/{email} path names: by API email (case-insensitive; the stored address
 * or the `user{id}@…` form Zulip gives hidden addresses), or by real address when the caller may
 * see it (Zulip accepts the real address since feature level 302).
 */
export function userByEmail(state: RealmState, viewer: User, email: string): User | undefined {
  const folded = email.toLowerCase();
  const stored = state.usersByEmail.get(folded);
  const byStored = stored === undefined ? undefined : state.users.get(stored);
  if (byStored !== undefined && apiEmail(state, byStored).toLowerCase() === folded) return byStored;
  const fake = /^user(\d+)@(.+)$/.exec(folded);
  if (fake !== null && fake[2] === fakeEmailDomain(state)) {
    const u = state.users.get(Number(fake[1]));
    if (u !== undefined && apiEmail(state, u).toLowerCase() === folded) return u;
  }
  const real = userIdByDeliveryEmail(state, folded);
  const byReal = real === undefined ? undefined : state.users.get(real);
  if (byReal !== undefined && canSeeDeliveryEmail(viewer, byReal)) return byReal;
  return undefined;
}
