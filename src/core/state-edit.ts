import type { Draft } from 'immer';
import { IntMap } from './collections/int-map';
import type { Channel, Subscription, User, UserGroup } from './model/records';
import type { RealmState } from './state';

/**
 * Draft mutators that keep a record and its indexes in step. Use them inside `edit(state, draft => …)`:
 * persistent maps are replaced, never mutated.
 */
type D = Draft<RealmState>;

export function putUser(draft: D, user: User): void {
  const before = draft.users.get(user.user_id);
  draft.users = draft.users.set(user.user_id, user);
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
  const perChannel = draft.subscriptions.get(sub.stream_id) ?? IntMap.empty<Subscription>();
  draft.subscriptions = draft.subscriptions.set(sub.stream_id, perChannel.set(sub.user_id, sub));
}
