import { to, type AddressedEvent } from '../events';
import { foldUserTopic, userIdsWithTopicRows } from '../indexes/user-topic-indexes';
import { topicMessageIds } from '../messages/query';
import { getRowFlags } from '../messages/rows';
import { VisibilityPolicy, type Channel, type UserTopic } from '../model/records';
import { edit } from '../result';
import type { RealmState } from '../state';
import { putUserTopics } from '../state-edit';

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
  const wanted = foldUserTopic(topic);
  const matches = (t: UserTopic) =>
    t.stream_id === channel.stream_id && foldUserTopic(t.topic_name) === wanted;
  // Only the users with a row for this topic (the topic index), in id order.
  const candidates = [...userIdsWithTopicRows(state, channel.stream_id, topic).keys()];
  if (candidates.length === 0) return { state, events: [] };
  // In a protected-history channel, a candidate keeps the row when they hold a row for a message
  // still in the topic (probing only the candidates' rows).
  const left = channel.history_public_to_subscribers
    ? []
    : topicMessageIds(state.messages, channel.stream_id, topic);
  const keeps = (userId: number) => {
    const rows = state.messages.rows.get(userId);
    return rows !== undefined && left.some((id) => getRowFlags(rows, id) !== undefined);
  };
  const changed: Array<[number, readonly UserTopic[]]> = [];
  for (const userId of candidates) {
    const rows = state.userTopics.get(userId) ?? [];
    if (keeps(userId) || !rows.some(matches)) continue;
    changed.push([userId, rows.filter((t) => !matches(t))]);
  }
  if (changed.length === 0) return { state, events: [] };
  const next = edit(state, (draft) => {
    for (const [userId, kept] of changed) putUserTopics(draft, userId, kept);
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
export function mutedTopics(state: RealmState, rows: readonly UserTopic[]): Array<[string, string, number]> {
  const out: Array<[string, string, number]> = [];
  for (const t of rows) {
    const channel = state.channels.get(t.stream_id);
    if (t.visibility_policy !== VisibilityPolicy.muted || channel === undefined || channel.is_archived)
      continue;
    out.push([channel.name, t.topic_name, t.last_updated]);
  }
  return out;
}
