import { conversationParticipants } from '../messages/interner';
import type { User } from '../model/records';
import type { RealmState } from '../state';
import { isUserInSettingValue } from './groups';
import { isGuest } from './roles';

/**
 * Which users a user may know about (Zulip's `can_access_all_users_group`, FL 437).
 *
 * The setting only ever restricts guests (its allowed values are role:everyone and role:members).
 * A restricted guest can access: themselves, every bot, users with whom they share an active
 * channel subscription (the other user's account must be active), and every participant of a
 * direct-message conversation (1:1 or group) they take part in — the only way a restricted guest
 * can access a deactivated user. Spectators (viewer null) are never restricted.
 */
export function isUserAccessRestricted(state: RealmState, viewer: User | null): boolean {
  if (viewer === null || !isGuest(viewer)) return false;
  return !isUserInSettingValue(state, viewer, state.realm.can_access_all_users_group);
}

export function canAccessUser(state: RealmState, viewer: User | null, target: User): boolean {
  if (!isUserAccessRestricted(state, viewer) || viewer === null) return true;
  if (target.user_id === viewer.user_id || target.is_bot) return true;
  if (target.is_active && sharesChannel(state, viewer.user_id, target.user_id)) return true;
  return dmPartners(state, viewer.user_id).has(target.user_id);
}

/** Ids of every user (active or not) the viewer can access, ascending. */
export function accessibleUserIds(state: RealmState, viewer: User | null): number[] {
  if (!isUserAccessRestricted(state, viewer) || viewer === null) return [...state.users.keys()];
  const out = new Set<number>([viewer.user_id]);
  for (const id of dmPartners(state, viewer.user_id)) out.add(id);
  for (const perChannel of state.subscriptions.values()) {
    if (perChannel.get(viewer.user_id)?.active !== true) continue;
    for (const sub of perChannel.values())
      if (sub.active && state.users.get(sub.user_id)?.is_active) out.add(sub.user_id);
  }
  for (const u of state.users.values()) if (u.is_bot) out.add(u.user_id);
  return [...out].filter((id) => state.users.has(id)).sort((a, b) => a - b);
}

/**
 * Active users (bots included) who can access `target`, ascending: who receives events about it
 * (Zulip's `get_user_ids_who_can_access_user`).
 */
export function userIdsWhoCanAccess(state: RealmState, target: User): number[] {
  const out: number[] = [];
  for (const u of state.users.values())
    if (u.is_active && canAccessUser(state, u, target)) out.push(u.user_id);
  return out;
}

function sharesChannel(state: RealmState, a: number, b: number): boolean {
  for (const perChannel of state.subscriptions.values()) {
    if (perChannel.get(a)?.active === true && perChannel.get(b)?.active === true) return true;
  }
  return false;
}

/** Everyone the user shares a direct-message conversation with (conversations exist once messaged). */
function dmPartners(state: RealmState, userId: number): Set<number> {
  const out = new Set<number>();
  for (const key of state.messages.conversations.names.values()) {
    const participants = conversationParticipants(key);
    if (participants.includes(userId)) for (const p of participants) if (p !== userId) out.add(p);
  }
  return out;
}
