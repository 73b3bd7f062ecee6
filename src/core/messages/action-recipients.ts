import type { Channel } from '../model/records';
import { isPublic, subscriberIds } from '../permissions/channels';
import { isGuest } from '../permissions/roles';
import type { RealmState } from '../state';
import { usersWithRows } from './query';
import type { MessageStore } from './store-types';

/**
 * Who hears about an action on messages (Zulip's `event_recipient_ids_for_action_on_messages`,
 * zerver/lib/message.py): for direct messages the users holding a row; for channel messages the
 * subscribers — in a protected-history channel only those of them who received the messages, in
 * a public channel also non-guests holding a row (earlier subscribers, starred history). Active
 * users only: deactivated users have no event queues.
 */
export function messageActionRecipients(
  state: RealmState,
  store: MessageStore,
  channel: Channel | null,
  ids: readonly number[],
): Set<number> {
  const active = (id: number) => state.users.get(id)?.is_active === true;
  if (channel === null) return new Set(usersWithRows(store, ids).filter(active));
  const subscribers = new Set(subscriberIds(state, channel.stream_id));
  if (!channel.history_public_to_subscribers) {
    return new Set(usersWithRows(store, ids).filter((id) => subscribers.has(id)));
  }
  if (!isPublic(channel)) return subscribers;
  for (const id of usersWithRows(store, ids)) {
    const u = state.users.get(id);
    if (u !== undefined && u.is_active && !isGuest(u)) subscribers.add(id);
  }
  return subscribers;
}
