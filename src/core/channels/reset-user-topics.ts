import { to, type AddressedEvent } from '../events';
import { topicMessageIds, usersWithRows } from '../messages/query';
import { VisibilityPolicy, type Channel, type UserTopic } from '../model/records';
import { edit } from '../result';
import type { RealmState } from '../state';

/**
 * After a topic is deleted, Zulip resets every user's visibility policy for it (follow, mute, ...)
 * to "inherit", i.e. deletes the UserTopic rows (topic compared case-insensitively) — except, in a
 * protected-history channel, for users who still received some message left in that topic.
 * Each reset user gets the deprecated `muted_topics` event, then a `user_topic` event with policy 0.
 */
export function resetUserTopics(
  state: RealmState,
  channel: Channel,
  topic: string,
  now: number,
): { state: RealmState; events: AddressedEvent[] } {
  const wanted = topic.toLowerCase();
  const matches = (t: UserTopic) =>
    t.stream_id === channel.stream_id && t.topic_name.toLowerCase() === wanted;
  const keepers = channel.history_public_to_subscribers
    ? new Set<number>()
    : new Set(usersWithRows(state.messages, topicMessageIds(state.messages, channel.stream_id, topic)));
  const changed: Array<[number, readonly UserTopic[]]> = [];
  for (const [userId, rows] of state.userTopics) {
    if (keepers.has(userId) || !rows.some(matches)) continue;
    changed.push([userId, rows.filter((t) => !matches(t))]);
  }
  if (changed.length === 0) return { state, events: [] };
  const next = edit(state, (draft) => {
    for (const [userId, kept] of changed) {
      draft.userTopics =
        kept.length > 0 ? draft.userTopics.set(userId, kept) : draft.userTopics.delete(userId);
    }
  });
  const events: AddressedEvent[] = [];
  const lastUpdated = Math.floor(now);
  for (const [userId, kept] of changed) {
    if (state.users.get(userId)?.is_active !== true) continue;
    events.push(to([userId], { type: 'muted_topics', muted_topics: mutedTopics(next, kept) }));
    events.push(
      to([userId], {
        type: 'user_topic',
        stream_id: channel.stream_id,
        topic_name: topic,
        last_updated: lastUpdated,
        visibility_policy: VisibilityPolicy.inherit,
      }),
    );
  }
  return { state: next, events };
}

/** Zulip's `get_topic_mutes`: `[channel name, topic, last_updated]` of muted topics in unarchived channels. */
function mutedTopics(state: RealmState, rows: readonly UserTopic[]): Array<[string, string, number]> {
  const out: Array<[string, string, number]> = [];
  for (const t of rows) {
    const channel = state.channels.get(t.stream_id);
    if (t.visibility_policy !== VisibilityPolicy.muted || channel === undefined || channel.is_archived)
      continue;
    out.push([channel.name, t.topic_name, t.last_updated]);
  }
  return out;
}
