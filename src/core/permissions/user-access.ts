import { dmPartners } from '../indexes/conversation-indexes';
import { sortUniqueIds } from '../indexes/id-sets';
import { channelsByUser, shareChannel } from '../indexes/subscription-indexes';
import { botIds } from '../indexes/user-indexes';
import type { User } from '../model/records';
import type { RealmState } from '../state';
import { activeUserIds } from '../users/realm-users';
import { subscriberIds } from './channels';
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
 *
 * Channels and direct-message partners come from the derived indexes (`channelsByUser`,
 * `dmPartners`), so a guest's checks cost the size of their conversations, not of the realm.
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
  for (const id of botIds(state).keys()) out.add(id);
  return sortUniqueIds([...out].filter((id) => state.users.has(id)));
}

/**
 * The users among `ids` that `accessibleUserIds` would list, ascending, each once (unknown ids
 * dropped): GET /users?user_ids=… without listing the realm. O(k log k) for k ids, plus the
 * viewer's channels per id for a restricted guest.
 */
export function accessibleUserIdsAmong(
  state: RealmState,
  viewer: User | null,
  ids: readonly number[],
): number[] {
  const known = sortUniqueIds(ids.filter((id) => state.users.has(id)));
  if (viewer === null || !isUserAccessRestricted(state, viewer)) return known;
  const viewerId = viewer.user_id;
  const bots = botIds(state);
  const partners = dmPartners(state, viewerId);
  return known.filter(
    (id) =>
      id === viewerId ||
      bots.has(id) ||
      partners.has(id) ||
      (state.users.get(id)?.is_active === true && shareChannel(state, viewerId, id)),
  );
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
  for (const streamId of channelsByUser(state, userId).keys())
    for (const id of subscriberIds(state, streamId)) out.add(id);
  for (const id of dmPartners(state, userId))
    if (inactiveDmPartners || state.users.get(id)?.is_active === true) out.add(id);
  return out;
}

/** Whether two users have active subscriptions to one channel, or a direct-message conversation together. */
function sharesConversation(state: RealmState, a: number, b: number): boolean {
  return shareChannel(state, a, b) || dmPartners(state, a).has(b);
}
