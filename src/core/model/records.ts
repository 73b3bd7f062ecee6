import type { GroupSettingValue } from './group-setting';
import type { UserSettings } from './user-settings';

/** Zulip role numbers. */
export const Role = { owner: 100, administrator: 200, moderator: 300, member: 400, guest: 600 } as const;
export type RoleValue = (typeof Role)[keyof typeof Role];

export type BotType = 1 | 2 | 3 | 4;

/** Records use Zulip's wire names, as in the snapshot format; they are frozen plain objects. */
export interface User {
  readonly user_id: number;
  readonly email: string;
  readonly delivery_email: string;
  readonly full_name: string;
  readonly role: RoleValue;
  readonly is_active: boolean;
  readonly is_bot: boolean;
  readonly bot_type: BotType | null;
  readonly bot_owner_id: number | null;
  readonly is_imported_stub: boolean;
  readonly date_joined: string;
  readonly timezone: string;
  readonly avatar_source: 'G' | 'U';
  readonly avatar_version: number;
  readonly api_key: string;
  /** Opaque output of the realm's password hasher; null when the user has no usable password. */
  readonly password_hash: string | null;
  readonly settings: UserSettings;
  readonly settings_edited_by_user: readonly string[];
  /** Custom profile field id (as a string) → value (a string, or user ids for the users type). */
  readonly profile_data: Readonly<Record<string, string | readonly number[]>>;
  /**
   * Derived, not exported: past the realm's waiting period at the snapshot's `now`, so a direct
   * member of `role:fullmembers` (Zulip promotes with a daily job; we compute it at load).
   */
  readonly is_full_member: boolean;
}

export const USER_GROUP_SETTING_NAMES = [
  'can_add_members_group',
  'can_join_group',
  'can_leave_group',
  'can_manage_group',
  'can_mention_group',
  'can_remove_members_group',
] as const;
export type UserGroupSettingName = (typeof USER_GROUP_SETTING_NAMES)[number];

export type UserGroup = {
  readonly id: number;
  readonly name: string;
  readonly description: string;
  readonly is_system_group: boolean;
  readonly deactivated: boolean;
  readonly creator_id: number | null;
  readonly date_created: number;
  /** Direct members, sorted. Always empty for system groups: their members follow from roles. */
  readonly members: readonly number[];
  readonly direct_subgroup_ids: readonly number[];
} & { readonly [K in UserGroupSettingName]: GroupSettingValue };

export const CHANNEL_GROUP_SETTING_NAMES = [
  'can_add_subscribers_group',
  'can_administer_channel_group',
  'can_create_topic_group',
  'can_delete_any_message_group',
  'can_delete_own_message_group',
  'can_move_messages_out_of_channel_group',
  'can_move_messages_within_channel_group',
  'can_remove_subscribers_group',
  'can_resolve_topics_group',
  'can_send_message_group',
  'can_subscribe_group',
] as const;
export type ChannelGroupSettingName = (typeof CHANNEL_GROUP_SETTING_NAMES)[number];

export type TopicsPolicy = 'inherit' | 'allow_empty_topic' | 'disable_empty_topic' | 'empty_topic_only';

export type Channel = {
  readonly stream_id: number;
  readonly name: string;
  readonly description: string;
  readonly invite_only: boolean;
  readonly is_web_public: boolean;
  readonly history_public_to_subscribers: boolean;
  /** null: the realm's setting; -1: unlimited. */
  readonly message_retention_days: number | null;
  readonly is_archived: boolean;
  readonly folder_id: number | null;
  readonly topics_policy: TopicsPolicy;
  readonly creator_id: number | null;
  readonly date_created: number;
  /**
   * The secret behind the channel's email addresses (Zulip's ChannelEmailAddress tokens). Absent:
   * derived from the realm and channel ids (src/core/channels/email-address.ts), stable but not secret.
   */
  readonly email_token?: string;
} & { readonly [K in ChannelGroupSettingName]: GroupSettingValue };

export interface ChannelFolder {
  readonly id: number;
  readonly name: string;
  readonly description: string;
  readonly order: number;
  readonly is_archived: boolean;
  readonly creator_id: number | null;
  readonly date_created: number;
}

export const SUBSCRIPTION_NOTIFICATION_PROPERTIES = [
  'desktop_notifications',
  'audible_notifications',
  'push_notifications',
  'email_notifications',
  'wildcard_mentions_notify',
] as const;

