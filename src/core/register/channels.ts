import {
  sharedStreamDict,
  streamToDict,
  subscribedStreamDict,
  type NotificationDefaults,
} from '../channels/stream-dict';
import type { Channel, User } from '../model/records';
import { hasMetadataAccess, subscriberIds } from '../permissions/channels';
import { isGuest, isRealmAdmin } from '../permissions/roles';
import type { RealmState } from '../state';
import { channelsByName } from '../indexes/channel-order';
import { EMPTY_IDS } from '../indexes/id-sets';
import { channelsByUser, subscriberCounter } from '../indexes/subscription-indexes';

type Dict = Record<string, unknown>;

/** Whether `user` may read a channel's subscriber list (Zulip's `can_access_stream_user_ids` reading). */
function canSeeSubscribers(state: RealmState, user: User, channel: Channel, subscribed: boolean): boolean {
  if (subscribed) return true;
  if (isGuest(user)) return false;
  return !channel.invite_only || isRealmAdmin(user) || hasMetadataAccess(state, user, channel);
}

export interface SubscriptionLists {
  readonly subscriptions: Dict[];
  readonly unsubscribed: Dict[];
  readonly never_subscribed: Dict[];
}

/**
 * Zulip's `gather_subscriptions_helper`: the user's active subscriptions, the channels they left
 * (while they can still see them), and the channels they can see but were never subscribed to, each sorted by name (Zulip's order: Python's, by code point)
 * and, on request, with `subscribers`. Archived channels are left out unless `archived` (the
 * `archived_channels` capability). `nullAs`: what a subscription's null notification settings are
 * shown as (null or absent: left null).
 */
export function subscriptionLists(
  state: RealmState,
  user: User,
  opts: {
    readonly includeSubscribers: boolean;
    readonly archived: boolean;
    readonly now: number;
    readonly nullAs?: NotificationDefaults | null;
  },
): SubscriptionLists {
  const out: SubscriptionLists = { subscriptions: [], unsubscribed: [], never_subscribed: [] };
  const counts = subscriberCounter(state);
  // Walking the channels in name order keeps each list sorted as it is filled.
  for (const channel of channelsByName(state.channels)) {
    if (channel.is_archived && !opts.archived) continue;
    const sub = state.subscriptions.get(channel.stream_id)?.get(user.user_id);
    const active = sub?.active === true;
    // Channels one left appear only while one can still see them: losing access sends
    // `stream/delete` (as for a private or web-public channel a guest leaves).
    if (!active && !hasMetadataAccess(state, user, channel)) continue;
    // Never-subscribed objects carry the channel fields only.
    const dict: Dict =
      sub === undefined
        ? streamToDict(state, channel, opts.now, counts)
        : subscribedStreamDict(state, channel, sub, opts.now, counts, opts.nullAs ?? null);
    if (opts.includeSubscribers && canSeeSubscribers(state, user, channel, active))
      dict['subscribers'] = subscriberIds(state, channel.stream_id);
    (active ? out.subscriptions : sub === undefined ? out.never_subscribed : out.unsubscribed).push(dict);
  }
  return out;
}

export interface StreamsQuery {
  readonly include_public?: boolean;
  readonly include_web_public?: boolean;
  readonly include_subscribed?: boolean;
  readonly exclude_archived?: boolean;
  readonly include_all?: boolean;
  readonly include_default?: boolean;
  readonly include_owner_subscribed?: boolean;
  readonly include_can_access_content?: boolean;
}

/**
 * Zulip's `do_get_streams` (GET /streams and register's `streams`): the channels the query asks for
 * that the user may see, by name (Python's code-point order). `include_all` (formerly `include_all_active`) is every channel the
 * user has metadata access to; guests never get public channels they are not subscribed to.
 * `shared`: the channels' cached dicts themselves, frozen and shared between answers (register's,
 * which are only serialized), rather than copies.
 */
export function streamsFor(
  state: RealmState,
  user: User,
  q: StreamsQuery,
  now: number,
  shared = false,
): Array<Readonly<Dict>> {
  const guest = isGuest(user);
  const subscribedIds = channelsByUser(state, user.user_id);
  const counts = subscriberCounter(state);
  const ownerIds =
    (q.include_owner_subscribed ?? false) && user.is_bot && user.bot_owner_id !== null
      ? channelsByUser(state, user.bot_owner_id)
      : EMPTY_IDS;
  const out: Array<Readonly<Dict>> = [];
  // Zulip sorts by name (Python's code-point order), ids breaking ties: walking the channels in
  // that order keeps the answer sorted without sorting it. The cheap criteria are tried first:
  // most channels are public and a member wants them, so the access check rarely runs.
  for (const channel of channelsByName(state.channels)) {
    if (channel.is_archived && (q.exclude_archived ?? true)) continue;
    const id = channel.stream_id;
    const wanted =
      ((q.include_public ?? true) && !guest && !channel.invite_only) ||
      ((q.include_web_public ?? false) && channel.is_web_public) ||
      ((q.include_subscribed ?? true) && subscribedIds.has(id)) ||
      ((q.include_default ?? false) && !guest && state.defaultChannelIds.has(id)) ||
      ownerIds.has(id) ||
      (q.include_all === true && hasMetadataAccess(state, user, channel));
    if (!wanted) continue;
    out.push(
      shared ? sharedStreamDict(state, channel, now, counts) : streamToDict(state, channel, now, counts),
    );
  }
  return out;
}
