import * as z from 'zod/mini';
import { SYSTEM_GROUP_NAMES } from '../model/group-setting';
import { REALM_GROUP_SETTING_NAMES } from '../model/realm';
import { CHANNEL_GROUP_SETTING_NAMES, USER_GROUP_SETTING_NAMES } from '../model/records';
import { USER_SETTING_DEFAULTS } from '../model/user-settings';

/**
 * The `chat-realm.snapshot/1` format (docs/realm-snapshot.md), structure only: types and defaults.
 * Cross-record checks (unique ids, references) live in the section loaders. Messages are checked
 * by hand in messages.ts: a million of them through zod would take minutes; their zod schema (for
 * the types and the JSON Schema) is in format.ts, and a test keeps the two in agreement.
 *
 * The types of the public API (`RealmSnapshotInput`, `RealmSnapshot`) are inferred from these
 * schemas (format.ts), so what compiles and what loads cannot drift apart.
 */
/** Ids are positive and fit the engine's 31-bit maps (Zulip's ids are PostgreSQL integers too). */
export const id = z.int().check(z.positive(), z.maximum(0x7fffffff));
export const ts = z.int().check(z.nonnegative());

const anonymousGroup = z.strictObject({ direct_members: z.array(id), direct_subgroups: z.array(id) });

/** A group-setting value as a snapshot may write it: a group id, a system group's name, or an anonymous group. */
export const groupSettingInput = z.union([
  id,
  z.enum(SYSTEM_GROUP_NAMES, { error: (i) => `${JSON.stringify(i.input)} is not a system group name` }),
  anonymousGroup,
]);
export type GroupSettingInput = z.infer<typeof groupSettingInput>;

/** A group-setting value as the canonical form writes it: a group id or an anonymous group. */
export const groupSettingValue = z.union([id, anonymousGroup]);

/** `{name: z.optional(schema)}` for each name: the group settings of a record, typed by name. */
export function optionalFields<K extends string, S extends z.ZodMiniType>(
  names: readonly K[],
  schema: S,
): { [P in K]: z.ZodMiniOptional<S> } {
  return Object.fromEntries(names.map((n) => [n, z.optional(schema)])) as { [P in K]: z.ZodMiniOptional<S> };
}

type SettingDefaults = typeof USER_SETTING_DEFAULTS;
type SettingSchema<V> = V extends boolean
  ? z.ZodMiniBoolean
  : V extends number
    ? ReturnType<typeof z.int>
    : z.ZodMiniString;
const settingsShape = Object.fromEntries(
  Object.entries(USER_SETTING_DEFAULTS).map(([k, v]) => [
    k,
    z.optional(typeof v === 'boolean' ? z.boolean() : typeof v === 'number' ? z.int() : z.string()),
  ]),
) as { [K in keyof SettingDefaults]: z.ZodMiniOptional<SettingSchema<SettingDefaults[K]>> };

/** A user's settings: any of the PATCH /settings names, each with its type. */
export const userSettingsSchema = z.strictObject(settingsShape);

/** -1 (unlimited) or a positive number of days. */
const retentionDays = z.union([z.literal(-1), z.int().check(z.positive())], {
  error: 'must be -1 or positive',
});

/** A time limit in seconds (null in the snapshot: no limit). */
const limitSeconds = z.int().check(z.positive());

export const serverSchema = z.strictObject({
  feature_level: z.optional(z.int().check(z.positive())),
  web_public_streams_enabled: z.optional(z.boolean()),
  push_notifications: z.optional(z.enum(['off', 'direct', 'bouncer'])),
  max_stream_name_length: z.optional(z.int().check(z.positive())),
  max_stream_description_length: z.optional(z.int().check(z.positive())),
  max_topic_length: z.optional(z.int().check(z.positive())),
  max_message_length: z.optional(z.int().check(z.positive())),
  email_gateway_pattern: z.optional(z.string()),
  notification_bot_id: z.optional(id),
  email_gateway_bot_id: z.optional(id),
  welcome_bot_id: z.optional(id),
});

export const realmSchema = z.strictObject({
  id: z.optional(id),
  string_id: z.optional(z.string()),
  name: z.optional(z.string()),
  uri: z.optional(z.string()),
  deactivated: z.optional(z.boolean()),
  enable_spectator_access: z.optional(z.boolean()),
  topics_policy: z.optional(z.enum(['allow_empty_topic', 'disable_empty_topic'])),
  waiting_period_threshold: z.optional(z.int().check(z.nonnegative())),
  name_changes_disabled: z.optional(z.boolean()),
  email_changes_disabled: z.optional(z.boolean()),
  require_unique_names: z.optional(z.boolean()),
  message_retention_days: z.optional(retentionDays),
  default_language: z.optional(z.string()),
  password_auth_enabled: z.optional(z.boolean()),
  description: z.optional(z.string()),
  allow_message_editing: z.optional(z.boolean()),
  message_content_edit_limit_seconds: z.optional(z.nullable(limitSeconds)),
  message_content_delete_limit_seconds: z.optional(z.nullable(limitSeconds)),
  move_messages_within_stream_limit_seconds: z.optional(z.nullable(limitSeconds)),
  move_messages_between_streams_limit_seconds: z.optional(z.nullable(limitSeconds)),
  message_edit_history_visibility_policy: z.optional(z.enum(['all', 'moves', 'none'])),
  enable_read_receipts: z.optional(z.boolean()),
  enable_guest_user_indicator: z.optional(z.boolean()),
  enable_guest_user_dm_warning: z.optional(z.boolean()),
  presence_disabled: z.optional(z.boolean()),
  ...optionalFields(REALM_GROUP_SETTING_NAMES, groupSettingInput),
});

