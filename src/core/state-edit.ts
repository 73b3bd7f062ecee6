import type { Draft } from 'immer';
import { IntMap } from './collections/int-map';
import { carrySubscriptionIndexes } from './indexes/subscription-indexes';
import { carryUserIndexes } from './indexes/user-indexes';
import { carryUserTopicIndexes } from './indexes/user-topic-indexes';
import type { Channel, Subscription, User, UserGroup, UserTopic } from './model/records';
import type { RealmState } from './state';

/**
 * Draft mutators that keep a record and its indexes in step. Use them inside `edit(state, draft => …)`:
 * persistent maps are replaced, never mutated. They also carry the derived indexes of
 * `src/core/indexes` (cached per collection instance) forward to the new collection.
 */
type D = Draft<RealmState>;

export function putUser(draft: D, user: User): void {
  // Persistent maps are class instances immer does not draft: these are the real maps.
  const users = draft.users as IntMap<User>;
  const before = users.get(user.user_id);
  const nextUsers = users.set(user.user_id, user);
  draft.users = nextUsers;
  carryUserIndexes(users, nextUsers, before, user);
  if (before && before.email.toLowerCase() !== user.email.toLowerCase()) {
    draft.usersByEmail = draft.usersByEmail.delete(before.email.toLowerCase());
  }
  draft.usersByEmail = draft.usersByEmail.set(user.email.toLowerCase(), user.user_id);
  if (before && before.api_key !== user.api_key)
    draft.usersByApiKey = draft.usersByApiKey.delete(before.api_key);
  draft.usersByApiKey = draft.usersByApiKey.set(user.api_key, user.user_id);
}

export function putGroup(draft: D, group: UserGroup): void {
  const before = draft.groups.get(group.id);
  draft.groups = draft.groups.set(group.id, group);
  if (before && before.name !== group.name) draft.groupsByName = draft.groupsByName.delete(before.name);
  draft.groupsByName = draft.groupsByName.set(group.name, group.id);
}

export function putChannel(draft: D, channel: Channel): void {
  const before = draft.channels.get(channel.stream_id);
  draft.channels = draft.channels.set(channel.stream_id, channel);
  if (before && before.name.toLowerCase() !== channel.name.toLowerCase()) {
    draft.channelsByName = draft.channelsByName.delete(before.name.toLowerCase());
  }
  draft.channelsByName = draft.channelsByName.set(channel.name.toLowerCase(), channel.stream_id);
}

export function putSubscription(draft: D, sub: Subscription): void {
  const subscriptions = draft.subscriptions as IntMap<IntMap<Subscription>>;
  const perChannel = subscriptions.get(sub.stream_id) ?? IntMap.empty<Subscription>();
  const before = perChannel.get(sub.user_id);
  const next = subscriptions.set(sub.stream_id, perChannel.set(sub.user_id, sub));
  draft.subscriptions = next;
  carrySubscriptionIndexes(subscriptions, next, before, sub);
}

/** Replaces one user's user_topic rows (none: the entry is removed). */
export function putUserTopics(draft: D, userId: number, rows: readonly UserTopic[]): void {
  const userTopics = draft.userTopics as IntMap<readonly UserTopic[]>;
  const before = userTopics.get(userId) ?? [];
  const next = rows.length > 0 ? userTopics.set(userId, rows) : userTopics.delete(userId);
  draft.userTopics = next;
  carryUserTopicIndexes(userTopics, next, { userId, before, after: rows });
}
