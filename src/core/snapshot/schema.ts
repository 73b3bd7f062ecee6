import * as z from 'zod';
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
export const id = z.int().positive().max(0x7fffffff);
export const ts = z.int().nonnegative();

const anonymousGroup = z.object({ direct_members: z.array(id), direct_subgroups: z.array(id) }).strict();

/** A group-setting value as a snapshot may write it: a group id, a system group's name, or an anonymous group. */
export const groupSettingInput = z.union([
  id,
  z.enum(SYSTEM_GROUP_NAMES, { error: (i) => `${JSON.stringify(i.input)} is not a system group name` }),
  anonymousGroup,
]);
export type GroupSettingInput = z.infer<typeof groupSettingInput>;

/** A group-setting value as the canonical form writes it: a group id or an anonymous group. */
export const groupSettingValue = z.union([id, anonymousGroup]);

/** `{name: schema.optional()}` for each name: the group settings of a record, typed by name. */
export function optionalFields<K extends string, S extends z.ZodType>(
  names: readonly K[],
  schema: S,
): { [P in K]: z.ZodOptional<S> } {
  return Object.fromEntries(names.map((n) => [n, schema.optional()])) as { [P in K]: z.ZodOptional<S> };
}

type SettingDefaults = typeof USER_SETTING_DEFAULTS;
type SettingSchema<V> = V extends boolean
  ? z.ZodBoolean
  : V extends number
    ? ReturnType<typeof z.int>
    : z.ZodString;
const settingsShape = Object.fromEntries(
  Object.entries(USER_SETTING_DEFAULTS).map(([k, v]) => [
    k,
    (typeof v === 'boolean' ? z.boolean() : typeof v === 'number' ? z.int() : z.string()).optional(),
  ]),
) as { [K in keyof SettingDefaults]: z.ZodOptional<SettingSchema<SettingDefaults[K]>> };

/** A user's settings: any of the PATCH /settings names, each with its type. */
export const userSettingsSchema = z.object(settingsShape).strict();

/** -1 (unlimited) or a positive number of days. */
const retentionDays = z.union([z.literal(-1), z.int().positive()], { error: 'must be -1 or positive' });

export const serverSchema = z
  .object({
    feature_level: z.int().positive().optional(),
    web_public_streams_enabled: z.boolean().optional(),
    push_notifications: z.enum(['off', 'direct', 'bouncer']).optional(),
    max_stream_name_length: z.int().positive().optional(),
    max_stream_description_length: z.int().positive().optional(),
    max_topic_length: z.int().positive().optional(),
    max_message_length: z.int().positive().optional(),
  })
  .strict();

export const realmSchema = z
  .object({
    id: id.optional(),
    string_id: z.string().optional(),
    name: z.string().optional(),
    uri: z.string().optional(),
    deactivated: z.boolean().optional(),
    enable_spectator_access: z.boolean().optional(),
    topics_policy: z.enum(['allow_empty_topic', 'disable_empty_topic']).optional(),
    waiting_period_threshold: z.int().nonnegative().optional(),
    name_changes_disabled: z.boolean().optional(),
    email_changes_disabled: z.boolean().optional(),
    require_unique_names: z.boolean().optional(),
    message_retention_days: retentionDays.optional(),
    default_language: z.string().optional(),
    password_auth_enabled: z.boolean().optional(),
    ...optionalFields(REALM_GROUP_SETTING_NAMES, groupSettingInput),
  })
  .strict();

export const userSchema = z
  .object({
    user_id: id,
    email: z.string().min(1),
    delivery_email: z.string().min(1).optional(),
    full_name: z.string(),
    role: z.literal([100, 200, 300, 400, 600]).optional(),
    is_active: z.boolean().optional(),
    is_bot: z.boolean().optional(),
    bot_type: z.literal([1, 2, 3, 4]).nullable().optional(),
    bot_owner_id: id.nullable().optional(),
    is_imported_stub: z.boolean().optional(),
    date_joined: z.iso.datetime({ offset: true }).optional(),
    timezone: z.string().optional(),
    avatar_source: z.enum(['G', 'U']).optional(),
    avatar_version: z.int().nonnegative().optional(),
    api_key: z.string().regex(/^[A-Za-z0-9]{32}$/, 'must be 32 characters of [A-Za-z0-9]'),
    password: z.string().optional(),
    password_hash: z.string().optional(),
    settings: userSettingsSchema.optional(),
    settings_edited_by_user: z.array(z.string()).optional(),
    profile_data: z.record(z.string().regex(/^[1-9][0-9]*$/), z.union([z.string(), z.array(id)])).optional(),
  })
  .strict();

export const userGroupSchema = z
  .object({
    id,
    name: z.string().min(1),
    description: z.string().optional(),
    is_system_group: z.boolean().optional(),
    deactivated: z.boolean().optional(),
    creator_id: id.nullable().optional(),
    date_created: ts.optional(),
    members: z.array(id).optional(),
    direct_subgroup_ids: z.array(id).optional(),
    ...optionalFields(USER_GROUP_SETTING_NAMES, groupSettingInput),
  })
  .strict();

export const channelFolderSchema = z
  .object({
    id,
    name: z.string().min(1),
    description: z.string().optional(),
    order: z.int().optional(),
    is_archived: z.boolean().optional(),
    creator_id: id.nullable().optional(),
    date_created: ts.optional(),
  })
  .strict();

