import * as z from 'zod/mini';
import { CLIENT_NAME_MAX, isClientName } from '../messages/client-names';
import { FLAG_NAMES, type FlagName } from '../messages/flags';
import { REALM_GROUP_SETTING_NAMES } from '../model/realm';
import { CHANNEL_GROUP_SETTING_NAMES, USER_GROUP_SETTING_NAMES } from '../model/records';
import {
  botStorageSchema,
  channelFolderSchema,
  channelSchema,
  customProfileFieldSchema,
  draftSchema,
  groupSettingValue,
  id,
  linkifierSchema,
  realmEmojiSchema,
  navigationViewSchema,
  pendingEmailChangeSchema,
  pushDeviceSchema,
  realmSchema,
  savedSnippetSchema,
  mutedUserSchema,
  alertWordSchema,
  userStatusSchema,
  scheduledMessageSchema,
  serverSchema,
  snapshotSchema,
  subscriptionSchema,
  ts,
  userGroupSchema,
  userSchema,
  userSettingsSchema,
  userTopicSchema,
} from './schema';

/**
 * The whole snapshot format as zod schemas, for the public types and the shipped JSON Schema:
 * - `snapshotDocumentSchema`: what `createRealm` accepts (schema.ts's `snapshotSchema`, which the
 *   loader validates with, plus the messages' schema below);
 * - `canonicalSnapshotSchema`: what `snapshotRealm` writes, the same records with every field
 *   present (docs/realm-snapshot.md, rule 1).
 *
 * Nothing here runs when a realm is loaded: the loader checks messages by hand (a million of them
 * through zod would take minutes), and test/core/snapshot-message-schema.test.ts keeps that check
 * and `snapshotMessageSchema` in agreement. Modules of the engine import this file for types only
 * (`import type`), so its schemas stay out of bundles; scripts and tests import it for values.
 */

export const reactionSchema = z.strictObject({
  user_id: id,
  emoji_name: z.string(),
  emoji_code: z.string(),
  reaction_type: z.enum(['unicode_emoji', 'realm_emoji', 'zulip_extra_emoji']),
});

/** One entry of a message's edit history (Zulip's `edit_history`), newest first. */
export const editHistoryEntrySchema = z.strictObject({
  user_id: z.nullable(id),
  timestamp: ts,
  prev_content: z.optional(z.string()),
  prev_rendered_content: z.optional(z.string()),
  prev_topic: z.optional(z.string()),
  topic: z.optional(z.string()),
  prev_stream: z.optional(id),
  stream: z.optional(id),
});

/**
 * A message's edits, present only on a message ever edited or moved (so also in the canonical
 * form: a snapshot of a realm without edits, or written before they were carried, has none).
 */
const editFields = {
  edit_history: z.optional(z.array(editHistoryEntrySchema)),
  last_edit_timestamp: z.optional(ts),
  last_moved_timestamp: z.optional(ts),
};

/** A message's rows: user id (as a string, JSON keys are strings) → that user's flags. */
const flagsSchema = z.record(
  z.string().check(z.regex(/^[1-9][0-9]*$/, 'keys are user ids')),
  z.array(z.enum(FLAG_NAMES as readonly [FlagName, ...FlagName[]])),
);

/**
 * The sending client's name (Zulip's `Message.sending_client`, at most 30 characters); absent
 * means "API", what a message stored without one (a library send, an older snapshot) shows.
 */
// Counted in code points as Zulip counts them (`isClientName`), which `maxLength` would not.
const clientSchema = z.string().check(z.refine(isClientName, `at most ${CLIENT_NAME_MAX} characters`));

const messageFields = {
  id,
  sender_id: id,
  content: z.string(),
  timestamp: ts,
  has_link: z.optional(z.boolean()),
  has_attachment: z.optional(z.boolean()),
  has_image: z.optional(z.boolean()),
  reactions: z.optional(z.array(reactionSchema)),
  client: z.optional(clientSchema),
  ...editFields,
  flags: z.optional(flagsSchema),
};

/** A channel message: `stream_id` and `topic` (the empty topic is `""`), never `to`. */
export const channelMessageSchema = z.strictObject({
  ...messageFields,
  stream_id: id,
  topic: z.optional(z.string()),
  to: z.optional(z.never()),
});

/** A direct message: `to` (the recipients other than the sender), never `stream_id` or `topic`. */
export const directMessageSchema = z.strictObject({
  ...messageFields,
  to: z.array(id),
  stream_id: z.optional(z.never()),
  topic: z.optional(z.never()),
});

/** One element of `messages`, as `createRealm` accepts it (checked by hand in messages.ts). */
export const snapshotMessageSchema = z.union([channelMessageSchema, directMessageSchema]);

/** What `createRealm` accepts: every section, messages included. */
export const snapshotDocumentSchema = z.extend(snapshotSchema, {
  messages: z.optional(z.array(snapshotMessageSchema)),
});

// The canonical form: the same records, every field present, group settings as ids or anonymous
// groups (never names), users' plain `password` replaced by `password_hash` (when they have one).

