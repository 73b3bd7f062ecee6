import { mutedTopics } from '../../core/channels/reset-user-topics';
import { to, type AddressedEvent } from '../../core/events';
import { foldUserTopic } from '../../core/indexes/user-topic-indexes';
import type { UserTopic } from '../../core/model/records';
import { edit, success, type OpResult } from '../../core/result';
import type { RealmState } from '../../core/state';
import { putUserTopics } from '../../core/state-edit';

/**
 * Zulip's `do_set_user_topic_visibility_policy` for one user, after the caller checked access:
 * the row for the topic (found case-insensitively, keeping its spelling) is set, or removed for
 * 0. The current policy again changes nothing and sends nothing; otherwise the user gets the
 * legacy `muted_topics` event, then `user_topic` with the topic as given.
 */
export function setOwnTopicPolicy(
  state: RealmState,
  userId: number,
  streamId: number,
  topic: string,
  policy: 0 | 1 | 2 | 3,
  now: number,
  ignored: readonly string[],
): OpResult {
  const rows = state.userTopics.get(userId) ?? [];
  const folded = foldUserTopic(topic);
  const i = rows.findIndex((t) => t.stream_id === streamId && foldUserTopic(t.topic_name) === folded);
  const current = i >= 0 ? rows[i]!.visibility_policy : 0;
  if (current === policy) return success(state, { ignored });

  const lastUpdated = Math.floor(now);
  let nextRows: readonly UserTopic[];
  if (policy === 0) nextRows = rows.filter((_, k) => k !== i);
  else {
    const row: UserTopic = Object.freeze({
      user_id: userId,
      stream_id: streamId,
      topic_name: i >= 0 ? rows[i]!.topic_name : topic,
      visibility_policy: policy,
      last_updated: lastUpdated,
    });
    nextRows = i >= 0 ? rows.map((t, k) => (k === i ? row : t)) : [...rows, row];
  }
  const next = edit(state, (draft) => putUserTopics(draft, userId, nextRows));
  const events: AddressedEvent[] = [
    to([userId], { type: 'muted_topics', muted_topics: mutedTopics(next, nextRows) }),
    to([userId], {
      type: 'user_topic',
      stream_id: streamId,
      topic_name: topic,
      last_updated: lastUpdated,
      visibility_policy: policy,
    }),
  ];
  return success(next, { ignored, events });
}
