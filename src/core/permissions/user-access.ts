import { conversationParticipants } from '../messages/interner';
import type { User } from '../model/records';
import type { RealmState } from '../state';
import { activeUserIds } from '../users/realm-users';
import { isGuest } from './roles';
import { hasRealmPermission } from './setting-rules';

/**
 * Which users a user may know about: Zulip's `can_access_all_users_group` and `zerver/lib/users.py`
 * (`check_can_access_user`, `get_accessible_user_ids`,
 * `get_user_ids_who_can_access_user`).
 *
 * The setting only ever restricts guests: its allowed values are role:everyone and role:members.
 * A restricted guest can access themselves, every bot, and the users they share a "conversation"
 * with — an active subscription to the same channel (archived channels too: Zulip's query does
 * not look at the channel), or a direct-message conversation, 1:1 or group (one exists once messaged).
 *
 * Deactivated users (Zulip's `Subscription.is_user_active`):
 * - `canAccessUser` never reaches a deactivated target through a conversation;
 * - `accessibleUserIds` (GET /users) reaches deactivated users through direct-message conversations
 *   only, never through a shared channel (`include_deactivated_users=True`).
 * Spectators (viewer null) are never restricted.
 */

/** Whether `viewer` is a guest outside `can_access_all_users_group` (Zulip's `check_user_can_access_all_users`). */
export function isUserAccessRestricted(state: RealmState, viewer: User | null): boolean {
  if (viewer === null || !isGuest(viewer)) return false;
  return !hasRealmPermission(state, viewer, 'can_access_all_users_group');
}

/** Whether every user may see every other user (`can_access_all_users_group` is role:everyone). */
export function allUsersAccessible(state: RealmState): boolean {
  return state.realm.can_access_all_users_group === state.systemGroups['role:everyone'];
}

/** Whether `viewer` may see `target` (Zulip's `check_can_access_user`). */
export function canAccessUser(state: RealmState, viewer: User | null, target: User): boolean {
  if (viewer === null || viewer.user_id === target.user_id || target.is_bot) return true;
  if (!isUserAccessRestricted(state, viewer)) return true;
  return target.is_active && sharesConversation(state, viewer.user_id, target.user_id);
}

/** Ids of every user (active or not) the viewer can access, ascending: what GET /users lists. */
export function accessibleUserIds(state: RealmState, viewer: User | null): number[] {
  if (viewer === null || !isUserAccessRestricted(state, viewer)) return [...state.users.keys()];
  const out = conversationPeers(state, viewer.user_id, true);
  for (const u of state.users.values()) if (u.is_bot) out.add(u.user_id);
  return [...out].filter((id) => state.users.has(id)).sort((a, b) => a - b);
}

/**
 * Active users who can access `target`, ascending: who receives events about it (Zulip's
 * `get_user_ids_who_can_access_user`). In a restricted realm: every user who is not restricted,
 * plus the active users sharing a conversation with the target (whether or not the target is
 * active). Zulip also lists a deactivated target itself; it has no event queue, so we leave it out.
 */
export function userIdsWhoCanAccess(state: RealmState, target: User): number[] {
  if (target.is_bot || allUsersAccessible(state)) return activeUserIds(state);
  const peers = peersOf(state, target.user_id);
  const out: number[] = [];
  for (const u of state.users.values())
    if (u.is_active && (peers.has(u.user_id) || !isUserAccessRestricted(state, u))) out.push(u.user_id);
  return out;
}

/**
 * `userId` and the active users who share an active channel subscription or a direct-message
 * conversation with it (Zulip's `get_subscribers_of_target_user_subscriptions`).
 */
export function peersOf(state: RealmState, userId: number): Set<number> {
  return conversationPeers(state, userId, false);
}

/**
 * `userId` and everyone sharing a conversation with it: channel co-subscribers who are active users,
 * and direct-message partners — deactivated ones only with `inactiveDmPartners`.
 */
function conversationPeers(state: RealmState, userId: number, inactiveDmPartners: boolean): Set<number> {
  const out = new Set<number>([userId]);
  const isActive = (id: number) => state.users.get(id)?.is_active === true;
  for (const perChannel of state.subscriptions.values()) {
    if (perChannel.get(userId)?.active !== true) continue;
    for (const sub of perChannel.values()) if (sub.active && isActive(sub.user_id)) out.add(sub.user_id);
  }
  for (const key of state.messages.conversations.names.values()) {
    const participants = conversationParticipants(key);
    if (!participants.includes(userId)) continue;
    for (const id of participants) if (inactiveDmPartners || isActive(id)) out.add(id);
  }
  return out;
}

/** Whether two users have active subscriptions to one channel, or a direct-message conversation together. */
function sharesConversation(state: RealmState, a: number, b: number): boolean {
  for (const perChannel of state.subscriptions.values()) {
    if (perChannel.get(a)?.active === true && perChannel.get(b)?.active === true) return true;
  }
  for (const key of state.messages.conversations.names.values()) {
    const participants = conversationParticipants(key);
    if (participants.includes(a) && participants.includes(b)) return true;
  }
  return false;
}
