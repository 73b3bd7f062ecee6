import { to, type AddressedEvent } from '../events';
import { FLAG_BITS } from '../messages/flags';
import { unreadInChannel } from '../messages/query';
import { carryRowHolders } from '../messages/row-holders';
import { updateRowFlags } from '../messages/rows';
import type { MessageStore } from '../messages/store';
import type { Channel, User } from '../model/records';
import { hasMetadataAccess, metadataAccessUserIds, subscriberIds } from '../permissions/channels';
import { isGuest, isRealmAdmin } from '../permissions/roles';
import type { RealmState } from '../state';
import { allUsersAccessible, peersOf } from '../permissions/user-access';
import { activeNonGuestUserIds, activeUserIds } from '../users/realm-users';

/** One deactivated subscription. */
export interface Removal {
  readonly user: User;
  readonly channel: Channel;
}

/**
 * The events of Zulip's `bulk_remove_subscriptions`, given the state after the change: to each
 * removed user `subscription/remove` (and `stream/delete` for channels whose metadata they can no
 * longer see, admins excepted), then `peer_remove` to whoever sees each channel's subscribers.
 */
export function unsubscribeEvents(after: RealmState, removals: readonly Removal[]): AddressedEvent[] {
  const events: AddressedEvent[] = [];
  const byUser = new Map<number, { user: User; channels: Channel[] }>();
  const byChannel = new Map<number, { channel: Channel; users: Set<number> }>();
  for (const { user, channel } of removals) {
    const u = byUser.get(user.user_id) ?? { user, channels: [] };
    u.channels.push(channel);
    byUser.set(user.user_id, u);
    const c = byChannel.get(channel.stream_id) ?? { channel, users: new Set<number>() };
    c.users.add(user.user_id);
    byChannel.set(channel.stream_id, c);
  }
  for (const { user, channels } of byUser.values()) {
    const subscriptions = channels.map((c) => ({ name: c.name, stream_id: c.stream_id }));
    events.push(to([user.user_id], { type: 'subscription', op: 'remove', subscriptions }));
    if (isRealmAdmin(user)) continue;
    const lost = channels.filter((c) => !hasMetadataAccess(after, user, c));
    if (lost.length > 0) {
      events.push(
        to([user.user_id], {
          type: 'stream',
          op: 'delete',
          streams: lost.map((c) => ({ stream_id: c.stream_id })),
          stream_ids: lost.map((c) => c.stream_id),
          for_archiving: false,
        }),
      );
    }
  }
  const altered = [...byChannel.values()].sort((a, b) => a.channel.stream_id - b.channel.stream_id);
  events.push(...peerEvents(after, altered, 'peer_remove'));
  if (!allUsersAccessible(after)) events.push(...userRemoveEvents(after, [...byUser.values()]));
  return events;
}

/** The name Zulip shows for a user one can no longer see. */
const INACCESSIBLE_USER_NAME = 'Unknown user';

/**
 * Zulip's `send_user_remove_events_on_removing_subscriptions`, for realms that limit which users
 * guests see: guests left in those channels who no longer share anything with the removed user lose
 * them (`realm_user/remove`), and a removed guest loses the users they only shared those channels with.
 */
function userRemoveEvents(
  after: RealmState,
  removed: ReadonlyArray<{ user: User; channels: Channel[] }>,
): AddressedEvent[] {
  const events: AddressedEvent[] = [];
  const nonGuests = activeNonGuestUserIds(after);
  const remove = (userId: number, audience: Iterable<number>) =>
    to(audience, {
      type: 'realm_user',
      op: 'remove',
      person: { user_id: userId, full_name: INACCESSIBLE_USER_NAME },
    });
  for (const { user, channels } of removed) {
    const leftBehind = new Set(channels.flatMap((c) => subscriberIds(after, c.stream_id)));
    const peers = peersOf(after, user.user_id);
    const canSee = new Set([...nonGuests, ...peers]);
    const losing = [...leftBehind].filter((id) => !canSee.has(id));
    if (losing.length > 0) events.push(remove(user.user_id, losing));
    if (!isGuest(user)) continue;
    for (const id of [...leftBehind].filter((x) => !peers.has(x)).sort((a, b) => a - b))
      events.push(remove(id, [user.user_id]));
  }
  return events;
}

