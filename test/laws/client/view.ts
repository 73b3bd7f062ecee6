import { messageActionRecipients } from '../../../src/core/messages/action-recipients';
import { allMessages } from '../../../src/core/messages/store';
import { allRealmEmoji } from '../../../src/core/emoji/realm-emoji';
/**
 * A client's view of a realm: what one user's Zulip client holds after `POST /register`, restricted
 * to the fields the 20 operations' events keep up to date. `viewOf(state, userId)` derives it from
 * a RealmState, the way the server's `fetch_initial_state_data` would; `reducer.ts` updates it from
 * events, the way a client does. Event sufficiency: the two agree after every operation.
 *
 * Deliberately left out (no event keeps them current, in Zulip as here; docs/differences/events.md):
 * drafts, pending email changes, password, push devices, bot storage, API keys other than bots',
 * subscribers of channels one is not subscribed to, channel `first_message_id`, `subscriber_count`, `stream_weekly_traffic`, `is_recently_active`,
 * `rendered_description` (kept but not compared), the raw `timezone` user setting.
 */
import type { GroupSettingValue } from '../../../src/core/model/group-setting';
import type { User } from '../../../src/core/model/records';
import { CHANNEL_GROUP_SETTING_NAMES, USER_GROUP_SETTING_NAMES } from '../../../src/core/model/records';
import { bitsToFlags } from '../../../src/core/messages/flags';
import { forEachRow } from '../../../src/core/messages/rows';
import { hasMetadataAccess, subscriberIds } from '../../../src/core/permissions/channels';
import { settingApiValue } from '../../../src/core/permissions/groups';
import { isGuest, isRealmAdmin } from '../../../src/core/permissions/roles';
import { accessibleUserIds } from '../../../src/core/permissions/user-access';
import type { RealmState } from '../../../src/core/state';
import {
  fieldsInOrder,
  formatCustomProfileField,
  storedValueText,
} from '../../../src/core/users/custom-profile-fields';
import { apiEmail, avatarUrl, canSeeDeliveryEmail } from '../../../src/core/users/format';
import { scheduledMessageForApi } from '../../../src/ops/scheduled/format';

export interface UserView {
  full_name: string;
  email: string;
  delivery_email: string | null;
  timezone: string;
  avatar_url: string | null;
  avatar_version: number;
  /** Custom profile field id → stored text. */
  profile_data: Record<string, string>;
}

export const CHANNEL_PROPERTIES = [
  'name',
  'description',
  'invite_only',
  'is_web_public',
  'history_public_to_subscribers',
  'message_retention_days',
  'is_archived',
  'folder_id',
  'topics_policy',
  ...CHANNEL_GROUP_SETTING_NAMES,
] as const;
export type ChannelView = Record<(typeof CHANNEL_PROPERTIES)[number], unknown>;

export const SUBSCRIPTION_PROPERTIES = [
  'color',
  'is_muted',
  'pin_to_top',
  'desktop_notifications',
  'audible_notifications',
  'push_notifications',
  'email_notifications',
  'wildcard_mentions_notify',
] as const;
export type SubscriptionView = Record<(typeof SUBSCRIPTION_PROPERTIES)[number], unknown>;

export interface GroupView {
  name: string;
  description: string;
  deactivated: boolean;
  members: number[];
  direct_subgroup_ids: number[];
  settings: Record<string, GroupSettingValue>;
}

export interface FolderView {
  name: string;
  description: string;
  order: number;
  is_archived: boolean;
}

