import { newestStoredId } from '../messages/store-append';
import { FlagNames, messageBlocks, messageSnapshotFields, withLazyFlags } from './export-messages';
import type { GroupSettingValue } from '../model/group-setting';
import { REALM_GROUP_SETTING_NAMES, type RealmGroupSettingName, type RealmSettings } from '../model/realm';
import { CHANNEL_GROUP_SETTING_NAMES, USER_GROUP_SETTING_NAMES } from '../model/records';
import type { RealmState } from '../state';
import type { RealmSnapshot, SnapshotMessage } from './format';

export type { RealmSnapshot } from './format';

type StoredSetting = RealmSnapshot['channels'][number]['can_send_message_group'];

/** A group-setting value as fresh JSON (the state's are frozen and shared). */
const setting = (v: GroupSettingValue): StoredSetting =>
  typeof v === 'number'
    ? v
    : { direct_members: [...v.direct_members], direct_subgroups: [...v.direct_subgroups] };

/** The named group settings of a record, in the order of `keys`. */
function pick<K extends string>(
  record: { readonly [P in K]: GroupSettingValue },
  keys: readonly K[],
): Record<K, StoredSetting> {
  const out = {} as Record<K, StoredSetting>;
  for (const k of keys) out[k] = setting(record[k]);
  return out;
}

/** The realm's fields but its group settings (which `pick` writes after them). */
function realmFields(realm: RealmSettings): Omit<RealmSettings, RealmGroupSettingName> {
  const out: Partial<Record<keyof RealmSettings, unknown>> = {};
  for (const [k, v] of Object.entries(realm))
    if (!(REALM_GROUP_SETTING_NAMES as readonly string[]).includes(k)) out[k as keyof RealmSettings] = v;
  return out as Omit<RealmSettings, RealmGroupSettingName>;
}

/** A copy of `o` with its keys in sorted order (the canonical form's). */
function sortedKeys<T extends object>(o: T, order: (a: string, b: string) => number): T {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => order(a, b))) as T;
}

const byId =
  <T>(key: keyof T) =>
  (a: T, b: T) =>
    (a[key] as number) - (b[key] as number);

/**
 * Writes the canonical form of a realm (docs/realm-snapshot.md, rule 1): every field present,
 * arrays sorted by id (linkifiers and channel folders keep their order), flag keys and lists
 * sorted, system groups listed with their ids. `createRealm(snapshotRealm(s))` gives back the same realm.
 *
 * @example
 * ```ts
 * const changed = editChannel(realm, { userId: 2 }, { stream_id: 1, description: 'New' }, { now }).state;
 * const snapshot = snapshotRealm(changed); // plain JSON: store it, diff it, ship it
 * const reloaded = createRealm(JSON.parse(JSON.stringify(snapshot)));
 * expect(snapshotRealm(reloaded)).toEqual(snapshot);
 * ```
 */
export function snapshotRealm(state: RealmState): RealmSnapshot {
  const out = snapshotSections(state);
  // Filled in place, so `messages` keeps its place among the sections.
  out.messages = snapshotMessages(state);
  return out;
}

