import { activeAdminIds } from '../indexes/user-indexes';
import { isGuest } from '../permissions/roles';
import type { RealmState } from '../state';

/**
 * Recipient lists Zulip computes over the whole realm, ascending (the users map iterates in id order).
 */

/** Zulip's `active_user_ids(realm)`: every active account, bots included. */
export function activeUserIds(state: RealmState): number[] {
  const out: number[] = [];
  for (const u of state.users.values()) if (u.is_active) out.push(u.user_id);
  return out;
}

/** Zulip's `active_non_guest_user_ids(realm)`: active accounts that are not guests, bots included. */
export function activeNonGuestUserIds(state: RealmState): number[] {
  const out: number[] = [];
  for (const u of state.users.values()) if (u.is_active && !isGuest(u)) out.push(u.user_id);
  return out;
}

/** Zulip's `realm.get_human_admin_users()`: active owners and administrators who are not bots. O(admins). */
export function humanAdminIds(state: RealmState): number[] {
  return activeAdminIds(state).filter((id) => state.users.get(id)?.is_bot === false);
}
