import { IntMap } from '../collections/int-map';
import type {
  BotStorageEntry,
  CustomProfileField,
  CustomProfileFieldType,
  Draft,
  Linkifier,
  MutedUser,
  RealmEmoji,
  NavigationView,
  PendingEmailChange,
  PushDevice,
  SavedSnippet,
  ScheduledMessage,
  User,
  UserStatus,
  UserTopic,
} from '../model/records';
import { sortedUnique, uniqueIds, uniqueKeys, type Loader } from './loader';
import type { SnapshotInput } from './schema';

/** Groups a list by user id (`field` names the id in paths), checking each user exists. */
function perUser<T>(
  loader: Loader,
  list: readonly T[],
  section: string,
  field: string,
  userOf: (x: T) => number,
): IntMap<readonly T[]> {
  const byUser = new Map<number, T[]>();
  list.forEach((x, i) => {
    const u = userOf(x);
    loader.needUser([section, i, field], u);
    let rows = byUser.get(u);
    if (!rows) byUser.set(u, (rows = []));
    rows.push(x);
  });
  return IntMap.from(byUser);
}

export interface PersonalRecords {
  readonly userTopics: IntMap<readonly UserTopic[]>;
  readonly navigationViews: IntMap<readonly NavigationView[]>;
  readonly pushDevices: IntMap<readonly PushDevice[]>;
  readonly botStorage: IntMap<readonly BotStorageEntry[]>;
  readonly scheduledMessages: IntMap<ScheduledMessage>;
  readonly customProfileFields: IntMap<CustomProfileField>;
  readonly linkifiers: readonly Linkifier[];
  readonly realmEmoji: IntMap<RealmEmoji>;
  readonly savedSnippets: IntMap<SavedSnippet>;
  readonly drafts: IntMap<Draft>;
  readonly pendingEmailChanges: IntMap<PendingEmailChange>;
  readonly mutedUsers: IntMap<readonly MutedUser[]>;
  readonly alertWords: IntMap<readonly string[]>;
  readonly userStatuses: IntMap<UserStatus>;
}

/** Every smaller record kind of the snapshot, with defaults, uniqueness and reference checks. */
export function loadPersonal(s: SnapshotInput, loader: Loader, users: IntMap<User>): PersonalRecords {
  const { issues } = loader;
  const topics = (s.user_topics ?? []).map((t, i) => {
    loader.needChannel(['user_topics', i, 'stream_id'], t.stream_id);
    return { ...t, last_updated: t.last_updated ?? 0 };
  });
  const views = (s.navigation_views ?? []).map((v) => ({ ...v, name: v.name ?? null }));
  uniqueKeys(views, (v) => `${v.user_id}:${v.fragment}`, 'navigation_views', 'fragment', issues);
  const devices = (s.push_devices ?? []).map((d) => ({
    user_id: d.user_id,
    kind: d.kind,
    token: d.token,
    ios_app_id: d.ios_app_id ?? null,
    registered_with_bouncer: d.registered_with_bouncer ?? false,
  }));
  uniqueKeys(devices, (d) => `${d.user_id}:${d.kind}:${d.token}`, 'push_devices', 'token', issues);
  const storage = s.bot_storage ?? [];
  storage.forEach((b, i) => {
    const bot = users.get(b.bot_id);
    if (bot && !bot.is_bot) issues.add(['bot_storage', i, 'bot_id'], `user ${b.bot_id} is not a bot`);
  });
  uniqueKeys(storage, (b) => `${b.bot_id}:${b.key}`, 'bot_storage', 'key', issues);

  const scheduled = s.scheduled_messages ?? [];
  uniqueIds(scheduled, (m) => m.scheduled_message_id, 'scheduled_messages', 'scheduled_message_id', issues);
  scheduled.forEach((m, i) => {
    const at = ['scheduled_messages', i];
    loader.needUser([...at, 'sender_id'], m.sender_id);
    if (m.type === 'stream') {
      if (typeof m.to !== 'number') issues.add([...at, 'to'], 'a channel message is sent to one channel id');
      else loader.needChannel([...at, 'to'], m.to);
    } else if (typeof m.to === 'number')
      issues.add([...at, 'to'], 'a direct message is sent to a list of user ids');
    else m.to.forEach((u, j) => loader.needUser([...at, 'to', j], u));
  });
  const fields = s.custom_profile_fields ?? [];
  uniqueIds(fields, (f) => f.id, 'custom_profile_fields', 'id', issues);
  const snippets = s.saved_snippets ?? [];
  uniqueIds(snippets, (x) => x.id, 'saved_snippets', 'id', issues);
  snippets.forEach((x, i) => loader.needUser(['saved_snippets', i, 'user_id'], x.user_id));
  const drafts = s.drafts ?? [];
  uniqueIds(drafts, (x) => x.id, 'drafts', 'id', issues);
  drafts.forEach((x, i) => loader.needUser(['drafts', i, 'user_id'], x.user_id));
  const linkifiers = s.linkifiers ?? [];
  uniqueIds(linkifiers, (x) => x.id, 'linkifiers', 'id', issues);
  const emoji = s.realm_emoji ?? [];
  uniqueIds(emoji, (x) => x.id, 'realm_emoji', 'id', issues);
  // Zulip: one active emoji per name (deactivated ones may share it).
  const activeNames = new Set<string>();
  emoji.forEach((x, i) => {
    if (x.author_id !== undefined && x.author_id !== null)
      loader.needUser(['realm_emoji', i, 'author_id'], x.author_id);
    if (x.deactivated === true) return;
    if (activeNames.has(x.name))
      issues.add(['realm_emoji', i, 'name'], `duplicate name ${JSON.stringify(x.name)}`);
    activeNames.add(x.name);
  });
  const pending = s.pending_email_changes ?? [];
  pending.forEach((x, i) => loader.needUser(['pending_email_changes', i, 'user_id'], x.user_id));
  uniqueKeys(pending, (x) => String(x.user_id), 'pending_email_changes', 'user_id', issues);

  return {
    userTopics: perUser(loader, topics, 'user_topics', 'user_id', (t) => t.user_id),
    navigationViews: perUser(loader, views, 'navigation_views', 'user_id', (v) => v.user_id),
    pushDevices: perUser(loader, devices, 'push_devices', 'user_id', (d) => d.user_id),
    botStorage: perUser(loader, storage, 'bot_storage', 'bot_id', (b) => b.bot_id),
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
          type: f.type as CustomProfileFieldType,
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
    realmEmoji: IntMap.from(
      emoji.map((x) => [
        x.id,
        {
          id: x.id,
          name: x.name,
          source_url: x.source_url,
          still_url: x.still_url ?? null,
          deactivated: x.deactivated ?? false,
          author_id: x.author_id ?? null,
        },
      ]),
    ),
    savedSnippets: IntMap.from(snippets.map((x) => [x.id, { ...x, date_created: x.date_created ?? 0 }])),
    drafts: IntMap.from(
      drafts.map((x) => [
        x.id,
        {
          id: x.id,
          user_id: x.user_id,
          type: x.type,
          to: x.to ?? [],
          topic: x.topic ?? '',
          content: x.content,
          timestamp: x.timestamp ?? 0,
        },
      ]),
    ),
    pendingEmailChanges: IntMap.from(
      pending.map((x) => [x.user_id, { ...x, requested_at: x.requested_at ?? 0 }]),
    ),
    ...loadEveryday(s, loader),
  };
}