const storedSettings = <K extends string>(names: readonly K[]) =>
  Object.fromEntries(names.map((n) => [n, groupSettingValue])) as { [P in K]: typeof groupSettingValue };

const canonicalMessageFields = {
  has_link: z.boolean(),
  has_attachment: z.boolean(),
  has_image: z.boolean(),
  reactions: z.array(reactionSchema),
  client: z.optional(clientSchema),
  ...editFields,
  flags: flagsSchema,
};

export const canonicalSnapshotSchema = z.strictObject({
  format: snapshotSchema.shape.format,
  now: z.nullable(ts),
  server: z.required(serverSchema),
  realm: z.extend(z.required(realmSchema), storedSettings(REALM_GROUP_SETTING_NAMES)),
  users: z.array(
    z.extend(z.required(z.omit(userSchema, { password: true, password_hash: true, settings: true })), {
      password_hash: z.optional(z.string()),
      settings: z.required(userSettingsSchema),
    }),
  ),
  user_groups: z.array(z.extend(z.required(userGroupSchema), storedSettings(USER_GROUP_SETTING_NAMES))),
  channel_folders: z.array(z.required(channelFolderSchema)),
  channels: z.array(
    z.extend(z.required(channelSchema), {
      ...storedSettings(CHANNEL_GROUP_SETTING_NAMES),
      // Only channels that were given one carry a token (the others derive theirs).
      email_token: z.optional(z.string()),
    }),
  ),
  subscriptions: z.array(z.required(subscriptionSchema)),
  default_channel_ids: z.array(id),
  messages: z.array(
    z.union([
      z.extend(channelMessageSchema, { ...canonicalMessageFields, topic: z.string() }),
      z.extend(directMessageSchema, canonicalMessageFields),
    ]),
  ),
  // Written only when above every stored message's id, so most snapshots do not carry it.
  last_message_id: z.optional(id),
  user_topics: z.array(z.required(userTopicSchema)),
  scheduled_messages: z.array(z.required(scheduledMessageSchema)),
  custom_profile_fields: z.array(z.required(customProfileFieldSchema)),
  linkifiers: z.array(z.required(linkifierSchema)),
  // Written only when the realm has custom emoji.
  realm_emoji: z.optional(z.array(z.required(realmEmojiSchema))),
  navigation_views: z.array(z.required(navigationViewSchema)),
  saved_snippets: z.array(z.required(savedSnippetSchema)),
  drafts: z.array(z.required(draftSchema)),
  push_devices: z.array(z.required(pushDeviceSchema)),
  bot_storage: z.array(botStorageSchema),
  pending_email_changes: z.array(z.required(pendingEmailChangeSchema)),
  // Added after the first format: older documents lack them (empty).
  muted_users: z.optional(z.array(z.required(mutedUserSchema))),
  alert_words: z.optional(z.array(alertWordSchema)),
  user_status: z.optional(z.array(z.required(userStatusSchema))),
});

/** Input types accept readonly arrays and objects too (`as const` fixtures, frozen records). */
type DeepReadonly<T> = T extends readonly (infer E)[]
  ? readonly DeepReadonly<E>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

/**
 * What `createRealm` accepts: a `chat-realm.snapshot/1` document (docs/realm-snapshot.md), typed
 * from the schemas it is validated with. Fields with a default may be left out; a misspelled key
 * or a wrong type is a compile error. For a value of unknown type (read from a file, a store, a
 * request) use `parseRealm`, which checks the same at run time.
 */
export type RealmSnapshotInput = DeepReadonly<z.input<typeof snapshotDocumentSchema>>;

/**
 * What `snapshotRealm` returns: the canonical snapshot, every field present (so
 * `snapshot.users[0]!.email` is a `string`). Plain JSON; assignable to `RealmSnapshotInput`, so
 * `createRealm(snapshotRealm(state))` type-checks.
 */
export type RealmSnapshot = z.output<typeof canonicalSnapshotSchema>;

/** One element of `RealmSnapshotInput['messages']`: a channel message or a direct message. */
export type SnapshotMessageInput = DeepReadonly<z.input<typeof snapshotMessageSchema>>;
/** One element of `RealmSnapshot['messages']`, every field present. */
export type SnapshotMessage = RealmSnapshot['messages'][number];

/** The sections of a snapshot that are lists (`users`, `channels`, `messages`, …). */
export type SnapshotListName = {
  [K in keyof RealmSnapshot]-?: RealmSnapshot[K] extends readonly unknown[] ? K : never;
}[keyof RealmSnapshot];

/** One record of a list section as `createRealm` accepts it: `SnapshotRecordInput<'users'>`. */
export type SnapshotRecordInput<K extends SnapshotListName> = NonNullable<RealmSnapshotInput[K]>[number];

/** One record of a list section as `snapshotRealm` writes it: `SnapshotRecord<'users'>`. */
export type SnapshotRecord<K extends SnapshotListName> = RealmSnapshot[K][number];
