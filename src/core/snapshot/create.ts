import { IntMap } from '../collections/int-map';
import { StrMap } from '../collections/str-map';
import { defaultPasswordHasher, cryptoRandom, type PasswordHasher, type RandomSource } from '../context';
import { FLAG_BITS, flagsToBits, type FlagName } from '../messages/flags';
import { buildMessageStore, EMPTY_STORE } from '../messages/store';
import {
  DEFAULT_SYSTEM_GROUP_IDS,
  SYSTEM_GROUP_NAMES,
  isSystemGroupName,
  type GroupSettingValue,
  type SystemGroupName,
} from '../model/group-setting';
import {
  REALM_GROUP_SETTING_DEFAULTS,
  REALM_GROUP_SETTING_NAMES,
  SERVER_DEFAULTS,
  type RealmSettings,
  type ServerSettings,
} from '../model/realm';
import {
  CHANNEL_GROUP_SETTING_NAMES,
  USER_GROUP_SETTING_NAMES,
  type BotStorageEntry,
  type Channel,
  type ChannelFolder,
  type NavigationView,
  type PushDevice,
  type Subscription,
  type User,
  type UserGroup,
  type UserTopic,
} from '../model/records';
import { USER_SETTING_DEFAULTS, type UserSettings } from '../model/user-settings';
import { CHANNEL_SETTING_RULES, USER_GROUP_SETTING_RULES, type SettingRule } from '../permissions/setting-rules';
import type { RealmState } from '../state';
import { DEFAULT_DATE_JOINED, DEFAULT_SUBSCRIPTION_COLOR, systemGroupRecord } from './defaults';
import { IssueList, SnapshotError } from './issues';
import { checkMessages, type MessageSnapshotInput } from './messages';
import { snapshotSchema, type GroupSettingInput, type SnapshotInput } from './schema';

export interface RealmOptions {
  /** Hashes the plain `password` fields of a fixture. */
  readonly passwords?: PasswordHasher;
  readonly random?: RandomSource;
}

type Path = readonly PropertyKey[];

/**
 * Validates a `chat-realm.snapshot/1` document and builds the realm. Throws a `SnapshotError`
 * listing every problem with its JSON path; never returns a half-built state.
 */
export function createRealm(snapshot: unknown, options: RealmOptions = {}): RealmState {
  const issues = new IssueList();
  const parsed = snapshotSchema.safeParse(snapshot);
  const rawMessages = (snapshot as { messages?: unknown } | null)?.messages;
  const messages = Array.isArray(rawMessages) ? checkMessages(rawMessages, issues) : [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) issues.add(issue.path, issue.message);
    throw new SnapshotError(issues.items);
  }
  const state = build(parsed.data, messages, issues, options);
  if (issues.items.length > 0) throw new SnapshotError(issues.items);
  return state;
}

