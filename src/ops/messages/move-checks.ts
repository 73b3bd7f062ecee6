import { zulipError, type ZulipError } from '../../core/errors';
import { locateMessage } from '../../core/messages/store';
import type { Channel, User } from '../../core/model/records';
import { isModerator } from '../../core/permissions/roles';
import { CHANNEL_SETTING_RULES, hasPermission } from '../../core/permissions/setting-rules';
import type { RealmState } from '../../core/state';
import type { MessageRecord } from '../../core/messages/store';
import { visibleTopicMessages } from './update-message-apply';

/**
 * The checks `check_update_message` makes on a move beyond the mover's own permissions: posting in
 * the destination (`check_stream_access_based_on_can_send_message_group`), the time limit on every
 * message a `change_all` move takes (`check_time_limit_for_change_all_propagate_mode`) and creating
 * a topic in the destination (`check_for_can_create_topic_group_violation`).
 */

/** Zulip's allowance past the move time limits (`message_move_limit_buffer`). */
const MOVE_LIMIT_BUFFER = 20;

/** `check_stream_access_based_on_can_send_message_group` for the destination of a channel move. */
export function sendToDestinationRefusal(state: RealmState, me: User, dest: Channel): string | undefined {
  const value = dest.can_send_message_group;
  if (value === state.systemGroups['role:everyone']) return undefined;
  if (
    value !== state.systemGroups['role:nobody'] &&
    hasPermission(state, me, CHANNEL_SETTING_RULES.can_send_message_group, value)
  )
    return undefined;
  return 'You do not have permission to post in this channel.';
}

/**
 * `check_for_can_create_topic_group_violation`: a move into a topic the destination does not have
 * yet needs its `can_create_topic_group` (a bot's owner's when the bot has none). Resolving and
 * unresolving are not checked (the caller skips them, as Zulip does).
 */
export function createTopicRefusal(
  state: RealmState,
  me: User,
  dest: Channel,
  topic: string,
): string | undefined {
  const value = dest.can_create_topic_group;
  if (value === state.systemGroups['role:everyone']) return undefined;
  const key = state.messages.foldedTopics.ids.get(topic.toLowerCase());
  if (key !== undefined && (state.messages.byTopic.get(dest.stream_id)?.get(key)?.count ?? 0) > 0)
    return undefined;
  const may = (u: User) =>
    value !== state.systemGroups['role:nobody'] &&
    hasPermission(state, u, CHANNEL_SETTING_RULES.can_create_topic_group, value);
  if (may(me)) return undefined;
  const owner = me.is_bot && me.bot_owner_id !== null ? state.users.get(me.bot_owner_id) : undefined;
  if (owner !== undefined && may(owner)) return undefined;
  return 'You do not have permission to create new topics in this channel.';
}

/**
 * `check_time_limit_for_change_all_propagate_mode`: below moderators, a `change_all` move must be
 * able to take every message of the topic the mover can see; the stricter of the topic and channel
 * move limits (each + 20 s) applies to each. Otherwise MOVE_MESSAGES_TIME_LIMIT_EXCEEDED says how
 * many of them (the most recent) could move, and the oldest of those. Costs O(topic).
 */
export function changeAllTimeLimitRefusal(
  state: RealmState,
  me: User,
  record: MessageRecord,
  channel: Channel,
  topicChanged: boolean,
  channelChanged: boolean,
  now: number,
): ZulipError | undefined {
  if (isModerator(me)) return undefined;
  const limits: number[] = [];
  const topicLimit = state.realm.move_messages_within_stream_limit_seconds;
  const channelLimit = state.realm.move_messages_between_streams_limit_seconds;
  if (topicChanged && topicLimit !== null) limits.push(topicLimit + MOVE_LIMIT_BUFFER);
  if (channelChanged && channelLimit !== null) limits.push(channelLimit + MOVE_LIMIT_BUFFER);
  if (limits.length === 0) return undefined;
  const deadline = Math.min(...limits);
  const ids = visibleTopicMessages(state, me, channel, record.topic);
  // Ordered by date sent (ids and send times ascend together here).
  const allowed: number[] = [];
  for (const id of ids) {
    const at = locateMessage(state.messages, id);
    if (at !== undefined && at.chunk.timestamp[at.index]! > now - deadline) allowed.push(id);
  }
  if (allowed.length === ids.length) return undefined;
  const first = allowed[0] ?? record.id;
  return zulipError(
    `You only have permission to move the ${allowed.length}/${ids.length} most recent messages in this topic.`,
    'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED',
    400,
    {
      first_message_id_allowed_to_move: first,
      total_messages_in_topic: ids.length,
      total_messages_allowed_to_move: allowed.length,
    },
  );
}
