/**
 * A channel as Zulip's API shows it (`stream_to_dict`): the objects of `stream/create` events and
 * GET /streams. Also the legacy `stream_post_policy` derived from `can_send_message_group`, and the
 * topic Notification Bot posts channel-event notices to.
 */
import { renderMarkdown } from '../markdown';
import { memoText } from '../text/memo';
import { firstMessageIdInChannel } from '../messages/query';
import { locateMessage } from '../messages/store';
import { isAnonymousGroup, type GroupSettingValue } from '../model/group-setting';
import type { IdList } from '../messages/idlist';
import type { Channel, Subscription } from '../model/records';
import type { IdSet } from '../indexes/id-sets';
import { deactivatedUserIds } from '../indexes/user-indexes';
import { settingApiValue } from '../permissions/groups';
import { subscriberCounter } from '../indexes/subscription-indexes';
import type { RealmState } from '../state';

/** Zulip's legacy `stream_post_policy` values. */
export const StreamPostPolicy = { everyone: 1, admins: 2, restrictNewMembers: 3, moderators: 4 } as const;

/** Days without a message after which Zulip's daily job marks a channel as not recently active. */
const RECENTLY_ACTIVE_DAYS = 180;

/** The legacy policy a `can_send_message_group` value maps to (a non-matching value counts as everyone). */
export function streamPostPolicy(state: RealmState, value: GroupSettingValue): number {
  if (typeof value !== 'number') return StreamPostPolicy.everyone;
  const group = state.groups.get(value);
  if (!group?.is_system_group) return StreamPostPolicy.everyone;
  switch (group.name) {
    case 'role:administrators':
      return StreamPostPolicy.admins;
    case 'role:fullmembers':
      return StreamPostPolicy.restrictNewMembers;
    case 'role:moderators':
      return StreamPostPolicy.moderators;
    default:
      return StreamPostPolicy.everyone;
  }
}

/**
 * Whether a channel counts as recently active at `now`, and the span of `now` over which that
 * answer holds for the same messages: a message at `t` keeps the channel active until
 * `t + 180 days`; a channel with none recent stays inactive as time goes on.
 */
function recentActivity(
  state: RealmState,
  streamId: number,
  now: number,
): { readonly active: boolean; readonly from: number; readonly to: number } {
  const since = now - RECENTLY_ACTIVE_DAYS * 86400;
  // Walk the channel's id chunks in place, newest first: ids follow send order, so the newest
  // usually decides at once; timestamps are not assumed monotonic, so a stale channel is read to
  // its end. O(channel), not O(organization).
  const chunks = state.messages.byChannel.get(streamId)?.chunks ?? [];
  for (let c = chunks.length - 1; c >= 0; c--) {
    const ids = chunks[c]!;
    for (let i = ids.length - 1; i >= 0; i--) {
      const at = locateMessage(state.messages, ids[i]!);
      if (at === undefined) continue;
      const t = at.chunk.timestamp[at.index]!;
      if (t >= since) return { active: true, from: -Infinity, to: t + RECENTLY_ACTIVE_DAYS * 86400 };
    }
  }
  return { active: false, from: now, to: Infinity };
}

/**
 * Whether a channel counts as recently active: a message sent in the last 180 days. (Zulip stores a
 * flag refreshed by a daily job; we derive it from the messages at `now`.)
 */
export function isRecentlyActive(state: RealmState, streamId: number, now: number): boolean {
  return recentActivity(state, streamId, now).active;
}

/**
 * `rendered_description` by description text: channel descriptions are few and rarely change,
 * while every register and GET /streams would otherwise render each one again.
 */
const renderedDescription = memoText(renderMarkdown, 10_000);

/** A channel's API object (`stream_to_dict`'s keys, in our order). */
/* A type alias (not an interface), so it fits Record<string, unknown>. */
type StreamDict = {
  is_archived: boolean;
  can_add_subscribers_group: GroupSettingValue;
  can_administer_channel_group: GroupSettingValue;
  can_create_topic_group: GroupSettingValue;
  can_delete_any_message_group: GroupSettingValue;
  can_delete_own_message_group: GroupSettingValue;
  can_move_messages_out_of_channel_group: GroupSettingValue;
  can_move_messages_within_channel_group: GroupSettingValue;
  can_remove_subscribers_group: GroupSettingValue;
  can_resolve_topics_group: GroupSettingValue;
  can_send_message_group: GroupSettingValue;
  can_subscribe_group: GroupSettingValue;
  creator_id: Channel['creator_id'];
  date_created: Channel['date_created'];
  description: string;
  first_message_id: number | null;
  folder_id: Channel['folder_id'];
  is_recently_active: boolean;
  history_public_to_subscribers: boolean;
  invite_only: boolean;
  is_web_public: boolean;
  message_retention_days: Channel['message_retention_days'];
  name: string;
  rendered_description: string;
  stream_id: number;
  stream_post_policy: number;
  is_announcement_only: boolean;
  stream_weekly_traffic: null;
  subscriber_count: number;
  topics_policy: Channel['topics_policy'];
};