function build(
  s: SnapshotInput,
  messages: Array<{ message: MessageSnapshotInput; index: number }>,
  issues: IssueList, options: RealmOptions): RealmState {
  const now = s.now ?? null;
  const serverFields: Record<string, unknown> = { ...SERVER_DEFAULTS };
  for (const [k, v] of Object.entries(s.server ?? {})) if (v !== undefined) serverFields[k] = v;
  const server = serverFields as unknown as ServerSettings;
  const realmIn = s.realm ?? {};
  const users = s.users ?? [];
  const groupsIn = s.user_groups ?? [];

  // --- ids and names -------------------------------------------------------------------------
  const userIds = uniqueIds(users, (u) => u.user_id, 'users', 'user_id', issues);
  uniqueNames(users, (u) => u.email.toLowerCase(), 'users', 'email', issues);
  uniqueNames(users, (u) => u.api_key, 'users', 'api_key', issues);

  // System groups: listed ones keep their ids; the others take the default ids 1..8.
  const systemIds = { ...DEFAULT_SYSTEM_GROUP_IDS } as Record<SystemGroupName, number>;
  groupsIn.forEach((g, i) => {
    if (g.is_system_group) {
      if (isSystemGroupName(g.name)) systemIds[g.name] = g.id;
      else issues.add(['user_groups', i, 'name'], `${JSON.stringify(g.name)} is not a system group name`);
    } else if (isSystemGroupName(g.name) || g.name.startsWith('role:')) {
      issues.add(['user_groups', i, 'name'], 'names starting with "role:" are reserved for system groups');
    }
  });
  const listedSystem = new Set(groupsIn.filter((g) => g.is_system_group).map((g) => g.name));
  const userGroupsIn = groupsIn.filter((g) => !g.is_system_group);
  const groupIds = new Set<number>();
  for (const name of SYSTEM_GROUP_NAMES) groupIds.add(systemIds[name]);
  userGroupsIn.forEach((g, i) => {
    const index = groupsIn.indexOf(g);
    if (groupIds.has(g.id)) {
      const clash = SYSTEM_GROUP_NAMES.find((n) => systemIds[n] === g.id && !listedSystem.has(n));
      issues.add(
        ['user_groups', index, 'id'],
        clash ? `id ${g.id} is taken by ${clash}; list the system groups to give them other ids` : `duplicate group id ${g.id}`,
      );
    }
    groupIds.add(g.id);
    void i;
  });
  uniqueNames(groupsIn, (g) => g.name, 'user_groups', 'name', issues);

  const folders = s.channel_folders ?? [];
  const folderIds = uniqueIds(folders, (f) => f.id, 'channel_folders', 'id', issues);
  uniqueNames(folders, (f) => f.name, 'channel_folders', 'name', issues);
  const channelsIn = s.channels ?? [];
  const channelIds = uniqueIds(channelsIn, (c) => c.stream_id, 'channels', 'stream_id', issues);
  uniqueNames(channelsIn, (c) => c.name.toLowerCase(), 'channels', 'name', issues);

  const needUser = (path: Path, id: number | null | undefined) => {
    if (id !== null && id !== undefined && !userIds.has(id)) issues.add(path, `no user ${id}`);
  };
  const needChannel = (path: Path, id: number) => {
    if (!channelIds.has(id)) issues.add(path, `no channel ${id}`);
  };
  const resolveSetting = (path: Path, input: GroupSettingInput | undefined, fallback: GroupSettingValue): GroupSettingValue => {
    if (input === undefined) return fallback;
    if (typeof input === 'string') {
      if (isSystemGroupName(input)) return systemIds[input];
      issues.add(path, `${JSON.stringify(input)} is not a system group name`);
      return fallback;
    }
    if (typeof input === 'number') {
      if (!groupIds.has(input)) issues.add(path, `no group ${input}`);
      return input;
    }
    input.direct_members.forEach((m, j) => needUser([...path, 'direct_members', j], m));
    input.direct_subgroups.forEach((g, j) => {
      if (!groupIds.has(g)) issues.add([...path, 'direct_subgroups', j], `no group ${g}`);
    });
    return {
      direct_members: [...new Set(input.direct_members)].sort((a, b) => a - b),
      direct_subgroups: [...new Set(input.direct_subgroups)].sort((a, b) => a - b),
    };
  };
  const defaultFor = (rule: SettingRule, creator: number | null | undefined): GroupSettingValue =>
    rule.default === 'creator'
      ? creator
        ? { direct_members: [creator], direct_subgroups: [] }
        : systemIds['role:nobody']
      : systemIds[rule.default];

  // --- realm -----------------------------------------------------------------------------------
  const realmSettings: Record<string, unknown> = {
    id: realmIn.id ?? 1,
    string_id: realmIn.string_id ?? 'zulip',
    name: realmIn.name ?? 'Zulip Dev',
    uri: realmIn.uri ?? 'http://localhost:9991',
    deactivated: realmIn.deactivated ?? false,
    enable_spectator_access: realmIn.enable_spectator_access ?? false,
    topics_policy: realmIn.topics_policy ?? 'allow_empty_topic',
    waiting_period_threshold: realmIn.waiting_period_threshold ?? 0,
    name_changes_disabled: realmIn.name_changes_disabled ?? false,
    email_changes_disabled: realmIn.email_changes_disabled ?? false,
    require_unique_names: realmIn.require_unique_names ?? false,
    message_retention_days: realmIn.message_retention_days ?? -1,
    default_language: realmIn.default_language ?? 'en',
    password_auth_enabled: realmIn.password_auth_enabled ?? true,
  };
  const knownRealmKeys = new Set(Object.keys(realmSettings));
  const realmRecord = realmIn as Record<string, unknown>;
  for (const key of Object.keys(realmRecord)) {
    if (!knownRealmKeys.has(key) && !(REALM_GROUP_SETTING_NAMES as string[]).includes(key)) {
      issues.add(['realm', key], 'unknown field');
    }
  }
  for (const name of REALM_GROUP_SETTING_NAMES) {
    realmSettings[name] = resolveSetting(
      ['realm', name],
      realmRecord[name] as GroupSettingInput | undefined,
      systemIds[REALM_GROUP_SETTING_DEFAULTS[name]],
    );
  }

  // --- users -----------------------------------------------------------------------------------
  const threshold = (realmSettings['waiting_period_threshold'] as number) * 86400;
  const passwords = options.passwords ?? defaultPasswordHasher;
  const random = options.random ?? cryptoRandom;
  const fieldIds = new Set((s.custom_profile_fields ?? []).map((f) => f.id));
  let userMap = IntMap.empty<User>();
  let byEmail = StrMap.empty<number>();
  users.forEach((u, i) => {
    const isBot = u.is_bot ?? false;
    needUser(['users', i, 'bot_owner_id'], u.bot_owner_id);
    if (u.password !== undefined && u.password_hash !== undefined) {
      issues.add(['users', i, 'password'], 'give either password or password_hash');
    }
    for (const key of Object.keys(u.profile_data ?? {})) {
      if (!fieldIds.has(Number(key))) issues.add(['users', i, 'profile_data', key], `no custom profile field ${key}`);
    }
    const dateJoined = u.date_joined ?? DEFAULT_DATE_JOINED;
    const role = u.role ?? 400;
    const joined = Date.parse(dateJoined) / 1000;
    const user: User = {
      user_id: u.user_id,
      email: u.email,
      delivery_email: u.delivery_email ?? u.email,
      full_name: u.full_name,
      role,
      is_active: u.is_active ?? true,
      is_bot: isBot,
      bot_type: u.bot_type === undefined ? (isBot ? 1 : null) : u.bot_type,
      bot_owner_id: u.bot_owner_id ?? null,
      is_imported_stub: u.is_imported_stub ?? false,
      date_joined: dateJoined,
      timezone: u.timezone ?? '',
      avatar_source: u.avatar_source ?? 'G',
      avatar_version: u.avatar_version ?? 1,
      api_key: u.api_key,
      password_hash: u.password_hash ?? (u.password !== undefined ? passwords.hash(u.password, random) : null),
      settings: { ...USER_SETTING_DEFAULTS, ...u.settings } as UserSettings,
      settings_edited_by_user: [...new Set(u.settings_edited_by_user ?? [])].sort(),
      profile_data: u.profile_data ?? {},
      is_full_member: now === null || joined <= now - threshold,
    };
    userMap = userMap.set(user.user_id, user);
    byEmail = byEmail.set(user.email.toLowerCase(), user.user_id);
  });

  // --- groups ----------------------------------------------------------------------------------
  let groups = IntMap.empty<UserGroup>();
  let groupsByName = StrMap.empty<number>();
  for (const name of SYSTEM_GROUP_NAMES) {
    const listed = groupsIn.find((g) => g.is_system_group && g.name === name);
    const base = systemGroupRecord(name, systemIds);
    const group: UserGroup = listed ? { ...base, description: listed.description ?? base.description } : base;
    groups = groups.set(group.id, group);
    groupsByName = groupsByName.set(name, group.id);
  }
  groupsIn.forEach((g, i) => {
    if (g.is_system_group) return;
    const at = ['user_groups', i];
    (g.members ?? []).forEach((m, j) => needUser([...at, 'members', j], m));
    (g.direct_subgroup_ids ?? []).forEach((sg, j) => {
      if (!groupIds.has(sg)) issues.add([...at, 'direct_subgroup_ids', j], `no group ${sg}`);
    });
    needUser([...at, 'creator_id'], g.creator_id);
    const settings = Object.fromEntries(
      USER_GROUP_SETTING_NAMES.map((name) => [
        name,
        resolveSetting([...at, name], g[name], defaultFor(USER_GROUP_SETTING_RULES[name], g.creator_id)),
      ]),
    );
    const group = {
      ...(settings as Record<string, GroupSettingValue>),
      id: g.id,
      name: g.name,
      description: g.description ?? '',
      is_system_group: false,
      deactivated: g.deactivated ?? false,
      creator_id: g.creator_id ?? null,
      date_created: g.date_created ?? 0,
      members: sortedUnique(g.members ?? []),
      direct_subgroup_ids: sortedUnique(g.direct_subgroup_ids ?? []),
    } as unknown as UserGroup;
    groups = groups.set(group.id, group);
    groupsByName = groupsByName.set(group.name, group.id);
  });

  // --- folders and channels --------------------------------------------------------------------
  let channelFolders = IntMap.empty<ChannelFolder>();
  folders.forEach((f, i) => {
    needUser(['channel_folders', i, 'creator_id'], f.creator_id);
    channelFolders = channelFolders.set(f.id, {
      id: f.id,
      name: f.name,
      description: f.description ?? '',
      order: f.order ?? i,
      is_archived: f.is_archived ?? false,
      creator_id: f.creator_id ?? null,
      date_created: f.date_created ?? 0,
    });
  });
  let channels = IntMap.empty<Channel>();
  let channelsByName = StrMap.empty<number>();
  channelsIn.forEach((c, i) => {
    const at = ['channels', i];
    needUser([...at, 'creator_id'], c.creator_id);
    if (c.folder_id !== undefined && c.folder_id !== null && !folderIds.has(c.folder_id)) {
      issues.add([...at, 'folder_id'], `no channel folder ${c.folder_id}`);
    }
    const settings = Object.fromEntries(
      CHANNEL_GROUP_SETTING_NAMES.map((name) => [
        name,
        resolveSetting([...at, name], (c as Record<string, unknown>)[name] as GroupSettingInput | undefined, defaultFor(CHANNEL_SETTING_RULES[name], c.creator_id)),
      ]),
    );
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
      ...settings,
    } as Channel;
    channels = channels.set(channel.stream_id, channel);
    channelsByName = channelsByName.set(channel.name.toLowerCase(), channel.stream_id);
  });

  // --- subscriptions ---------------------------------------------------------------------------
  let subscriptions = IntMap.empty<IntMap<Subscription>>();
  const subscribers = new Map<number, number[]>();
  const seenSubs = new Set<string>();
  (s.subscriptions ?? []).forEach((sub, i) => {
    const at = ['subscriptions', i];
    needUser([...at, 'user_id'], sub.user_id);
    needChannel([...at, 'stream_id'], sub.stream_id);
    const key = `${sub.stream_id}:${sub.user_id}`;
    if (seenSubs.has(key)) issues.add(at, `duplicate subscription of user ${sub.user_id} to channel ${sub.stream_id}`);
    seenSubs.add(key);
    const record: Subscription = {
      user_id: sub.user_id,
      stream_id: sub.stream_id,
      active: sub.active ?? true,
      color: (sub.color ?? DEFAULT_SUBSCRIPTION_COLOR).toLowerCase(),
      is_muted: sub.is_muted ?? false,
      pin_to_top: sub.pin_to_top ?? false,
      desktop_notifications: sub.desktop_notifications ?? null,
      audible_notifications: sub.audible_notifications ?? null,
      push_notifications: sub.push_notifications ?? null,
      email_notifications: sub.email_notifications ?? null,
      wildcard_mentions_notify: sub.wildcard_mentions_notify ?? null,
    };
    const perChannel = subscriptions.get(sub.stream_id) ?? IntMap.empty<Subscription>();
    subscriptions = subscriptions.set(sub.stream_id, perChannel.set(sub.user_id, record));
    if (record.active) subscribers.set(sub.stream_id, [...(subscribers.get(sub.stream_id) ?? []), sub.user_id]);
  });
  let defaultChannelIds = IntMap.empty<true>();
  (s.default_channel_ids ?? []).forEach((id, i) => {
    needChannel(['default_channel_ids', i], id);
    defaultChannelIds = defaultChannelIds.set(id, true);
  });

  // --- messages --------------------------------------------------------------------------------
  const messageStore = buildMessages(messages, userIds, channelIds, userMap, subscribers, issues);

  // --- small per-user records ------------------------------------------------------------------
  const perUser = <T>(list: readonly T[], name: string, userOf: (x: T) => number) => {
    let map = IntMap.empty<readonly T[]>();
    list.forEach((x, i) => {
      const u = userOf(x);
      needUser([name, i, name === 'bot_storage' ? 'bot_id' : 'user_id'], u);
      map = map.set(u, [...(map.get(u) ?? []), x]);
    });
    return map;
  };
  const userTopics = perUser<UserTopic>(
    (s.user_topics ?? []).map((t, i) => {
      needChannel(['user_topics', i, 'stream_id'], t.stream_id);
      return { ...t, last_updated: t.last_updated ?? 0 };
    }),
    'user_topics',
    (t) => t.user_id,
  );
  const navigationViews = perUser<NavigationView>(
    (s.navigation_views ?? []).map((v) => ({ ...v, name: v.name ?? null })),
    'navigation_views',
    (v) => v.user_id,
  );
  checkUniquePairs(s.navigation_views ?? [], (v) => `${v.user_id}:${v.fragment}`, 'navigation_views', 'fragment', issues);
  const pushDevices = perUser<PushDevice>(
    (s.push_devices ?? []).map((d) => ({
      user_id: d.user_id,
      kind: d.kind,
      token: d.token,
      ios_app_id: d.ios_app_id ?? null,
      registered_with_bouncer: d.registered_with_bouncer ?? false,
    })),
    'push_devices',
    (d) => d.user_id,
  );
  checkUniquePairs(s.push_devices ?? [], (d) => `${d.user_id}:${d.kind}:${d.token}`, 'push_devices', 'token', issues);
  const botStorage = perUser<BotStorageEntry>(s.bot_storage ?? [], 'bot_storage', (b) => b.bot_id);
  (s.bot_storage ?? []).forEach((b, i) => {
    if (userMap.get(b.bot_id) && !userMap.get(b.bot_id)!.is_bot) issues.add(['bot_storage', i, 'bot_id'], `user ${b.bot_id} is not a bot`);
  });
  checkUniquePairs(s.bot_storage ?? [], (b) => `${b.bot_id}:${b.key}`, 'bot_storage', 'key', issues);

  const scheduled = s.scheduled_messages ?? [];
  uniqueIds(scheduled, (m) => m.scheduled_message_id, 'scheduled_messages', 'scheduled_message_id', issues);
  scheduled.forEach((m, i) => {
    needUser(['scheduled_messages', i, 'sender_id'], m.sender_id);
    if (m.type === 'stream') {
      if (typeof m.to !== 'number') issues.add(['scheduled_messages', i, 'to'], 'a channel message is sent to one channel id');
      else needChannel(['scheduled_messages', i, 'to'], m.to);
    } else if (typeof m.to === 'number') issues.add(['scheduled_messages', i, 'to'], 'a direct message is sent to a list of user ids');
    else m.to.forEach((u, j) => needUser(['scheduled_messages', i, 'to', j], u));
  });
  const fields = s.custom_profile_fields ?? [];
  uniqueIds(fields, (f) => f.id, 'custom_profile_fields', 'id', issues);
  const snippets = s.saved_snippets ?? [];
  uniqueIds(snippets, (x) => x.id, 'saved_snippets', 'id', issues);
  snippets.forEach((x, i) => needUser(['saved_snippets', i, 'user_id'], x.user_id));
  const drafts = s.drafts ?? [];
  uniqueIds(drafts, (x) => x.id, 'drafts', 'id', issues);
  drafts.forEach((x, i) => needUser(['drafts', i, 'user_id'], x.user_id));
  const linkifiers = s.linkifiers ?? [];
  uniqueIds(linkifiers, (x) => x.id, 'linkifiers', 'id', issues);
  const pending = s.pending_email_changes ?? [];
  pending.forEach((x, i) => needUser(['pending_email_changes', i, 'user_id'], x.user_id));
  checkUniquePairs(pending, (x) => String(x.user_id), 'pending_email_changes', 'user_id', issues);

  return {
    server,
    realm: realmSettings as RealmSettings,
    now,
    users: userMap,
    usersByEmail: byEmail,
    usersByApiKey: StrMap.from([...userMap.values()].map((u) => [u.api_key, u.user_id] as const)),
    groups,
    groupsByName,
    systemGroups: systemIds,
    channelFolders,
    channels,
    channelsByName,
    subscriptions,
    defaultChannelIds,
    messages: messageStore,
    userTopics,
    scheduledMessages: IntMap.from(
      scheduled.map((m) => [
        m.scheduled_message_id,
        {
          scheduled_message_id: m.scheduled_message_id,
          sender_id: m.sender_id,
          type: m.type,
          to: typeof m.to === 'number' ? m.to : sortedUnique(m.to),
          topic: m.topic ?? '',
          content: m.content,
          scheduled_delivery_timestamp: m.scheduled_delivery_timestamp,
          failed: m.failed ?? false,
          delivered: m.delivered ?? false,
          read_by_sender: m.read_by_sender ?? null,
        },
      ]),
    ),
    customProfileFields: IntMap.from(
      fields.map((f, i) => [
        f.id,
        {
          id: f.id,
          name: f.name,
          hint: f.hint ?? '',
          type: f.type as 1,
          field_data: f.field_data ?? '',
          order: f.order ?? i,
          display_in_profile_summary: f.display_in_profile_summary ?? false,
          required: f.required ?? false,
          editable_by_user: f.editable_by_user ?? true,
          use_for_user_matching: f.use_for_user_matching ?? false,
        },
      ]),
    ),
    linkifiers: linkifiers.map((l) => ({
      id: l.id,
      pattern: l.pattern,
      url_template: l.url_template,
      example_input: l.example_input ?? null,
      reverse_template: l.reverse_template ?? null,
      alternative_url_templates: l.alternative_url_templates ?? [],
    })),
    navigationViews,
    savedSnippets: IntMap.from(snippets.map((x) => [x.id, { ...x, date_created: x.date_created ?? 0 }])),
    drafts: IntMap.from(
      drafts.map((x) => [
        x.id,
        { id: x.id, user_id: x.user_id, type: x.type, to: x.to ?? [], topic: x.topic ?? '', content: x.content, timestamp: x.timestamp ?? 0 },
      ]),
    ),
    pushDevices,
    botStorage,
    pendingEmailChanges: IntMap.from(pending.map((x) => [x.user_id, { ...x, requested_at: x.requested_at ?? 0 }])),
  };
}