/** Every section of the canonical snapshot, with `messages` left empty (streamed apart). */
export function snapshotSections(state: RealmState): RealmSnapshot {
  const users = [...state.users.values()].map((u) => {
    const { is_full_member: _derived, password_hash, settings, ...rest } = u;
    return {
      ...rest,
      ...(password_hash === null ? {} : { password_hash }),
      settings: sortedKeys(settings, (a, b) => (a < b ? -1 : 1)),
      settings_edited_by_user: [...u.settings_edited_by_user],
      profile_data: Object.fromEntries(
        Object.entries(u.profile_data)
          .sort(([a], [b]) => Number(a) - Number(b))
          .map(([k, v]) => [k, typeof v === 'string' ? v : [...v]]),
      ),
    };
  });

  const groups = [...state.groups.values()].map((g) => ({
    id: g.id,
    name: g.name,
    description: g.description,
    is_system_group: g.is_system_group,
    deactivated: g.deactivated,
    creator_id: g.creator_id,
    date_created: g.date_created,
    members: [...g.members],
    direct_subgroup_ids: [...g.direct_subgroup_ids],
    ...pick(g, USER_GROUP_SETTING_NAMES),
  }));

  const channels = [...state.channels.values()].map((c) => ({
    ...c,
    ...pick(c, CHANNEL_GROUP_SETTING_NAMES),
  }));

  const subscriptions = [];
  for (const perChannel of state.subscriptions.values())
    for (const sub of perChannel.values()) subscriptions.push({ ...sub });
  subscriptions.sort((a, b) => a.stream_id - b.stream_id || a.user_id - b.user_id);

  const flatten = <T>(map: Iterable<readonly T[]>) => [...map].flat();

  return {
    format: 'chat-realm.snapshot/1',
    now: state.now,
    server: { ...state.server },
    realm: { ...realmFields(state.realm), ...pick(state.realm, REALM_GROUP_SETTING_NAMES) },
    users,
    user_groups: groups.sort(byId('id')),
    channel_folders: [...state.channelFolders.values()]
      .sort((a, b) => a.order - b.order || a.id - b.id)
      .map((f) => ({ ...f })),
    channels,
    subscriptions,
    default_channel_ids: [...state.defaultChannelIds.keys()],
    messages: [],
    ...lastMessageId(state),
    user_topics: flatten(state.userTopics.values())
      .map((t) => ({ ...t }))
      .sort(
        (a, b) =>
          a.user_id - b.user_id ||
          a.stream_id - b.stream_id ||
          (a.topic_name < b.topic_name ? -1 : a.topic_name > b.topic_name ? 1 : 0),
      ),
    scheduled_messages: [...state.scheduledMessages.values()].map((m) => ({
      ...m,
      to: typeof m.to === 'number' ? m.to : [...m.to],
    })),
    custom_profile_fields: [...state.customProfileFields.values()].map((f) => ({ ...f })),
    linkifiers: state.linkifiers.map((l) => ({
      ...l,
      alternative_url_templates: [...l.alternative_url_templates],
    })),
    ...(state.realmEmoji.size > 0
      ? { realm_emoji: [...state.realmEmoji.values()].map((x) => ({ ...x })) }
      : {}),
    navigation_views: flatten(state.navigationViews.values()).map((v) => ({ ...v })),
    saved_snippets: [...state.savedSnippets.values()].map((x) => ({ ...x })),
    drafts: [...state.drafts.values()].map((x) => ({ ...x, to: [...x.to] })),
    push_devices: flatten(state.pushDevices.values()).map((d) => ({ ...d })),
    bot_storage: flatten(state.botStorage.values()).map((b) => ({ ...b })),
    pending_email_changes: [...state.pendingEmailChanges.values()].map((p) => ({ ...p })),
    muted_users: [...state.mutedUsers].flatMap(([userId, rows]) =>
      rows.map((m) => ({ user_id: userId, muted_user_id: m.id, date_muted: m.timestamp })),
    ),
    alert_words: [...state.alertWords].flatMap(([userId, words]) =>
      words.map((word) => ({ user_id: userId, word })),
    ),
    user_status: [...state.userStatuses].map(([userId, st]) => ({ user_id: userId, ...st })),
  };
}

/**
 * `last_message_id` when the realm once had a message above every stored one (its newest were
 * deleted): ids are never reused, so a reloaded realm must not give that id again. Left out
 * otherwise, so snapshots of realms that never lost their newest message do not change.
 */
function lastMessageId(state: RealmState): { last_message_id?: number } {
  const { lastId } = state.messages;
  return lastId > newestStoredId(state.messages) ? { last_message_id: lastId } : {};
}

/**
 * The messages in canonical form: ascending ids, every field present, each message's `flags` keyed
 * by user id (ascending) with sorted flag names. Rows come from `messageBlocks` (linear in the rows).
 *
 * `flags` is an enumerable accessor that builds the message's flags object on first read and then
 * replaces itself with it (a plain data property): 27 million (user, message) rows as eager
 * objects cost tens of seconds and gigabytes in V8 (integer-keyed dictionaries), most of which a
 * caller that streams or samples the snapshot never reads. JSON.stringify, spreading, structuredClone
 * and deep equality all read it like any property. Assigning `flags` replaces it.
 */
function snapshotMessages(state: RealmState): SnapshotMessage[] {
  const names = new FlagNames();
  const messages = new Array<SnapshotMessage>(state.messages.count);
  let n = 0;
  for (const block of messageBlocks(state)) {
    const { records, start } = block;
    for (let k = 0; k < records.length; k++)
      messages[n++] = withLazyFlags(
        messageSnapshotFields(records[k]!, state.messages.edits.get(records[k]!.id)),
        names,
        block,
        start[k]!,
        start[k + 1]!,
      );
  }
  messages.length = n;
  return messages;
}
