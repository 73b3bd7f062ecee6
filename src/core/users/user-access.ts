import type { User } from '../model/records';
import { conversationParticipants } from '../messages/interner';
import { hasRealmPermission } from '../permissions/setting-rules';
import type { RealmState } from '../state';

/**
 * Whether `viewer` may see `target` (Zulip's `check_can_access_user`). Everyone outside
 * `can_access_all_users_group` (only guests, as that setting is role:everyone or role:members) sees
 * bots, themselves, users sharing an active channel subscription with them, and users they have a
 * direct-message conversation with.
 */
export function canAccessUser(state: RealmState, viewer: User, target: User): boolean {
  if (hasRealmPermission(state, viewer, 'can_access_all_users_group')) return true;
  if (target.is_bot || target.user_id === viewer.user_id) return true;
  for (const perChannel of state.subscriptions.values()) {
    if (perChannel.get(viewer.user_id)?.active === true && perChannel.get(target.user_id)?.active === true)
      return true;
  }
  for (const key of state.messages.conversations.names.values()) {
    const participants = conversationParticipants(key);
    if (participants.includes(viewer.user_id) && participants.includes(target.user_id)) return true;
  }
  return false;
}

/**
 * Users who share an active channel subscription or a direct-message conversation with `userId`
 * (Zulip's `get_subscribers_of_target_user_subscriptions` plus `get_users_involved_in_dms_with_target_users`),
 * active users only, `userId` included.
 */
export function peersOf(state: RealmState, userId: number): Set<number> {
  const out = new Set<number>([userId]);
  for (const perChannel of state.subscriptions.values()) {
    if (perChannel.get(userId)?.active !== true) continue;
    for (const sub of perChannel.values())
      if (sub.active && state.users.get(sub.user_id)?.is_active) out.add(sub.user_id);
  }
  for (const key of state.messages.conversations.names.values()) {
    const participants = conversationParticipants(key);
    if (!participants.includes(userId)) continue;
    for (const id of participants) if (state.users.get(id)?.is_active) out.add(id);
  }
  return out;
}

/** Whether every user may see every other user (`can_access_all_users_group` is role:everyone). */
export function allUsersAccessible(state: RealmState): boolean {
  return state.realm.can_access_all_users_group === state.systemGroups['role:everyone'];
}