/**
 * Zulip's `send_peer_subscriber_events` (`peer_add` after subscribing, `peer_remove` after
 * unsubscribing): one event per private channel to those with metadata access; public channels
 * sharing the same altered users are batched — web-public ones to every active user, those without
 * guest subscribers to every active non-guest — and a public channel with guest subscribers gets its
 * own event (non-guests plus its subscribers). The altered users never receive these; events
 * without recipients are not sent. `after` is the state after the change.
 */
export function peerEvents(
  after: RealmState,
  altered: ReadonlyArray<{ channel: Channel; users: Set<number> }>,
  op: 'peer_add' | 'peer_remove',
): AddressedEvent[] {
  const events: AddressedEvent[] = [];
  const send = (streamIds: number[], users: Set<number>, recipients: Iterable<number>) => {
    const audience = [...recipients].filter((id) => !users.has(id));
    if (audience.length === 0) return;
    const userIds = [...users].sort((a, b) => a - b);
    events.push(to(audience, { type: 'subscription', op, stream_ids: streamIds, user_ids: userIds }));
  };
  for (const { channel, users } of altered) {
    if (channel.invite_only) send([channel.stream_id], users, metadataAccessUserIds(after, channel));
  }
  const groups = new Map<string, { users: Set<number>; channels: Channel[] }>();
  for (const { channel, users } of altered) {
    if (channel.invite_only) continue;
    const key = [...users].sort((a, b) => a - b).join(',');
    const g = groups.get(key) ?? { users, channels: [] };
    g.channels.push(channel);
    groups.set(key, g);
  }
  if (groups.size === 0) return events;
  const nonGuests = activeNonGuestUserIds(after);
  const nonGuestSet = new Set(nonGuests);
  for (const { users, channels } of groups.values()) {
    const webPublic: number[] = [];
    const withoutGuests: number[] = [];
    for (const channel of channels) {
      const subscribers = subscriberIds(after, channel.stream_id);
      if (channel.is_web_public) webPublic.push(channel.stream_id);
      else if (subscribers.every((id) => nonGuestSet.has(id))) withoutGuests.push(channel.stream_id);
      else send([channel.stream_id], users, new Set([...nonGuests, ...subscribers]));
    }
    if (webPublic.length > 0) send(webPublic, users, activeUserIds(after));
    if (withoutGuests.length > 0) send(withoutGuests, users, nonGuests);
  }
  return events;
}

/**
 * What Zulip's deferred worker does after an unsubscription: mark the removed user's unread messages
 * in each of those channels as read, with one `update_message_flags` event per channel that had any.
 * The unread rows come from intersecting the channel's id list with the user's rows (the shorter one
 * walked), so the cost follows the user's rows or the channel, whichever is smaller.
 */
export function markChannelsRead(
  store: MessageStore,
  removals: readonly Removal[],
): { store: MessageStore; events: AddressedEvent[] } {
  const events: AddressedEvent[] = [];
  let current = store;
  for (const { user, channel } of removals) {
    const unread = unreadInChannel(current, user.user_id, channel.stream_id);
    if (unread.length === 0) continue;
    const rows = current.rows.get(user.user_id)!;
    const rowsByUser = current.rows.set(user.user_id, updateRowFlags(rows, unread, FLAG_BITS.read, 0));
    carryRowHolders(current, rowsByUser);
    current = current.with({ rows: rowsByUser });
    events.push(
      to([user.user_id], {
        type: 'update_message_flags',
        op: 'add',
        operation: 'add',
        flag: 'read',
        messages: unread,
        all: false,
      }),
    );
  }
  return { store: current, events };
}
