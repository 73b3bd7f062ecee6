/**
 * A channel as Zulip's API shows it (`stream_to_dict`): the objects of `stream/create` events and
 * GET /streams. Also the legacy `stream_post_policy` derived from `can_send_message_group`, and the
 * topic Notification Bot posts channel-event notices to.
 */
import { renderMarkdown } from '../markdown';
import { memoText } from '../text/memo';
import { firstMessageIdInChannel } from '../messages/query';
import { locateMessage } from '../messages/store';
import type { GroupSettingValue } from '../model/group-setting';
import type { Channel } from '../model/records';
import { settingApiValue } from '../permissions/groups';
import { subscriberCount } from '../indexes/subscription-indexes';
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
 * Whether a channel counts as recently active: a message sent in the last 180 days. (Zulip stores a
 * flag refreshed by a daily job; we derive it from the messages at `now`.) Reads the channel's own
 * ids, newest first — ids follow send order, so the newest usually decides at once; timestamps are
 * not assumed monotonic, so a stale channel is read to its end. O(channel), not O(organization).
 */
export function isRecentlyActive(state: RealmState, streamId: number, now: number): boolean {
  const since = now - RECENTLY_ACTIVE_DAYS * 86400;
  // Walk the channel's id chunks in place, newest first: copying the list out would cost
  // O(channel history) on every register even when the newest message decides.
  const chunks = state.messages.byChannel.get(streamId)?.chunks ?? [];
  for (let c = chunks.length - 1; c >= 0; c--) {
    const ids = chunks[c]!;
    for (let i = ids.length - 1; i >= 0; i--) {
      const at = locateMessage(state.messages, ids[i]!);
      if (at !== undefined && at.chunk.timestamp[at.index]! >= since) return true;
    }
  }
  return false;
}

/**
 * `rendered_description` by description text: channel descriptions are few and rarely change,
 * while every register and GET /streams would otherwise render each one again.
 */
const renderedDescription = memoText(renderMarkdown, 10_000);

/**
 * The API object of a channel. `stream_weekly_traffic` is null: the engine keeps no traffic
 * statistics (Zulip also sends null for channels too new to have any).
 */
export function streamToDict(state: RealmState, channel: Channel, now: number): Record<string, unknown> {
  const postPolicy = streamPostPolicy(state, channel.can_send_message_group);
  // One literal with every key (in CHANNEL_GROUP_SETTING_NAMES order for the settings): a
  // spread of computed entries would build a slower, differently shaped object per channel.
  return {
    is_archived: channel.is_archived,
    can_add_subscribers_group: settingApiValue(state, channel.can_add_subscribers_group),
    can_administer_channel_group: settingApiValue(state, channel.can_administer_channel_group),
    can_create_topic_group: settingApiValue(state, channel.can_create_topic_group),
    can_delete_any_message_group: settingApiValue(state, channel.can_delete_any_message_group),
    can_delete_own_message_group: settingApiValue(state, channel.can_delete_own_message_group),
    can_move_messages_out_of_channel_group: settingApiValue(
      state,
      channel.can_move_messages_out_of_channel_group,
    ),
    can_move_messages_within_channel_group: settingApiValue(
      state,
      channel.can_move_messages_within_channel_group,
    ),
    can_remove_subscribers_group: settingApiValue(state, channel.can_remove_subscribers_group),
    can_resolve_topics_group: settingApiValue(state, channel.can_resolve_topics_group),
    can_send_message_group: settingApiValue(state, channel.can_send_message_group),
    can_subscribe_group: settingApiValue(state, channel.can_subscribe_group),
    creator_id: channel.creator_id,
    date_created: channel.date_created,
    description: channel.description,
    first_message_id: firstMessageIdInChannel(state.messages, channel.stream_id),
    folder_id: channel.folder_id,
    is_recently_active: isRecentlyActive(state, channel.stream_id, now),
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
    subscriber_count: subscriberCount(state, channel.stream_id),
    topics_policy: channel.topics_policy,
  };
}

/** Zulip's `channel_events_topic_name`: "channel events", or the empty topic where only it is allowed. */
export function channelEventsTopic(channel: Channel): string {
  return channel.topics_policy === 'empty_topic_only' ? '' : 'channel events';
}
