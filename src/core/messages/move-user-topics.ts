import { mutedTopics } from '../channels/reset-user-topics';
import { to, type AddressedEvent } from '../events';
import { foldUserTopic, userIdsWithTopicRows } from '../indexes/user-topic-indexes';
import { VisibilityPolicy, type Channel, type UserTopic } from '../model/records';
import { edit } from '../result';
import type { RealmState } from '../state';
import { putUserTopics } from '../state-edit';

/**
 * User-topic records (follow, mute, unmute) carried along when a whole topic moves (Zulip's
 * `do_update_message`, when `moved_all_visible_messages`):
 *
 * - users who lose access to the moved messages lose their record for the old topic (`muted_topics`
 *   then `user_topic` with policy 0);
 * - everyone else with a record for the old or the new topic: the old topic's record goes (a
 *   `user_topic` event with policy 0, no `muted_topics`), and the new topic gets the old policy,
 *   or, when the new topic already had messages, the more visible of the two
 *   (`get_visibility_policy_after_merge`: followed > unmuted > inherit > muted); unchanged targets
 *   are left alone, changed ones get `muted_topics` then `user_topic`.
 *
 * Only the users with a record for either topic are visited (the topic index), so the cost is
 * theirs, not the organization's. Users are handled in id order (Zulip's order is a set's).
 */
export function moveUserTopics(
  state: RealmState,
  from: Channel,
  oldTopic: string,
  dest: Channel,
  newTopic: string,
  losingAccess: ReadonlySet<number>,
  targetHadMessages: boolean,
  now: number,
): { state: RealmState; events: AddressedEvent[] } {
  const policyIn = (userId: number, streamId: number, topic: string): number => {
    const folded = foldUserTopic(topic);
    const row = (state.userTopics.get(userId) ?? []).find(
      (t) => t.stream_id === streamId && foldUserTopic(t.topic_name) === folded,
    );
    return row?.visibility_policy ?? VisibilityPolicy.inherit;
  };
  const users = new Set<number>([
    ...userIdsWithTopicRows(state, from.stream_id, oldTopic).keys(),
    ...userIdsWithTopicRows(state, dest.stream_id, newTopic).keys(),
  ]);
  if (users.size === 0) return { state, events: [] };
  const lastUpdated = Math.floor(now);
  const moved = from.stream_id !== dest.stream_id;
  // user → [policy for the old topic, policy for the new topic, the new policy or null when kept]
  const plans: Array<{ userId: number; orig: number; target: number; next: number | null; cut: boolean }> =
    [];
  for (const userId of [...users].sort((a, b) => a - b)) {
    const orig = policyIn(userId, from.stream_id, oldTopic);
    if (moved && losingAccess.has(userId)) {
      if (orig !== VisibilityPolicy.inherit) plans.push({ userId, orig, target: 0, next: null, cut: true });
      continue;
    }
    const target = policyIn(userId, dest.stream_id, newTopic);
    if (orig === VisibilityPolicy.inherit && target === VisibilityPolicy.inherit) continue;
    const next = targetHadMessages ? mergedPolicy(orig, target) : orig;
    plans.push({ userId, orig, target, next: next === target ? null : next, cut: false });
  }
  if (plans.length === 0) return { state, events: [] };
  const withPolicy = (
    rows: readonly UserTopic[],
    streamId: number,
    topic: string,
    policy: number,
    userId: number,
  ) => {
    const folded = foldUserTopic(topic);
    const i = rows.findIndex((t) => t.stream_id === streamId && foldUserTopic(t.topic_name) === folded);
    if (policy === VisibilityPolicy.inherit) return i < 0 ? rows : rows.filter((_, k) => k !== i);
    const row: UserTopic = {
      user_id: userId,
      stream_id: streamId,
      topic_name: i >= 0 ? rows[i]!.topic_name : topic,
      visibility_policy: policy as 1 | 2 | 3,
      last_updated: lastUpdated,
    };
    return i >= 0 ? rows.map((t, k) => (k === i ? row : t)) : [...rows, row];
  };
  const finalRows = new Map<number, readonly UserTopic[]>();
  const next = edit(state, (draft) => {
    for (const p of plans) {
      let rows = state.userTopics.get(p.userId) ?? [];
      if (p.cut || p.orig !== VisibilityPolicy.inherit)
        rows = withPolicy(rows, from.stream_id, oldTopic, VisibilityPolicy.inherit, p.userId);
      if (!p.cut && p.next !== null) rows = withPolicy(rows, dest.stream_id, newTopic, p.next, p.userId);
      finalRows.set(p.userId, rows);
      putUserTopics(draft, p.userId, rows);
    }
  });
  const event = (stream: Channel, topic: string, policy: number) => ({
    type: 'user_topic' as const,
    stream_id: stream.stream_id,
    topic_name: topic,
    last_updated: lastUpdated,
    visibility_policy: policy,
  });
  const events: AddressedEvent[] = [];
  const active = (userId: number) => state.users.get(userId)?.is_active === true;
  // Zulip's order: the users losing access, then per user the old topic cleared and the new one set.
  for (const p of plans) {
    if (!p.cut || !active(p.userId)) continue;
    events.push(
      to([p.userId], { type: 'muted_topics', muted_topics: mutedTopics(next, finalRows.get(p.userId)!) }),
    );
    events.push(to([p.userId], event(from, oldTopic, VisibilityPolicy.inherit)));
  }
  for (const p of plans) {
    if (p.cut || !active(p.userId)) continue;
    if (p.orig !== VisibilityPolicy.inherit)
      events.push(to([p.userId], event(from, oldTopic, VisibilityPolicy.inherit)));
    // Zulip skips `muted_topics` here, expecting the one the new topic's update sends; when the
    // new topic keeps its policy none follows, so a muted record's end is announced (deviation).
    if (p.next === null && p.orig === VisibilityPolicy.muted)
      events.push(
        to([p.userId], { type: 'muted_topics', muted_topics: mutedTopics(next, finalRows.get(p.userId)!) }),
      );
    if (p.next !== null) {
      events.push(
        to([p.userId], { type: 'muted_topics', muted_topics: mutedTopics(next, finalRows.get(p.userId)!) }),
      );
      events.push(to([p.userId], event(dest, newTopic, p.next)));
    }
  }
  return { state: next, events };
}

/** `get_visibility_policy_after_merge`: the more visible policy wins. */
export function mergedPolicy(a: number, b: number): number {
  const both = new Set([a, b]);
  if (both.has(VisibilityPolicy.followed)) return VisibilityPolicy.followed;
  if (both.has(VisibilityPolicy.unmuted)) return VisibilityPolicy.unmuted;
  if (both.has(VisibilityPolicy.inherit)) return VisibilityPolicy.inherit;
  return VisibilityPolicy.muted;
}