export const userSchema = z.strictObject({
  user_id: id,
  email: z.string().check(z.minLength(1)),
  delivery_email: z.optional(z.string().check(z.minLength(1))),
  full_name: z.string(),
  role: z.optional(z.literal([100, 200, 300, 400, 600])),
  is_active: z.optional(z.boolean()),
  is_bot: z.optional(z.boolean()),
  bot_type: z.optional(z.nullable(z.literal([1, 2, 3, 4]))),
  bot_owner_id: z.optional(z.nullable(id)),
  is_imported_stub: z.optional(z.boolean()),
  date_joined: z.optional(z.iso.datetime({ offset: true })),
  timezone: z.optional(z.string()),
  avatar_source: z.optional(z.enum(['G', 'U'])),
  avatar_version: z.optional(z.int().check(z.nonnegative())),
  api_key: z.string().check(z.regex(/^[A-Za-z0-9]{32}$/, 'must be 32 characters of [A-Za-z0-9]')),
  password: z.optional(z.string()),
  password_hash: z.optional(z.string()),
  settings: z.optional(userSettingsSchema),
  settings_edited_by_user: z.optional(z.array(z.string())),
  profile_data: z.optional(
    z.record(z.string().check(z.regex(/^[1-9][0-9]*$/)), z.union([z.string(), z.array(id)])),
  ),
});

export const userGroupSchema = z.strictObject({
  id,
  name: z.string().check(z.minLength(1)),
  description: z.optional(z.string()),
  is_system_group: z.optional(z.boolean()),
  deactivated: z.optional(z.boolean()),
  creator_id: z.optional(z.nullable(id)),
  date_created: z.optional(ts),
  members: z.optional(z.array(id)),
  direct_subgroup_ids: z.optional(z.array(id)),
  ...optionalFields(USER_GROUP_SETTING_NAMES, groupSettingInput),
});

export const channelFolderSchema = z.strictObject({
  id,
  name: z.string().check(z.minLength(1)),
  description: z.optional(z.string()),
  order: z.optional(z.int()),
  is_archived: z.optional(z.boolean()),
  creator_id: z.optional(z.nullable(id)),
  date_created: z.optional(ts),
});

export const channelSchema = z.strictObject({
  stream_id: id,
  name: z.string().check(z.minLength(1)),
  description: z.optional(z.string()),
  invite_only: z.optional(z.boolean()),
  is_web_public: z.optional(z.boolean()),
  history_public_to_subscribers: z.optional(z.boolean()),
  message_retention_days: z.optional(z.nullable(retentionDays)),
  is_archived: z.optional(z.boolean()),
  folder_id: z.optional(z.nullable(id)),
  topics_policy: z.optional(
    z.enum(['inherit', 'allow_empty_topic', 'disable_empty_topic', 'empty_topic_only']),
  ),
  creator_id: z.optional(z.nullable(id)),
  date_created: z.optional(ts),
  email_token: z.optional(z.string().check(z.minLength(1))),
  ...optionalFields(CHANNEL_GROUP_SETTING_NAMES, groupSettingInput),
});