/** A channel's API object with what it was computed from, reused while those stay the same. */
interface Template {
  readonly dict: StreamDict;
  readonly groups: RealmState['groups'];
  /** The users it was built against and their deactivated set (anonymous settings omit those). */
  readonly users: RealmState['users'];
  readonly deactivated: IdSet;
  readonly ids: IdList | undefined;
  readonly subscribers: number;
  /** The span of `now` over which `is_recently_active` holds. */
  readonly from: number;
  readonly to: number;
}

/**
 * The last API object built per channel record. Register and GET /streams list every channel on
 * every call while channels change rarely: rebuilding a thousand dicts (settings, activity, first
 * message) per call cost more than the answer's own serialization. A template is valid while the
 * channel record, the groups, the deactivated users, the channel's id list and its subscriber
 * count are the ones it was built from and `now` is inside its activity span. Templates are frozen;
 * `streamToDict` callers get a shallow copy, so no caller sees another's changes to the dict; the
 * anonymous group settings inside (`{direct_members, direct_subgroups}`) are shared and frozen. Records are immutable, so a
 * `WeakMap` by record never serves a stale channel.
 */
const templates = new WeakMap<Channel, Template>();

/**
 * The API object of a channel (`counts`: `subscriberCounter(state)`, passed in by callers that
 * build many). `stream_weekly_traffic` is null: the engine keeps no traffic
 * statistics (Zulip also sends null for channels too new to have any).
 */
export function streamToDict(
  state: RealmState,
  channel: Channel,
  now: number,
  counts: (streamId: number) => number = subscriberCounter(state),
): Record<string, unknown> {
  return copyStreamDict(streamTemplate(state, channel, now, counts));
}

/**
 * `streamToDict` without the copy: the template itself, frozen and shared by every caller, for
 * answers that only serialize it (register's `streams`: a thousand fresh copies per register were
 * garbage that its serialization's scavenges had to move).
 */
export function sharedStreamDict(
  state: RealmState,
  channel: Channel,
  now: number,
  counts: (streamId: number) => number,
): Readonly<Record<string, unknown>> {
  return streamTemplate(state, channel, now, counts);
}

function streamTemplate(
  state: RealmState,
  channel: Channel,
  now: number,
  counts: (streamId: number) => number,
): StreamDict {
  const ids = state.messages.byChannel.get(channel.stream_id);
  const subscribers = counts(channel.stream_id);
  const cached = templates.get(channel);
  if (
    cached !== undefined &&
    cached.groups === state.groups &&
    cached.ids === ids &&
    cached.subscribers === subscribers &&
    now >= cached.from &&
    now <= cached.to &&
    (cached.users === state.users || cached.deactivated === deactivatedUserIds(state))
  )
    return cached.dict;
  const activity = recentActivity(state, channel.stream_id, now);
  const dict = Object.freeze(buildStreamDict(state, channel, activity.active, subscribers));
  templates.set(channel, {
    dict,
    groups: state.groups,
    users: state.users,
    deactivated: deactivatedUserIds(state),
    ids,
    subscribers,
    from: activity.from,
    to: activity.to,
  });
  return dict;
}

/**
 * A fresh copy of a template, made by a constructor rather than an object literal. A literal's
 * allocation site is tracked by V8: once one large register keeps a thousand of these copies alive
 * across a scavenge, the site is pretenured for good and every later copy, even those of small
 * registers that die at once, is allocated in the old generation (10,000 `["stream"]` registers
 * after one full register took 5x as long). Constructed objects carry no such site. The prototype
 * is `Object.prototype`, so a copy is a plain object like a literal (same keys, same order); a
 * spread copy would share the template's hidden class, and the subscription fields register adds
 * to it then turned each copy into a slow dictionary.
 */
