import { IntMap } from '../collections/int-map';
import { StrMap } from '../collections/str-map';
import type { GroupSettingValue } from '../model/group-setting';
import {
  CHANNEL_GROUP_SETTING_NAMES,
  type Channel,
  type ChannelFolder,
  type Subscription,
} from '../model/records';
import { CHANNEL_SETTING_RULES } from '../permissions/setting-rules';
import { DEFAULT_SUBSCRIPTION_COLOR } from './defaults';
import type { Loader } from './loader';
import type { GroupSettingInput, SnapshotInput } from './schema';

export function loadFolders(s: SnapshotInput, loader: Loader): IntMap<ChannelFolder> {
  let folders = IntMap.empty<ChannelFolder>();
  (s.channel_folders ?? []).forEach((f, i) => {
    loader.needUser(['channel_folders', i, 'creator_id'], f.creator_id);
    folders = folders.set(f.id, {
      id: f.id,
      name: f.name,
      description: f.description ?? '',
      order: f.order ?? i,
      is_archived: f.is_archived ?? false,
      creator_id: f.creator_id ?? null,
      date_created: f.date_created ?? 0,
    });
  });
  return folders;
}

export function loadChannels(
  s: SnapshotInput,
  loader: Loader,
): { channels: IntMap<Channel>; channelsByName: StrMap<number> } {
  let channels = IntMap.empty<Channel>();
  let channelsByName = StrMap.empty<number>();
  (s.channels ?? []).forEach((c, i) => {
    const at = ['channels', i];
    loader.needUser([...at, 'creator_id'], c.creator_id);
    if (c.folder_id !== undefined && c.folder_id !== null && !loader.folderIds.has(c.folder_id)) {
      loader.issues.add([...at, 'folder_id'], `no channel folder ${c.folder_id}`);
    }
    const settings: Record<string, GroupSettingValue> = {};
    for (const name of CHANNEL_GROUP_SETTING_NAMES) {
      const input = (c as Record<string, unknown>)[name] as GroupSettingInput | undefined;
      settings[name] = loader.setting(
        [...at, name],
        input,
        loader.defaultSetting(CHANNEL_SETTING_RULES[name], c.creator_id),
      );
    }
    const channel = {
      stream_id: c.stream_id,
      name: c.name,
      description: c.description ?? '',
      invite_only: c.invite_only ?? false,
      is_web_public: c.is_web_public ?? false,
      history_public_to_subscribers: c.history_public_to_subscribers ?? true,
      message_retention_days: c.message_retention_days ?? null,
      is_archived: c.is_archived ?? false,
      folder_id: c.folder_id ?? null,
      topics_policy: c.topics_policy ?? 'inherit',
      creator_id: c.creator_id ?? null,
      date_created: c.date_created ?? 0,
      ...(c.email_token === undefined ? {} : { email_token: c.email_token }),
      ...settings,
    } as Channel;
    channels = channels.set(channel.stream_id, channel);
    channelsByName = channelsByName.set(channel.name.toLowerCase(), channel.stream_id);
  });
  return { channels, channelsByName };
}

/** Subscriptions (by channel, then user) and each channel's active subscribers (for default flags). */
export function loadSubscriptions(
  s: SnapshotInput,
  loader: Loader,
): { subscriptions: IntMap<IntMap<Subscription>>; subscribers: Map<number, number[]> } {
  const byChannel = new Map<number, Map<number, Subscription>>();
  const subscribers = new Map<number, number[]>();
  (s.subscriptions ?? []).forEach((sub, i) => {
    const at = ['subscriptions', i];
    loader.needUser([...at, 'user_id'], sub.user_id);
    loader.needChannel([...at, 'stream_id'], sub.stream_id);
    let perChannel = byChannel.get(sub.stream_id);
    if (!perChannel) byChannel.set(sub.stream_id, (perChannel = new Map()));
    if (perChannel.has(sub.user_id))
      loader.issues.add(at, `duplicate subscription of user ${sub.user_id} to channel ${sub.stream_id}`);
    const record: Subscription = {
      user_id: sub.user_id,
      stream_id: sub.stream_id,
      active: sub.active ?? true,
      color: sub.color ?? DEFAULT_SUBSCRIPTION_COLOR,
      is_muted: sub.is_muted ?? false,
      pin_to_top: sub.pin_to_top ?? false,
      desktop_notifications: sub.desktop_notifications ?? null,
      audible_notifications: sub.audible_notifications ?? null,
      push_notifications: sub.push_notifications ?? null,
      email_notifications: sub.email_notifications ?? null,
      wildcard_mentions_notify: sub.wildcard_mentions_notify ?? null,
    };
    perChannel.set(sub.user_id, record);
    if (record.active) {
      let list = subscribers.get(sub.stream_id);
      if (!list) subscribers.set(sub.stream_id, (list = []));
      list.push(sub.user_id);
    }
  });
  let subscriptions = IntMap.empty<IntMap<Subscription>>();
  for (const [streamId, perChannel] of byChannel) {
    subscriptions = subscriptions.set(streamId, IntMap.from([...perChannel].sort((a, b) => a[0] - b[0])));
  }
  return { subscriptions, subscribers };
}

export function loadDefaultChannels(s: SnapshotInput, loader: Loader): IntMap<true> {
  let ids = IntMap.empty<true>();
  (s.default_channel_ids ?? []).forEach((id, i) => {
    loader.needChannel(['default_channel_ids', i], id);
    ids = ids.set(id, true);
  });
  return ids;
}
