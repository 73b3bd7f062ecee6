import { to, type AddressedEvent } from '../events';
import { channelsByUser } from '../indexes/subscription-indexes';
import type { Channel, Subscription, User } from '../model/records';
import { getSubscription, subscriberIds } from '../permissions/channels';
import { CHANNEL_SETTING_RULES, hasPermission } from '../permissions/setting-rules';
import { isGuest, isRealmAdmin } from '../permissions/roles';
import { allUsersAccessible, peersOf } from '../permissions/user-access';
import { formatUser } from '../users/format';
import { activeNonGuestUserIds } from '../users/realm-users';
import { editRecord } from '../result';
import type { RealmState } from '../state';
import { streamToDict } from './stream-dict';
import { peerEvents } from './unsubscribe-events';

/** Zulip's `STREAM_ASSIGNMENT_COLORS` (zerver/lib/stream_color.py), in its order. */
export const STREAM_ASSIGNMENT_COLORS = [
  '#76ce90', '#fae589', '#a6c7e5', '#e79ab5', '#bfd56f', '#f4ae55', '#b0a5fd', '#addfe5',
  '#f5ce6e', '#c2726a', '#94c849', '#bd86e5', '#ee7e4a', '#a6dcbf', '#95a5fd', '#53a063',
  '#9987e1', '#e4523d', '#c2c2c2', '#4f8de4', '#c6a8ad', '#e7cc4d', '#c8bebf', '#a47462',
] as const; // prettier-ignore

/**
 * Zulip's `MAX_BULK_NEW_SUBSCRIPTION_MESSAGES` (zproject/default_settings.py): above this many newly
 * subscribed users, no "subscribed you" direct messages are sent. Register's
 * `max_bulk_new_subscription_messages`.
 */
export const MAX_BULK_NEW_SUBSCRIPTION_MESSAGES = 100;

/** One subscription created or reactivated. */
export interface Addition {
  readonly user: User;
  readonly channel: Channel;
}

/**
 * Zulip's `pick_colors` for one user: requested colors first, then the palette's colors the user
 * does not use yet, in channel-id order; once those run out, the palette color at `id % 24`.
 * "Used" is read from the user's active subscriptions (Zulip also counts rows the user left).
 */
function pickColors(
  state: RealmState,
  userId: number,
  streamIds: readonly number[],
  requested: ReadonlyMap<number, string>,
): Map<number, string> {
  const used = new Set<string>();
  for (const id of channelsByUser(state, userId).keys()) {
    const sub = getSubscription(state, id, userId);
    if (sub) used.add(sub.color);
  }
  const out = new Map<number, string>();
  const others: number[] = [];
  for (const id of [...streamIds].sort((a, b) => a - b)) {
    const color = requested.get(id);
    if (color !== undefined) {
      out.set(id, color);
      used.add(color);
    } else others.push(id);
  }
  const available = STREAM_ASSIGNMENT_COLORS.filter((c) => !used.has(c));
  others.forEach((id, i) => {
    out.set(id, available[i] ?? STREAM_ASSIGNMENT_COLORS[id % STREAM_ASSIGNMENT_COLORS.length]!);
  });
  return out;
}

/**
 * The subscription rows Zulip's `bulk_add_subscriptions` writes: new rows (with a picked color) for
 * each user in turn, channels by ascending id (Zulip's set of small ids), then the reactivated rows
 * (settings kept) — the order of Zulip's `subs_to_add + subs_to_activate`. Rows already active are
 * `already`.
 */
export function plannedSubscriptions(
  state: RealmState,
  users: readonly User[],
  channels: readonly Channel[],
  requestedColors: ReadonlyMap<number, string>,
): { rows: Subscription[]; added: Addition[]; already: Addition[] } {
  const fresh: Array<{ row: Subscription; addition: Addition }> = [];
  const activated: Array<{ row: Subscription; addition: Addition }> = [];
  const already: Addition[] = [];
  const byId = [...channels].sort((a, b) => a.stream_id - b.stream_id);
  for (const user of users) {
    const unseen: Channel[] = [];
    for (const channel of byId) {
      const sub = getSubscription(state, channel.stream_id, user.user_id);
      if (sub === undefined) unseen.push(channel);
      else if (sub.active) already.push({ user, channel });
      else
        activated.push({
          row: editRecord(sub, (d) => void (d.active = true)),
          addition: { user, channel },
        });
    }
    const colors = pickColors(
      state,
      user.user_id,
      unseen.map((c) => c.stream_id),
      requestedColors,
    );
    for (const channel of unseen) {
      const row: Subscription = Object.freeze({
        user_id: user.user_id,
        stream_id: channel.stream_id,
        active: true,
        color: colors.get(channel.stream_id)!,
        is_muted: false,
        pin_to_top: false,
        desktop_notifications: null,
        audible_notifications: null,
        push_notifications: null,
        email_notifications: null,
        wildcard_mentions_notify: null,
      });
      fresh.push({ row, addition: { user, channel } });
    }
  }
  const all = [...fresh, ...activated];
  return { rows: all.map((x) => x.row), added: all.map((x) => x.addition), already };
}