interface StreamDictCopier {
  new (d: StreamDict): StreamDict;
}
const StreamDictCopy = function StreamDictCopy(this: StreamDict, d: StreamDict): void {
  this.is_archived = d.is_archived;
  this.can_add_subscribers_group = d.can_add_subscribers_group;
  this.can_administer_channel_group = d.can_administer_channel_group;
  this.can_create_topic_group = d.can_create_topic_group;
  this.can_delete_any_message_group = d.can_delete_any_message_group;
  this.can_delete_own_message_group = d.can_delete_own_message_group;
  this.can_move_messages_out_of_channel_group = d.can_move_messages_out_of_channel_group;
  this.can_move_messages_within_channel_group = d.can_move_messages_within_channel_group;
  this.can_remove_subscribers_group = d.can_remove_subscribers_group;
  this.can_resolve_topics_group = d.can_resolve_topics_group;
  this.can_send_message_group = d.can_send_message_group;
  this.can_subscribe_group = d.can_subscribe_group;
  this.creator_id = d.creator_id;
  this.date_created = d.date_created;
  this.description = d.description;
  this.first_message_id = d.first_message_id;
  this.folder_id = d.folder_id;
  this.is_recently_active = d.is_recently_active;
  this.history_public_to_subscribers = d.history_public_to_subscribers;
  this.invite_only = d.invite_only;
  this.is_web_public = d.is_web_public;
  this.message_retention_days = d.message_retention_days;
  this.name = d.name;
  this.rendered_description = d.rendered_description;
  this.stream_id = d.stream_id;
  this.stream_post_policy = d.stream_post_policy;
  this.is_announcement_only = d.is_announcement_only;
  this.stream_weekly_traffic = d.stream_weekly_traffic;
  this.subscriber_count = d.subscriber_count;
  this.topics_policy = d.topics_policy;
} as unknown as StreamDictCopier;
StreamDictCopy.prototype = Object.prototype;

function copyStreamDict(d: StreamDict): StreamDict {
  return new StreamDictCopy(d);
}

/**
 * A copy of a template followed by a subscription's properties (Zulip's `Subscription.API_FIELDS`,
 * plus `in_home_view`, in their order), all set by one constructor: V8 sizes a constructor's
 * objects to the properties it sets, so the 39 fields sit in the object itself. Adding the nine to
 * a channel copy afterwards put them in a separate property store, grown three times per dict.
 */
interface SubscribedCopier {
  new (d: StreamDict, sub: Subscription, nullAs: NotificationDefaults | null): StreamDict;
}

/**
 * The user's global channel notification settings, which register gives clients without the
 * `notification_settings_null` capability in place of a subscription's null ones (Zulip's
 * `handle_stream_notifications_compatibility`).
 */
export interface NotificationDefaults {
  readonly desktop_notifications: boolean;
  readonly audible_notifications: boolean;
  readonly push_notifications: boolean;
  readonly email_notifications: boolean;
  readonly wildcard_mentions_notify: boolean;
}
const SubscribedStreamDict = function SubscribedStreamDict(
  this: Record<string, unknown>,
  d: StreamDict,
  sub: Subscription,
  nullAs: NotificationDefaults | null,
): void {
  // The channel's fields written out again (not a call of StreamDictCopy: one constructor sets all).
  this['is_archived'] = d.is_archived;
  this['can_add_subscribers_group'] = d.can_add_subscribers_group;
  this['can_administer_channel_group'] = d.can_administer_channel_group;
  this['can_create_topic_group'] = d.can_create_topic_group;
  this['can_delete_any_message_group'] = d.can_delete_any_message_group;
  this['can_delete_own_message_group'] = d.can_delete_own_message_group;
  this['can_move_messages_out_of_channel_group'] = d.can_move_messages_out_of_channel_group;
  this['can_move_messages_within_channel_group'] = d.can_move_messages_within_channel_group;
  this['can_remove_subscribers_group'] = d.can_remove_subscribers_group;
  this['can_resolve_topics_group'] = d.can_resolve_topics_group;
  this['can_send_message_group'] = d.can_send_message_group;
  this['can_subscribe_group'] = d.can_subscribe_group;
  this['creator_id'] = d.creator_id;
  this['date_created'] = d.date_created;
  this['description'] = d.description;
  this['first_message_id'] = d.first_message_id;
  this['folder_id'] = d.folder_id;
  this['is_recently_active'] = d.is_recently_active;
  this['history_public_to_subscribers'] = d.history_public_to_subscribers;
  this['invite_only'] = d.invite_only;
  this['is_web_public'] = d.is_web_public;
  this['message_retention_days'] = d.message_retention_days;
  this['name'] = d.name;
  this['rendered_description'] = d.rendered_description;
  this['stream_id'] = d.stream_id;
  this['stream_post_policy'] = d.stream_post_policy;
  this['is_announcement_only'] = d.is_announcement_only;
  this['stream_weekly_traffic'] = d.stream_weekly_traffic;
  this['subscriber_count'] = d.subscriber_count;
  this['topics_policy'] = d.topics_policy;
  this['color'] = sub.color;
  this['is_muted'] = sub.is_muted;
  this['in_home_view'] = !sub.is_muted;
  this['pin_to_top'] = sub.pin_to_top;
  // A null setting is written as the global one here, when asked, rather than patched afterwards:
  // a pass over every dict by computed key cost a tenth of a `["subscription"]` register.
  const n = nullAs;
  this['desktop_notifications'] =
    sub.desktop_notifications === null && n !== null ? n.desktop_notifications : sub.desktop_notifications;
  this['audible_notifications'] =
    sub.audible_notifications === null && n !== null ? n.audible_notifications : sub.audible_notifications;
  this['push_notifications'] =
    sub.push_notifications === null && n !== null ? n.push_notifications : sub.push_notifications;
  this['email_notifications'] =
    sub.email_notifications === null && n !== null ? n.email_notifications : sub.email_notifications;
  this['wildcard_mentions_notify'] =
    sub.wildcard_mentions_notify === null && n !== null
      ? n.wildcard_mentions_notify
      : sub.wildcard_mentions_notify;
} as unknown as SubscribedCopier;
SubscribedStreamDict.prototype = Object.prototype;