function buildMessages(
  messages: Array<{ message: MessageSnapshotInput; index: number }>,
  userIds: ReadonlySet<number>,
  channelIds: ReadonlySet<number>,
  users: IntMap<User>,
  subscribers: ReadonlyMap<number, number[]>,
  issues: IssueList,
) {
  const sorted = messages.length > 1 ? [...messages].sort((a, b) => a.message.id - b.message.id) : messages;
  // Who holds a row for each message, as (user, bits) pairs; counted first so each user's rows
  // land in exactly-sized typed arrays (a million messages make hundreds of millions of rows).
  const channelHolders = new Map<number, Int32Array>();
  for (const [streamId, ids] of subscribers) {
    const active = ids.filter((u) => users.get(u)?.is_active !== false);
    channelHolders.set(streamId, Int32Array.from(new Set(active)).sort());
  }
  // Holders without explicit flags: the channel's active subscribers (plus the sender), or the
  // DM's participants. Channel arrays are shared between that channel's messages.
  const holdersOf = (m: MessageSnapshotInput): ArrayLike<number> => {
    if (m.flags !== undefined) return Object.keys(m.flags).map(Number).filter((u) => userIds.has(u));
    if (m.stream_id !== undefined) {
      const subs = channelHolders.get(m.stream_id) ?? EMPTY;
      return subs;
    }
    return [...new Set([m.sender_id, ...(m.to ?? [])])].filter((u) => userIds.has(u));
  };
  const holders: Array<ArrayLike<number>> = new Array(sorted.length);
  // A channel message's sender holds a row even when not subscribed (Zulip marks it read).
  const senderExtra = new Uint8Array(sorted.length);

  const seen = new Set<number>();
  // Dense per-user counters: user ids are small integers in practice (bounded by the snapshot's).
  let maxUser = 0;
  for (const u of userIds) if (u > maxUser) maxUser = u;
  const counts = new Int32Array(maxUser + 1);
  for (const { message: m, index } of sorted) {
    const at = ['messages', index];
    if (seen.has(m.id)) issues.add([...at, 'id'], `duplicate message id ${m.id}`);
    seen.add(m.id);
    if (!userIds.has(m.sender_id)) issues.add([...at, 'sender_id'], `no user ${m.sender_id}`);
    if (m.stream_id !== undefined && !channelIds.has(m.stream_id)) issues.add([...at, 'stream_id'], `no channel ${m.stream_id}`);
    (m.to ?? []).forEach((u, j) => {
      if (!userIds.has(u)) issues.add([...at, 'to', j], `no user ${u}`);
    });
    (m.reactions ?? []).forEach((r, j) => {
      if (!userIds.has(r.user_id)) issues.add([...at, 'reactions', j, 'user_id'], `no user ${r.user_id}`);
    });
    if (m.flags !== undefined) {
      for (const key of Object.keys(m.flags)) if (!userIds.has(Number(key))) issues.add([...at, 'flags', key], `no user ${key}`);
    }
  }
  if (issues.items.length > 0) return EMPTY_STORE;
  for (let k = 0; k < sorted.length; k++) {
    const m = sorted[k]!.message;
    const h = (holders[k] = holdersOf(m));
    for (let i = 0; i < h.length; i++) counts[h[i]!]!++;
    if (m.flags === undefined && m.stream_id !== undefined && userIds.has(m.sender_id) && !binaryHas(h, m.sender_id)) {
      senderExtra[k] = 1;
      counts[m.sender_id]!++;
    }
  }
  const ids: Array<Int32Array | undefined> = [];
  const flags: Array<Uint16Array | undefined> = [];
  const fill = new Int32Array(maxUser + 1);
  for (let u = 0; u <= maxUser; u++) {
    if (counts[u]! > 0) {
      ids[u] = new Int32Array(counts[u]!);
      flags[u] = new Uint16Array(counts[u]!);
    }
  }
  for (let k = 0; k < sorted.length; k++) {
    const m = sorted[k]!.message;
    const h = holders[k]!;
    const dm = m.stream_id === undefined ? FLAG_BITS.is_private : 0;
    const explicit = m.flags;
    if (senderExtra[k] === 1) {
      // Merge the sender into its sorted place is unnecessary: rows are per user, ids ascending.
      const n = fill[m.sender_id]!++;
      ids[m.sender_id]![n] = m.id;
      flags[m.sender_id]![n] = FLAG_BITS.read;
    }
    for (let i = 0; i < h.length; i++) {
      const u = h[i]!;
      const n = fill[u]!++;
      ids[u]![n] = m.id;
      flags[u]![n] =
        explicit !== undefined
          ? flagsToBits(explicit[String(u)] as FlagName[]) | dm
          : (u === m.sender_id ? FLAG_BITS.read : 0) | dm;
    }
  }
  const rows = new Map<number, { ids: Int32Array; flags: Uint16Array }>();
  for (let u = 0; u <= maxUser; u++) if (ids[u]) rows.set(u, { ids: ids[u]!, flags: flags[u]! });
  return buildMessageStore(
    sorted.map((x) => x.message),
    rows,
  );
}

const EMPTY = new Int32Array(0);

function binaryHas(sorted: ArrayLike<number>, x: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = sorted[mid]!;
    if (v === x) return true;
    if (v < x) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

function uniqueIds<T>(list: readonly T[], idOf: (x: T) => number, name: string, field: string, issues: IssueList): Set<number> {
  const seen = new Set<number>();
  list.forEach((x, i) => {
    const id = idOf(x);
    if (seen.has(id)) issues.add([name, i, field], `duplicate ${field} ${id}`);
    seen.add(id);
  });
  return seen;
}

function uniqueNames<T>(list: readonly T[], keyOf: (x: T) => string, name: string, field: string, issues: IssueList): void {
  const seen = new Set<string>();
  list.forEach((x, i) => {
    const key = keyOf(x);
    if (seen.has(key)) issues.add([name, i, field], `duplicate ${field} ${JSON.stringify(key)}`);
    seen.add(key);
  });
}

function checkUniquePairs<T>(list: readonly T[], keyOf: (x: T) => string, name: string, field: string, issues: IssueList): void {
  uniqueNames(list, keyOf, name, field, issues);
}

function sortedUnique(ids: readonly number[]): number[] {
  return [...new Set(ids)].sort((a, b) => a - b);
}
