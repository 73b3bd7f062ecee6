import { VisibilityPolicy, type UserTopic } from '../model/records';
import type { RealmState } from '../state';

/**
 * Whether a user's unread channel message counts as muted (Zulip's `is_row_muted` in
 * `zerver/lib/message.py`): in a muted channel only an unmuted or followed topic is not muted; in
 * an unmuted channel only a muted topic is. Topics compare case-insensitively. Messages from muted
 * users are never unread in Zulip, so they need no rule here. Shared by `unread_msgs` in
 * POST /register and `message_details` of flag events.
 */
export function isUnreadMuted(state: RealmState, userId: number, streamId: number, topic: string): boolean {
  const sub = state.subscriptions.get(streamId)?.get(userId);
  const channelMuted = sub?.active === true && sub.is_muted;
  return mutedByPolicy(channelMuted, topicPolicy(state, userId, streamId, topic));
}

/**
 * The rule of `isUnreadMuted` once the channel's muting and the topic's visibility policy are known
 * (callers walking many topics look each up once per channel).
 */
export function mutedByPolicy(channelMuted: boolean, policy: number): boolean {
  if (channelMuted) return policy !== VisibilityPolicy.unmuted && policy !== VisibilityPolicy.followed;
  return policy === VisibilityPolicy.muted;
}

function topicPolicy(state: RealmState, userId: number, streamId: number, topic: string): number {
  return policyAmong(state.userTopics.get(userId) ?? [], streamId, topic);
}

/** The visibility policy of (channel, topic) among a user's topic settings (topics compare case-insensitively). */
export function policyAmong(userTopics: readonly UserTopic[], streamId: number, topic: string): number {
  if (userTopics.length === 0) return VisibilityPolicy.inherit;
  const folded = topic.toLowerCase();
  for (const t of userTopics)
    if (t.stream_id === streamId && t.topic_name.toLowerCase() === folded) return t.visibility_policy;
  return VisibilityPolicy.inherit;
}