const nullableBool = z.optional(z.nullable(z.boolean()));
export const subscriptionSchema = z.strictObject({
  user_id: id,
  stream_id: id,
  active: z.optional(z.boolean()),
  // What PATCH subscription properties accepts: 3 to 6 hex digits (Python's `$` allows a final newline).
  color: z.optional(z.string().check(z.regex(/^#[0-9a-fA-F]{3,6}\n?$/, 'must be # and 3 to 6 hex digits'))),
  is_muted: z.optional(z.boolean()),
  pin_to_top: z.optional(z.boolean()),
  desktop_notifications: nullableBool,
  audible_notifications: nullableBool,
  push_notifications: nullableBool,
  email_notifications: nullableBool,
  wildcard_mentions_notify: nullableBool,
});

export const userTopicSchema = z.strictObject({
  user_id: id,
  stream_id: id,
  topic_name: z.string(),
  visibility_policy: z.literal([1, 2, 3]),
  last_updated: z.optional(ts),
});

export const scheduledMessageSchema = z.strictObject({
  scheduled_message_id: id,
  sender_id: id,
  type: z.enum(['stream', 'private']),
  to: z.union([id, z.array(id)]),
  topic: z.optional(z.string()),
  content: z.string(),
  scheduled_delivery_timestamp: ts,
  failed: z.optional(z.boolean()),
  delivered: z.optional(z.boolean()),
  read_by_sender: z.optional(z.nullable(z.boolean())),
});

export const customProfileFieldSchema = z.strictObject({
  id,
  name: z.string(),
  hint: z.optional(z.string()),
  type: z.literal([1, 2, 3, 4, 5, 6, 7, 8]),
  field_data: z.optional(z.string()),
  order: z.optional(z.int()),
  display_in_profile_summary: z.optional(z.boolean()),
  required: z.optional(z.boolean()),
  editable_by_user: z.optional(z.boolean()),
  use_for_user_matching: z.optional(z.boolean()),
});

export const realmEmojiSchema = z.strictObject({
  id,
  name: z.string().check(z.minLength(1)),
  source_url: z.string(),
  still_url: z.optional(z.nullable(z.string())),
  deactivated: z.optional(z.boolean()),
  author_id: z.optional(z.nullable(id)),
});

export const linkifierSchema = z.strictObject({
  id,
  pattern: z.string(),
  url_template: z.string(),
  example_input: z.optional(z.nullable(z.string())),
  reverse_template: z.optional(z.nullable(z.string())),
  alternative_url_templates: z.optional(z.array(z.string())),
});

export const navigationViewSchema = z.strictObject({
  user_id: id,
  fragment: z.string().check(z.minLength(1)),
  is_pinned: z.boolean(),
  name: z.optional(z.nullable(z.string())),
});

export const savedSnippetSchema = z.strictObject({
  id,
  user_id: id,
  title: z.string(),
  content: z.string(),
  date_created: z.optional(ts),
});

export const draftSchema = z.strictObject({
  id,
  user_id: id,
  type: z.enum(['stream', 'private', '']),
  to: z.optional(z.array(id)),
  topic: z.optional(z.string()),
  content: z.string(),
  timestamp: z.optional(ts),
});

export const pushDeviceSchema = z.strictObject({
  user_id: id,
  kind: z.enum(['fcm', 'apns']),
  token: z.string().check(z.minLength(1)),
  ios_app_id: z.optional(z.nullable(z.string())),
  registered_with_bouncer: z.optional(z.boolean()),
});

export const botStorageSchema = z.strictObject({ bot_id: id, key: z.string(), value: z.string() });

export const pendingEmailChangeSchema = z.strictObject({
  user_id: id,
  new_email: z.string().check(z.minLength(1)),
  requested_at: z.optional(ts),
});

export const mutedUserSchema = z.strictObject({
  user_id: id,
  muted_user_id: id,
  date_muted: z.optional(ts),
});

export const alertWordSchema = z.strictObject({ user_id: id, word: z.string().check(z.minLength(1)) });

export const userStatusSchema = z.strictObject({
  user_id: id,
  status_text: z.optional(z.string()),
  emoji_name: z.optional(z.string()),
  emoji_code: z.optional(z.string()),
  reaction_type: z.optional(z.enum(['unicode_emoji', 'realm_emoji', 'zulip_extra_emoji'])),
  away: z.optional(z.boolean()),
});

/** Everything but `messages`, which messages.ts checks (format.ts adds their schema for the types). */
export const snapshotSchema = z.strictObject({
  format: z.literal('chat-realm.snapshot/1'),
  now: z.optional(z.nullable(ts)),
  server: z.optional(serverSchema),
  realm: z.optional(realmSchema),
  users: z.optional(z.array(userSchema)),
  user_groups: z.optional(z.array(userGroupSchema)),
  channel_folders: z.optional(z.array(channelFolderSchema)),
  channels: z.optional(z.array(channelSchema)),
  subscriptions: z.optional(z.array(subscriptionSchema)),
  default_channel_ids: z.optional(z.array(id)),
  messages: z.optional(z.array(z.unknown())),
  /** The largest message id the realm ever had, when above every stored one (its newest were deleted). */
  last_message_id: z.optional(id),
  user_topics: z.optional(z.array(userTopicSchema)),
  scheduled_messages: z.optional(z.array(scheduledMessageSchema)),
  custom_profile_fields: z.optional(z.array(customProfileFieldSchema)),
  linkifiers: z.optional(z.array(linkifierSchema)),
  /** Custom emoji (Zulip's `RealmEmoji`), by the URL of their image. */
  realm_emoji: z.optional(z.array(realmEmojiSchema)),
  navigation_views: z.optional(z.array(navigationViewSchema)),
  saved_snippets: z.optional(z.array(savedSnippetSchema)),
  drafts: z.optional(z.array(draftSchema)),
  push_devices: z.optional(z.array(pushDeviceSchema)),
  bot_storage: z.optional(z.array(botStorageSchema)),
  pending_email_changes: z.optional(z.array(pendingEmailChangeSchema)),
  muted_users: z.optional(z.array(mutedUserSchema)),
  alert_words: z.optional(z.array(alertWordSchema)),
  user_status: z.optional(z.array(userStatusSchema)),
});

export type SnapshotInput = z.infer<typeof snapshotSchema>;