/**
 * `streamToDict` of the subscription's channel with the subscription's properties after the
 * channel's; with `nullAs`, its null notification settings replaced by those.
 */
export function subscribedStreamDict(
  state: RealmState,
  channel: Channel,
  sub: Subscription,
  now: number,
  counts: (streamId: number) => number,
  nullAs: NotificationDefaults | null = null,
): Record<string, unknown> {
  return new SubscribedStreamDict(streamTemplate(state, channel, now, counts), sub, nullAs);
}

/** A setting's API value, an anonymous group's frozen (templates share it between answers). */
function sharedSettingValue(state: RealmState, value: GroupSettingValue): GroupSettingValue {
  const v = settingApiValue(state, value);
  if (!isAnonymousGroup(v)) return v;
  Object.freeze(v.direct_members);
  Object.freeze(v.direct_subgroups);
  return Object.freeze(v);
}

function buildStreamDict(
  state: RealmState,
  channel: Channel,
  isRecentlyActiveNow: boolean,
  subscribers: number,
): StreamDict {
  const postPolicy = streamPostPolicy(state, channel.can_send_message_group);
  // One literal with every key (in CHANNEL_GROUP_SETTING_NAMES order for the settings): a
  // spread of computed entries would build a slower, differently shaped object per channel.
  return {
    is_archived: channel.is_archived,
    can_add_subscribers_group: sharedSettingValue(state, channel.can_add_subscribers_group),
    can_administer_channel_group: sharedSettingValue(state, channel.can_administer_channel_group),
    can_create_topic_group: sharedSettingValue(state, channel.can_create_topic_group),
    can_delete_any_message_group: sharedSettingValue(state, channel.can_delete_any_message_group),
    can_delete_own_message_group: sharedSettingValue(state, channel.can_delete_own_message_group),
    can_move_messages_out_of_channel_group: sharedSettingValue(
      state,
      channel.can_move_messages_out_of_channel_group,
    ),
    can_move_messages_within_channel_group: sharedSettingValue(
      state,
      channel.can_move_messages_within_channel_group,
    ),
    can_remove_subscribers_group: sharedSettingValue(state, channel.can_remove_subscribers_group),
    can_resolve_topics_group: sharedSettingValue(state, channel.can_resolve_topics_group),
    can_send_message_group: sharedSettingValue(state, channel.can_send_message_group),
    can_subscribe_group: sharedSettingValue(state, channel.can_subscribe_group),
    creator_id: channel.creator_id,
    date_created: channel.date_created,
    description: channel.description,
    first_message_id: firstMessageIdInChannel(state.messages, channel.stream_id),
    folder_id: channel.folder_id,
    is_recently_active: isRecentlyActiveNow,
    history_public_to_subscribers: channel.history_public_to_subscribers,
    invite_only: channel.invite_only,
    is_web_public: channel.is_web_public,
    message_retention_days: channel.message_retention_days,
    name: channel.name,
    rendered_description: renderedDescription(channel.description),
    stream_id: channel.stream_id,
    stream_post_policy: postPolicy,
    is_announcement_only: postPolicy === StreamPostPolicy.admins,
    stream_weekly_traffic: null,
    subscriber_count: subscribers,
    topics_policy: channel.topics_policy,
  };
}

/** Zulip's `channel_events_topic_name`: "channel events", or the empty topic where only it is allowed. */
export function channelEventsTopic(channel: Channel): string {
  return channel.topics_policy === 'empty_topic_only' ? '' : 'channel events';
}