export interface ClientView {
  userId: number;
  settings: Record<string, unknown>;
  users: Record<number, UserView>;
  /** Bots whose API key the client holds: all active bots for a human admin, one's own otherwise. */
  botKeys: Record<number, string>;
  channels: Record<number, ChannelView>;
  /**
   * Subscribers of the channels the user is subscribed to. Not of the others: Zulip's `peer_remove`
   * skips every user removed in the same request, so a user removed together with others never
   * learns that the others left (clients drop the list of a channel they leave).
   */
  subscribers: Record<number, number[]>;
  subscriptions: Record<number, SubscriptionView>;
  /** Only non-guests are told about default channels. */
  defaultChannels: number[] | null;
  groups: Record<number, GroupView>;
  customProfileFields: unknown[];
  /** Message id → the user's flags on it (without `historical`, which clients never see). */
  flags: Record<number, string[]>;
  scheduled: Record<number, Record<string, unknown>>;
  navigationViews: Array<{ fragment: string; is_pinned: boolean; name: string | null }>;
  snippets: Record<number, { id: number; title: string; content: string; date_created: number }>;
  folders: Record<number, FolderView>;
  /** `${stream_id}:${lower-cased topic}` → visibility policy. */
  userTopics: Record<string, number>;
  /** Human admins see everyone's export consent. */
  exportConsents: Record<number, boolean> | null;
  /**
   * Reactions of every message whose reaction events reach the user (Zulip's
   * `event_recipient_ids_for_action_on_messages`), an empty list for none.
   */
  reactions: Record<number, Array<Record<string, unknown>>>;
  /** Custom emoji by id, as register's `realm_emoji`. */
  realmEmoji: Record<string, unknown>;
}

export const topicKey = (streamId: number, topic: string): string => `${streamId}:${topic.toLowerCase()}`;

function userView(state: RealmState, viewer: User, u: User): UserView {
  const profile: Record<string, string> = {};
  if (!u.is_bot)
    for (const [id, value] of Object.entries(u.profile_data))
      if (state.customProfileFields.has(Number(id))) profile[id] = storedValueText(value);
  return {
    full_name: u.full_name,
    email: apiEmail(state, u),
    delivery_email: u.user_id === viewer.user_id || canSeeDeliveryEmail(viewer, u) ? u.delivery_email : null,
    timezone: u.timezone,
    avatar_url: avatarUrl(state, u, false),
    avatar_version: u.avatar_version,
    profile_data: profile,
  };
}

