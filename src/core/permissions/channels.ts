import type { IntMap } from '../collections/int-map';
import type { Channel, Subscription, User } from '../model/records';
import { unionSorted } from '../indexes/id-sets';
import { activeAdminIds, deactivatedUserIds } from '../indexes/user-indexes';
import type { RealmState } from '../state';
import { settingValueMembers } from './groups';
import { hasPermission, CHANNEL_SETTING_RULES } from './setting-rules';
import { isGuest, isRealmAdmin } from './roles';

export function getChannelByName(state: RealmState, name: string): Channel | undefined {
  const id = state.channelsByName.get(name.toLowerCase());
  return id === undefined ? undefined : state.channels.get(id);
}

export function getSubscription(
  state: RealmState,
  streamId: number,
  userId: number,
): Subscription | undefined {
  return state.subscriptions.get(streamId)?.get(userId);
}

export function isSubscribed(state: RealmState, streamId: number, userId: number): boolean {
  return getSubscription(state, streamId, userId)?.active === true;
}

/**
 * The user ids of a channel's active subscription rows, ascending, kept per per-channel map
 * instance: every subscription change replaces that map, so the list stays valid for as long as
 * the map lives and a send reads it instead of walking the persistent map again.
 */
const activeRowsOf = new WeakMap<IntMap<Subscription>, readonly number[]>();

function activeSubscriptionUserIds(perChannel: IntMap<Subscription>): readonly number[] {
  let ids = activeRowsOf.get(perChannel);
  if (ids === undefined) {
    const out: number[] = [];
    for (const sub of perChannel.values()) if (sub.active) out.push(sub.user_id);
    activeRowsOf.set(perChannel, (ids = out));
  }
  return ids;
}

/** Active subscribers who are active users, ascending (a fresh array: callers may change it). */
export function subscriberIds(state: RealmState, streamId: number): number[] {
  return sharedSubscriberIds(state, streamId).slice();
}

/** The last answer of `sharedSubscriberIds` per active-row list, with the deactivated set it filtered by. */
const activeUsersOf = new WeakMap<readonly number[], { deactivated: object; ids: readonly number[] }>();

const NO_IDS: readonly number[] = Object.freeze([]);

/**
 * `subscriberIds` as one array kept while neither the channel's subscriptions nor the set of
 * deactivated users change: a send reads it (and hands it on) instead of building a list per
 * message. Never to be changed by the caller.
 */
export function sharedSubscriberIds(state: RealmState, streamId: number): readonly number[] {
  const perChannel = state.subscriptions.get(streamId);
  if (perChannel === undefined) return NO_IDS;
  const ids = activeSubscriptionUserIds(perChannel);
  // Checked against the (few) deactivated users rather than a user lookup per subscriber
  // (subscriptions only name existing users: the snapshot loader checks it).
  const deactivated = deactivatedUserIds(state);
  if (deactivated.size === 0) return ids;
  const known = activeUsersOf.get(ids);
  if (known !== undefined && known.deactivated === deactivated) return known.ids;
  const out = ids.filter((id) => !deactivated.has(id));
  activeUsersOf.set(ids, { deactivated, ids: out });
  return out;
}

export const isPublic = (c: Channel): boolean => !c.invite_only;

/**
 * Content access (Zulip's `has_content_access`): web-public, subscribed, a non-guest on a public
 * channel, or a non-guest allowed to add subscribers or to subscribe. Admins have no right by role.
 */
export function hasContentAccess(state: RealmState, user: User, channel: Channel): boolean {
  if (channel.is_web_public) return true;
  if (isSubscribed(state, channel.stream_id, user.user_id)) return true;
  if (isGuest(user)) return false;
  if (!channel.invite_only) return true;
  return (
    hasPermission(
      state,
      user,
      CHANNEL_SETTING_RULES.can_add_subscribers_group,
      channel.can_add_subscribers_group,
    ) || hasPermission(state, user, CHANNEL_SETTING_RULES.can_subscribe_group, channel.can_subscribe_group)
  );
}

/**
 * Metadata access (Zulip's `has_metadata_access`): content access, or for private channels being an
 * organization administrator or in a setting that grants metadata access.
 */
export function hasMetadataAccess(state: RealmState, user: User, channel: Channel): boolean {
  if (hasContentAccess(state, user, channel)) return true;
  if (isGuest(user)) return false;
  if (isRealmAdmin(user)) return true;
  return canAdministerChannel(state, user, channel);
}

/** Organization administrators, and members of the channel's `can_administer_channel_group`. */
export function canAdministerChannel(state: RealmState, user: User, channel: Channel): boolean {
  if (isRealmAdmin(user)) return true;
  return hasPermission(
    state,
    user,
    CHANNEL_SETTING_RULES.can_administer_channel_group,
    channel.can_administer_channel_group,
  );
}

/**
 * Users who can see a channel's metadata, i.e. who receive its `stream` events (Zulip's
 * `bulk_can_access_stream_metadata_user_ids`), active users only:
 * public — every non-guest plus subscribed guests; private — subscribers, organization owners and
 * administrators, and non-guest members of the settings that grant metadata access.
 * Zulip's `get_admin_users_and_bots` selects by role, so a bot counts as an administrator only when
 * its own role is administrator or owner; a bot merely *owned* by an administrator does not (the
 * reference digest's A.6 wording "bots owned by admins" is loose).
 */
export function metadataAccessUserIds(state: RealmState, channel: Channel): number[] {
  if (channel.invite_only) return privateMetadataAccessUserIds(state, channel);
  // Public: the recipients are about everyone anyway, so one pass over the users costs O(answer).
  const out: number[] = [];
  for (const u of state.users.values()) {
    if (!u.is_active) continue;
    if (!isGuest(u) || isSubscribed(state, channel.stream_id, u.user_id)) out.push(u.user_id);
  }
  return out;
}

/**
 * The private-channel case, assembled from its parts so that it costs O(answer), not O(users):
 * subscribers, owners and administrators (the rank index), and the holders of the three settings
 * that grant metadata access, guests left out (none of the three rules admits guests).
 */
function privateMetadataAccessUserIds(state: RealmState, channel: Channel): number[] {
  const holders: number[] = [];
  for (const value of [
    channel.can_administer_channel_group,
    channel.can_add_subscribers_group,
    channel.can_subscribe_group,
  ])
    for (const id of settingValueMembers(state, value)) {
      const u = state.users.get(id);
      if (u !== undefined && !isGuest(u)) holders.push(id);
    }
  return unionSorted([subscriberIds(state, channel.stream_id), activeAdminIds(state), holders]);
}
