import type { RealmState } from '../state';

/** Zulip's `get_user_mutes`: `[{id, timestamp}]`, for register and the `muted_users` event. */
export function mutedUsersList(state: RealmState, userId: number): Array<{ id: number; timestamp: number }> {
  return (state.mutedUsers.get(userId) ?? []).map((m) => ({ id: m.id, timestamp: m.timestamp }));
}

/** Whether `userId` muted `otherId`. Few rows per user. */
export function hasMuted(state: RealmState, userId: number, otherId: number): boolean {
  return (state.mutedUsers.get(userId) ?? []).some((m) => m.id === otherId);
}