export const channelSchema = z
  .object({
    stream_id: id,
    name: z.string().min(1),
    description: z.string().optional(),
    invite_only: z.boolean().optional(),
    is_web_public: z.boolean().optional(),
    history_public_to_subscribers: z.boolean().optional(),
    message_retention_days: retentionDays.nullable().optional(),
    is_archived: z.boolean().optional(),
    folder_id: id.nullable().optional(),
    topics_policy: z
      .enum(['inherit', 'allow_empty_topic', 'disable_empty_topic', 'empty_topic_only'])
      .optional(),
    creator_id: id.nullable().optional(),
    date_created: ts.optional(),
    ...optionalFields(CHANNEL_GROUP_SETTING_NAMES, groupSettingInput),
  })
  .strict();

const nullableBool = z.boolean().nullable().optional();
export const subscriptionSchema = z
  .object({
    user_id: id,
    stream_id: id,
    active: z.boolean().optional(),
    // What PATCH subscription properties accepts: 3 to 6 hex digits (Python's `$` allows a final newline).
    color: z
      .string()
      .regex(/^#[0-9a-fA-F]{3,6}\n?$/, 'must be # and 3 to 6 hex digits')
      .optional(),
    is_muted: z.boolean().optional(),
    pin_to_top: z.boolean().optional(),
    desktop_notifications: nullableBool,
    audible_notifications: nullableBool,
    push_notifications: nullableBool,
    email_notifications: nullableBool,
    wildcard_mentions_notify: nullableBool,
  })
  .strict();

export const userTopicSchema = z
  .object({
    user_id: id,
    stream_id: id,
    topic_name: z.string(),
    visibility_policy: z.literal([1, 2, 3]),
    last_updated: ts.optional(),
  })
  .strict();

export const scheduledMessageSchema = z
  .object({
    scheduled_message_id: id,
    sender_id: id,
    type: z.enum(['stream', 'private']),
    to: z.union([id, z.array(id)]),
    topic: z.string().optional(),
    content: z.string(),
    scheduled_delivery_timestamp: ts,
    failed: z.boolean().optional(),
    delivered: z.boolean().optional(),
    read_by_sender: z.boolean().nullable().optional(),
  })
  .strict();

export const customProfileFieldSchema = z
  .object({
    id,
    name: z.string(),
    hint: z.string().optional(),
    type: z.literal([1, 2, 3, 4, 5, 6, 7, 8]),
    field_data: z.string().optional(),
    order: z.int().optional(),
    display_in_profile_summary: z.boolean().optional(),
    required: z.boolean().optional(),
    editable_by_user: z.boolean().optional(),
    use_for_user_matching: z.boolean().optional(),
  })
  .strict();

export const linkifierSchema = z
  .object({
    id,
    pattern: z.string(),
    url_template: z.string(),
    example_input: z.string().nullable().optional(),
    reverse_template: z.string().nullable().optional(),
    alternative_url_templates: z.array(z.string()).optional(),
  })
  .strict();

export const navigationViewSchema = z
  .object({
    user_id: id,
    fragment: z.string().min(1),
    is_pinned: z.boolean(),
    name: z.string().nullable().optional(),
  })
  .strict();

export const savedSnippetSchema = z
  .object({ id, user_id: id, title: z.string(), content: z.string(), date_created: ts.optional() })
  .strict();

export const draftSchema = z
  .object({
    id,
    user_id: id,
    type: z.enum(['stream', 'private', '']),
    to: z.array(id).optional(),
    topic: z.string().optional(),
    content: z.string(),
    timestamp: ts.optional(),
  })
  .strict();

export const pushDeviceSchema = z
  .object({
    user_id: id,
    kind: z.enum(['fcm', 'apns']),
    token: z.string().min(1),
    ios_app_id: z.string().nullable().optional(),
    registered_with_bouncer: z.boolean().optional(),
  })
  .strict();

export const botStorageSchema = z.object({ bot_id: id, key: z.string(), value: z.string() }).strict();

export const pendingEmailChangeSchema = z
  .object({ user_id: id, new_email: z.string().min(1), requested_at: ts.optional() })
  .strict();

/** Everything but `messages`, which messages.ts checks (format.ts adds their schema for the types). */
export const snapshotSchema = z
  .object({
    format: z.literal('chat-realm.snapshot/1'),
    now: ts.nullable().optional(),
    server: serverSchema.optional(),
    realm: realmSchema.optional(),
    users: z.array(userSchema).optional(),
    user_groups: z.array(userGroupSchema).optional(),
    channel_folders: z.array(channelFolderSchema).optional(),
    channels: z.array(channelSchema).optional(),
    subscriptions: z.array(subscriptionSchema).optional(),
    default_channel_ids: z.array(id).optional(),
    messages: z.array(z.unknown()).optional(),
    user_topics: z.array(userTopicSchema).optional(),
    scheduled_messages: z.array(scheduledMessageSchema).optional(),
    custom_profile_fields: z.array(customProfileFieldSchema).optional(),
    linkifiers: z.array(linkifierSchema).optional(),
    navigation_views: z.array(navigationViewSchema).optional(),
    saved_snippets: z.array(savedSnippetSchema).optional(),
    drafts: z.array(draftSchema).optional(),
    push_devices: z.array(pushDeviceSchema).optional(),
    bot_storage: z.array(botStorageSchema).optional(),
    pending_email_changes: z.array(pendingEmailChangeSchema).optional(),
  })
  .strict();

export type SnapshotInput = z.infer<typeof snapshotSchema>;