export interface Subscription {
  readonly user_id: number;
  readonly stream_id: number;
  /** false: the user was subscribed once and left (Zulip keeps the row). */
  readonly active: boolean;
  readonly color: string;
  readonly is_muted: boolean;
  readonly pin_to_top: boolean;
  readonly desktop_notifications: boolean | null;
  readonly audible_notifications: boolean | null;
  readonly push_notifications: boolean | null;
  readonly email_notifications: boolean | null;
  readonly wildcard_mentions_notify: boolean | null;
}

export const VisibilityPolicy = { inherit: 0, muted: 1, unmuted: 2, followed: 3 } as const;

export interface UserTopic {
  readonly user_id: number;
  readonly stream_id: number;
  readonly topic_name: string;
  readonly visibility_policy: 1 | 2 | 3;
  readonly last_updated: number;
}

export interface ScheduledMessage {
  readonly scheduled_message_id: number;
  readonly sender_id: number;
  readonly type: 'stream' | 'private';
  /** A channel id for `stream`, user ids for `private`. */
  readonly to: number | readonly number[];
  readonly topic: string;
  readonly content: string;
  readonly scheduled_delivery_timestamp: number;
  readonly failed: boolean;
  readonly delivered: boolean;
  readonly read_by_sender: boolean | null;
}

export type CustomProfileFieldType = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8;

export interface CustomProfileField {
  readonly id: number;
  readonly name: string;
  readonly hint: string;
  readonly type: CustomProfileFieldType;
  /** JSON text, as Zulip stores it ("" when the type has no data). */
  readonly field_data: string;
  readonly order: number;
  readonly display_in_profile_summary: boolean;
  readonly required: boolean;
  readonly editable_by_user: boolean;
  readonly use_for_user_matching: boolean;
}

export interface Linkifier {
  readonly id: number;
  readonly pattern: string;
  readonly url_template: string;
  readonly example_input: string | null;
  readonly reverse_template: string | null;
  readonly alternative_url_templates: readonly string[];
}

/**
 * A custom emoji of the organization (Zulip's `RealmEmoji`): uploaded images are outside the
 * engine, so a snapshot declares each emoji with the URL its image is served at.
 */
export interface RealmEmoji {
  readonly id: number;
  readonly name: string;
  readonly source_url: string;
  /** The still image of an animated emoji, else null. */
  readonly still_url: string | null;
  readonly deactivated: boolean;
  readonly author_id: number | null;
}

export interface NavigationView {
  readonly user_id: number;
  readonly fragment: string;
  readonly is_pinned: boolean;
  readonly name: string | null;
}

export interface SavedSnippet {
  readonly id: number;
  readonly user_id: number;
  readonly title: string;
  readonly content: string;
  readonly date_created: number;
}

export interface Draft {
  readonly id: number;
  readonly user_id: number;
  readonly type: 'stream' | 'private' | '';
  readonly to: readonly number[];
  readonly topic: string;
  readonly content: string;
  readonly timestamp: number;
}

export interface PushDevice {
  readonly user_id: number;
  readonly kind: 'fcm' | 'apns';
  readonly token: string;
  readonly ios_app_id: string | null;
  readonly registered_with_bouncer: boolean;
}

export interface BotStorageEntry {
  readonly bot_id: number;
  readonly key: string;
  readonly value: string;
}

export interface PendingEmailChange {
  readonly user_id: number;
  readonly new_email: string;
  readonly requested_at: number;
}

export interface Reaction {
  readonly user_id: number;
  readonly emoji_name: string;
  readonly emoji_code: string;
  readonly reaction_type: 'unicode_emoji' | 'realm_emoji' | 'zulip_extra_emoji';
}

/** One user muted by another (Zulip's `MutedUser`); `date_muted` in UNIX seconds. */
export interface MutedUser {
  readonly id: number;
  readonly timestamp: number;
}

/** A user's status (Zulip's `UserStatus`): the empty text and emoji mean none. */
export interface UserStatus {
  readonly status_text: string;
  readonly emoji_name: string;
  readonly emoji_code: string;
  readonly reaction_type: 'unicode_emoji' | 'realm_emoji' | 'zulip_extra_emoji';
  /** The legacy `away` flag, kept for clients before feature level 148. */
  readonly away: boolean;
}
