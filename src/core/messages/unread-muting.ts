import { VisibilityPolicy } from '../model/records';
import type { RealmState } from '../state';
import { foldUserTopic } from '../indexes/user-topic-indexes';

/**
 * Whether a user's unread channel message counts as muted in Zulip's unread data
 * (`zerver/lib/message.py`, `is_row_muted` inside `extract_unread_data_from_um_rows`; also
 * `apply_unread_message_event`): an unmuted or followed topic in a muted channel is not muted; any
 * other topic of a muted channel is; a muted topic in an unmuted channel is; everything else is not.
 * A channel is muted when the user's subscription is active and muted (`get_muted_stream_ids`).
 * Topics compare case-insensitively, as Zulip's per-user visibility lookup does.
 *
 * Used for `unmuted_stream_msg` and for wildcard mentions in unread data (`message_details` of flag
 * events, `unread_msgs` of /register). Costs one subscription lookup and a walk over the user's
 * own user-topic rows; callers looking at many messages cache by (channel, topic).
 */
export function isUnreadMuted(state: RealmState, userId: number, streamId: number, topic: string): boolean {
  const sub = state.subscriptions.get(streamId)?.get(userId);
  const channelMuted = sub !== undefined && sub.active && sub.is_muted;
  const policy = topicPolicy(state, userId, streamId, topic);
  if (channelMuted) return policy !== VisibilityPolicy.unmuted && policy !== VisibilityPolicy.followed;
  return policy === VisibilityPolicy.muted;
}

/** The user's visibility policy for a topic (0, inherit, when the user has no row for it). */
function topicPolicy(state: RealmState, userId: number, streamId: number, topic: string): number {
  const rows = state.userTopics.get(userId);
  if (rows === undefined || rows.length === 0) return VisibilityPolicy.inherit;
  const folded = foldUserTopic(topic);
  for (const t of rows)
    if (t.stream_id === streamId && foldUserTopic(t.topic_name) === folded) return t.visibility_policy;
  return VisibilityPolicy.inherit;
}