/** Muted users, alert words and statuses (issue 26); absent from older snapshots: none. */
function loadEveryday(
  s: SnapshotInput,
  loader: Loader,
): Pick<PersonalRecords, 'mutedUsers' | 'alertWords' | 'userStatuses'> {
  const { issues } = loader;
  const muted = s.muted_users ?? [];
  muted.forEach((m, i) => {
    loader.needUser(['muted_users', i, 'muted_user_id'], m.muted_user_id);
    if (m.user_id === m.muted_user_id)
      issues.add(['muted_users', i, 'muted_user_id'], 'a user cannot mute themself');
  });
  uniqueKeys(muted, (m) => `${m.user_id}:${m.muted_user_id}`, 'muted_users', 'muted_user_id', issues);
  const words = s.alert_words ?? [];
  // Zulip keeps alert words unique per user case-insensitively.
  uniqueKeys(words, (w) => `${w.user_id}:${w.word.toLowerCase()}`, 'alert_words', 'word', issues);
  const statuses = s.user_status ?? [];
  statuses.forEach((x, i) => loader.needUser(['user_status', i, 'user_id'], x.user_id));
  uniqueKeys(statuses, (x) => String(x.user_id), 'user_status', 'user_id', issues);
  return {
    mutedUsers: mapRows(
      perUser(loader, muted, 'muted_users', 'user_id', (m) => m.user_id),
      (m) => Object.freeze({ id: m.muted_user_id, timestamp: m.date_muted ?? 0 }),
    ),
    alertWords: mapRows(
      perUser(loader, words, 'alert_words', 'user_id', (w) => w.user_id),
      (w) => w.word,
    ),
    userStatuses: IntMap.from(
      statuses.map((x) => [
        x.user_id,
        Object.freeze({
          status_text: x.status_text ?? '',
          emoji_name: x.emoji_name ?? '',
          emoji_code: x.emoji_code ?? '',
          reaction_type: x.reaction_type ?? 'unicode_emoji',
          away: x.away ?? false,
        }),
      ]),
    ),
  };
}

function mapRows<T, U>(byUser: IntMap<readonly T[]>, f: (x: T) => U): IntMap<readonly U[]> {
  return IntMap.from([...byUser].map(([k, rows]) => [k, rows.map(f)] as const));
}
