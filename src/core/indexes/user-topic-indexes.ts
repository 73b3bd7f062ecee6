import { IntMap } from '../collections/int-map';
import { StrMap } from '../collections/str-map';
import type { UserTopic } from '../model/records';
import type { RealmState } from '../state';
import { derived } from './derived';
import { EMPTY_IDS, type IdSet } from './id-sets';

/**
 * `stream id → lower-cased topic → users with a user_topic row for it`, derived from
 * `state.userTopics` (see `derived.ts`) and carried by `putUserTopics`.
 */

/** One user's rows replaced (`[]` when the user has none). */
export interface UserTopicsChange {
  readonly userId: number;
  readonly before: readonly UserTopic[];
  readonly after: readonly UserTopic[];
}

type UserTopics = IntMap<readonly UserTopic[]>;
type Index = IntMap<StrMap<IdSet>>;

/** Topics are compared case-insensitively (Zulip's `topic_name__iexact`). */
export const foldUserTopic = (topic: string): string => topic.toLowerCase();

function update(index: Index, streamId: number, topic: string, userId: number, add: boolean): Index {
  const topics = index.get(streamId) ?? StrMap.empty<IdSet>();
  const users = topics.get(topic) ?? EMPTY_IDS;
  if (users.has(userId) === add) return index;
  const nextUsers = add ? users.set(userId, true) : users.delete(userId);
  const nextTopics = nextUsers.size === 0 ? topics.delete(topic) : topics.set(topic, nextUsers);
  return nextTopics.size === 0 ? index.delete(streamId) : index.set(streamId, nextTopics);
}

/** The distinct (stream, folded topic) pairs of some rows. */
function keysOf(rows: readonly UserTopic[]): Map<string, readonly [number, string]> {
  const out = new Map<string, readonly [number, string]>();
  for (const t of rows) {
    const topic = foldUserTopic(t.topic_name);
    out.set(`${t.stream_id}\u0000${topic}`, [t.stream_id, topic]);
  }
  return out;
}

const byTopic = derived<UserTopics, Index, UserTopicsChange>(
  (userTopics) => {
    let index: Index = IntMap.empty();
    for (const [userId, rows] of userTopics)
      for (const [streamId, topic] of keysOf(rows).values())
        index = update(index, streamId, topic, userId, true);
    return index;
  },
  (index, { userId, before, after }) => {
    const was = keysOf(before);
    const is = keysOf(after);
    let next = index;
    for (const [k, [streamId, topic]] of was)
      if (!is.has(k)) next = update(next, streamId, topic, userId, false);
    for (const [k, [streamId, topic]] of is)
      if (!was.has(k)) next = update(next, streamId, topic, userId, true);
    return next;
  },
);

/** The user-topic indexes, for `putUserTopics` and the tests. */
export const USER_TOPIC_INDEXES = { byTopic } as const;

/** Called by `putUserTopics` after it replaced `from` with `to`. */
export function carryUserTopicIndexes(from: UserTopics, to: UserTopics, change: UserTopicsChange): void {
  byTopic.carry(from, to, change);
}

/** Users with a row for the topic (compared case-insensitively) in the channel, ascending when iterated. */
export function userIdsWithTopicRows(state: RealmState, streamId: number, topic: string): IdSet {
  return byTopic.get(state.userTopics).get(streamId)?.get(foldUserTopic(topic)) ?? EMPTY_IDS;
}