/**
 * The events of `bulk_add_subscriptions`, given the state after the change, in Zulip's order:
 * `stream/create` for channels the new subscriber could not see before (private channels: to
 * subscribers who are neither administrators nor holders of a metadata-granting setting; public
 * non-web-public channels: to guests), one `subscription/add` per user, `realm_user/add` where
 * restricted guests gain access to users, then `peer_add`. `before` is the state before the rows
 * were added (for who could already see whom).
 */
export function subscribeEvents(
  before: RealmState,
  after: RealmState,
  additions: readonly Addition[],
  now: number,
): AddressedEvent[] {
  const events: AddressedEvent[] = [];
  const byChannel = new Map<number, { channel: Channel; users: Set<number> }>();
  const byUser = new Map<number, { user: User; channels: Channel[] }>();
  for (const { user, channel } of additions) {
    const c = byChannel.get(channel.stream_id) ?? { channel, users: new Set<number>() };
    c.users.add(user.user_id);
    byChannel.set(channel.stream_id, c);
    const u = byUser.get(user.user_id) ?? { user, channels: [] };
    u.channels.push(channel);
    byUser.set(user.user_id, u);
  }
  const dicts = new Map<number, Record<string, unknown>>();
  const dictOf = (c: Channel) => {
    let d = dicts.get(c.stream_id);
    if (d === undefined) dicts.set(c.stream_id, (d = streamToDict(after, c, now)));
    return d;
  };
  for (const { channel, users } of byChannel.values()) {
    const notify = [...users].filter((id) => {
      const u = after.users.get(id)!;
      if (channel.invite_only) return !isRealmAdmin(u) && !holdsMetadataSetting(after, u, channel);
      return !channel.is_web_public && isGuest(u);
    });
    if (notify.length > 0)
      events.push(
        to(notify, { type: 'stream', op: 'create', streams: [dictOf(channel)], for_unarchiving: false }),
      );
  }
  const subscribers = new Map<number, number[]>();
  for (const { user, channels } of byUser.values()) {
    const subscriptions = channels.map((c) => {
      const sub = getSubscription(after, c.stream_id, user.user_id)!;
      let ids = subscribers.get(c.stream_id);
      if (ids === undefined) subscribers.set(c.stream_id, (ids = subscriberIds(after, c.stream_id)));
      return {
        ...dictOf(c),
        audible_notifications: sub.audible_notifications,
        color: sub.color,
        desktop_notifications: sub.desktop_notifications,
        email_notifications: sub.email_notifications,
        is_muted: sub.is_muted,
        pin_to_top: sub.pin_to_top,
        push_notifications: sub.push_notifications,
        wildcard_mentions_notify: sub.wildcard_mentions_notify,
        in_home_view: !sub.is_muted,
        subscribers: ids,
      };
    });
    events.push(to([user.user_id], { type: 'subscription', op: 'add', subscriptions }));
  }
  if (!allUsersAccessible(before)) events.push(...userAddEvents(before, after, [...byUser.values()]));
  events.push(...peerEvents(after, [...byChannel.values()], 'peer_add'));
  return events;
}

/** Non-guest member of one of the three settings that grant metadata access to a private channel. */
function holdsMetadataSetting(state: RealmState, user: User, channel: Channel): boolean {
  return (['can_administer_channel_group', 'can_add_subscribers_group', 'can_subscribe_group'] as const).some(
    (name) => hasPermission(state, user, CHANNEL_SETTING_RULES[name], channel[name]),
  );
}

/**
 * Zulip's `send_user_creation_events_on_adding_subscriptions`, for realms that limit which users
 * guests see: the channels' subscribers who could not see a new subscriber before (not a non-guest,
 * no shared channel or direct message) get them in `realm_user/add`; a new guest subscriber gets
 * every subscriber of those channels they could not see. One event per viewer, the person formatted
 * for that viewer (as `accessGainedEvents` does for direct messages).
 */
function userAddEvents(
  before: RealmState,
  after: RealmState,
  added: ReadonlyArray<{ user: User; channels: Channel[] }>,
): AddressedEvent[] {
  const events: AddressedEvent[] = [];
  const nonGuests = new Set(activeNonGuestUserIds(before));
  const add = (target: User, viewerId: number) => {
    const viewer = after.users.get(viewerId)!;
    const person: { readonly user_id: number } & Readonly<Record<string, unknown>> = {
      ...formatUser(after, viewer, target, { clientGravatar: false, includeCustomProfileFields: true }),
    };
    events.push(to([viewerId], { type: 'realm_user', op: 'add', person }));
  };
  for (const { user, channels } of added) {
    const inChannels = new Set(channels.flatMap((c) => subscriberIds(after, c.stream_id)));
    const peers = peersOf(before, user.user_id);
    for (const id of [...inChannels].sort((a, b) => a - b))
      if (!nonGuests.has(id) && !peers.has(id)) add(user, id);
    if (!isGuest(user)) continue;
    for (const id of [...inChannels].sort((a, b) => a - b))
      if (!peers.has(id)) add(after.users.get(id)!, user.user_id);
  }
  return events;
}
