import { to, type AddressedEvent } from '../../core/events';
import type { User } from '../../core/model/records';
import { isGuest } from '../../core/permissions/roles';
import { allUsersAccessible, canAccessUser } from '../../core/permissions/user-access';
import type { RealmState } from '../../core/state';
import { formatUser } from '../../core/users/format';

/**
 * The `realm_user` `add` events a direct message causes when a restricted guest gains access to
 * users through it (Zulip's `get_recipients_for_user_creation_events`, sent by `do_send_messages`
 * through `notify_created_user` before the `message` event). `state` is the realm before the send:
 * "not yet accessible" is the guest's access then (shared channels and earlier conversations).
 *
 * `toIds` are the users the message was addressed to (Zulip's `user_profiles`). The person is
 * formatted as `notify_created_user` does (no client gravatar), except that `profile_data` holds
 * the user's profile data: Zulip sends `{}` and expects "a later event" that never comes for an
 * existing user, which would leave the guest's client wrong (docs/differences/messages.md).
 */
export function accessGainedEvents(
  state: RealmState,
  sender: User,
  toIds: readonly number[],
): AddressedEvent[] {
  const to_ = toIds.map((id) => state.users.get(id)).filter((u): u is User => u !== undefined);
  const guests = to_.filter((u) => isGuest(u));
  if (guests.length === 0 || allUsersAccessible(state)) return [];
  // target user id → the guests who gain access to that user
  const gained = new Map<number, Set<number>>();
  const add = (target: User, guest: User) => {
    let set = gained.get(target.user_id);
    if (set === undefined) gained.set(target.user_id, (set = new Set()));
    set.add(guest.user_id);
  };
  if (to_.length === 1) {
    const only = to_[0]!;
    if (!canAccessUser(state, only, sender)) add(sender, only);
  } else {
    for (const guest of guests) {
      for (const user of to_) {
        if (user.user_id === guest.user_id || user.is_bot) continue;
        if (!canAccessUser(state, guest, user)) add(user, guest);
      }
      if (!sender.is_bot && !canAccessUser(state, guest, sender)) add(sender, guest);
    }
  }
  const events: AddressedEvent[] = [];
  for (const [targetId, viewers] of [...gained].sort((a, b) => a[0] - b[0])) {
    const target = state.users.get(targetId)!;
    // The email a viewer sees depends on the viewer (`can_access_delivery_email`): one event each.
    for (const viewerId of [...viewers].sort((a, b) => a - b)) {
      const viewer = state.users.get(viewerId)!;
      const person: { readonly user_id: number } & Readonly<Record<string, unknown>> = {
        ...formatUser(state, viewer, target, { clientGravatar: false, includeCustomProfileFields: true }),
      };
      events.push(to([viewerId], { type: 'realm_user', op: 'add', person }));
    }
  }
  return events;
}