export function viewOf(state: RealmState, userId: number): ClientView {
  const me = state.users.get(userId);
  if (me === undefined) throw new Error(`no user ${userId}`);
  const users: Record<number, UserView> = {};
  for (const id of accessibleUserIds(state, me)) users[id] = userView(state, me, state.users.get(id)!);

  const humanAdmin = isRealmAdmin(me) && !me.is_bot;
  const botKeys: Record<number, string> = {};
  for (const u of state.users.values())
    if (u.is_bot && u.is_active && (humanAdmin || u.bot_owner_id === userId)) botKeys[u.user_id] = u.api_key;

  const channels: Record<number, ChannelView> = {};
  const subscribers: Record<number, number[]> = {};
  const subscriptions: Record<number, SubscriptionView> = {};
  for (const c of state.channels.values()) {
    const sub = state.subscriptions.get(c.stream_id)?.get(userId);
    if (sub?.active) subscriptions[c.stream_id] = pick(sub, SUBSCRIPTION_PROPERTIES);
    // Who receives the channel's events (Zulip's `can_access_stream_metadata_user_ids`): unlike
    // `has_metadata_access`, it leaves out guests not subscribed to a web-public channel, whom
    // Zulip's register does show the channel to (docs/differences/events.md).
    if (!hasMetadataAccess(state, me, c) || (isGuest(me) && !sub?.active && !isRealmAdmin(me))) continue;
    const view: Record<string, unknown> = {};
    for (const p of CHANNEL_PROPERTIES) {
      const v = (c as unknown as Record<string, unknown>)[p];
      view[p] = (CHANNEL_GROUP_SETTING_NAMES as readonly string[]).includes(p)
        ? settingApiValue(state, v as GroupSettingValue)
        : v;
    }
    channels[c.stream_id] = view as ChannelView;
    if (sub?.active) subscribers[c.stream_id] = subscriberIds(state, c.stream_id).sort((a, b) => a - b);
  }

  const groups: Record<number, GroupView> = {};
  for (const g of state.groups.values()) {
    groups[g.id] = {
      name: g.name,
      description: g.description,
      deactivated: g.deactivated,
      // As register sends them: deactivated users are left out of a group's members.
      members: g.members.filter((id) => state.users.get(id)?.is_active === true).sort((a, b) => a - b),
      direct_subgroup_ids: [...g.direct_subgroup_ids].sort((a, b) => a - b),
      settings: Object.fromEntries(USER_GROUP_SETTING_NAMES.map((n) => [n, settingApiValue(state, g[n])])),
    };
  }

  const flags: Record<number, string[]> = {};
  const rows = state.messages.rows.get(userId);
  if (rows)
    forEachRow(
      rows,
      (id, bits) =>
        void (flags[id] = bitsToFlags(bits)
          .filter((f) => f !== 'historical')
          .sort()),
    );

  const scheduled: Record<number, Record<string, unknown>> = {};
  for (const m of state.scheduledMessages.values())
    if (m.sender_id === userId && !m.delivered) scheduled[m.scheduled_message_id] = scheduledMessageForApi(m);

  const snippets: ClientView['snippets'] = {};
  for (const s of state.savedSnippets.values())
    if (s.user_id === userId)
      snippets[s.id] = { id: s.id, title: s.title, content: s.content, date_created: s.date_created };

  const folders: Record<number, FolderView> = {};
  for (const f of state.channelFolders.values())
    folders[f.id] = { name: f.name, description: f.description, order: f.order, is_archived: f.is_archived };

  const userTopics: Record<string, number> = {};
  for (const t of state.userTopics.get(userId) ?? [])
    userTopics[topicKey(t.stream_id, t.topic_name)] = t.visibility_policy;

  let exportConsents: Record<number, boolean> | null = null;
  if (humanAdmin) {
    exportConsents = {};
    for (const u of state.users.values())
      if (u.is_active && !u.is_bot) exportConsents[u.user_id] = u.settings.allow_private_data_export;
  }

  return {
    userId,
    settings: { ...me.settings },
    users,
    botKeys,
    channels,
    subscribers,
    subscriptions,
    defaultChannels: isGuest(me) ? null : [...state.defaultChannelIds.keys()].sort((a, b) => a - b),
    groups,
    customProfileFields: fieldsInOrder(state).map(formatCustomProfileField),
    flags,
    scheduled,
    navigationViews: (state.navigationViews.get(userId) ?? [])
      .map((v) => ({ fragment: v.fragment, is_pinned: v.is_pinned, name: v.name }))
      .sort((a, b) => (a.fragment < b.fragment ? -1 : a.fragment > b.fragment ? 1 : 0)),
    snippets,
    folders,
    userTopics,
    exportConsents,
    reactions: reactionsView(state, userId),
    realmEmoji: allRealmEmoji(state),
  };
}

function reactionsView(state: RealmState, userId: number): ClientView['reactions'] {
  const out: ClientView['reactions'] = {};
  for (const m of allMessages(state.messages)) {
    const channel = m.stream_id === null ? null : (state.channels.get(m.stream_id) ?? null);
    if (messageActionRecipients(state, state.messages, channel, [m.id]).has(userId))
      out[m.id] = m.reactions.map((r) => ({ ...r }));
  }
  return out;
}

function pick<T extends object, K extends keyof T>(o: T, keys: readonly K[]): Record<K, unknown> {
  const out = {} as Record<K, unknown>;
  for (const k of keys) out[k] = o[k];
  return out;
}

/** The first differing paths between two views, for readable failures. */
export function viewDiff(a: unknown, b: unknown, path = 'view', out: string[] = []): string[] {
  if (out.length >= 8 || JSON.stringify(a) === JSON.stringify(b)) return out;
  if (
    typeof a !== 'object' ||
    typeof b !== 'object' ||
    a === null ||
    b === null ||
    Array.isArray(a) !== Array.isArray(b)
  ) {
    out.push(`${path}: client has ${JSON.stringify(a)}, server state gives ${JSON.stringify(b)}`);
    return out;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  for (const k of new Set([...Object.keys(ao), ...Object.keys(bo)]))
    viewDiff(ao[k], bo[k], `${path}.${k}`, out);
  return out;
}
