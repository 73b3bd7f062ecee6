import type { GroupSettingValue, SystemGroupName } from './group-setting';

export type PushNotificationsMode = 'off' | 'direct' | 'bouncer';

export interface ServerSettings {
  readonly feature_level: number;
  readonly web_public_streams_enabled: boolean;
  readonly push_notifications: PushNotificationsMode;
  readonly max_stream_name_length: number;
  readonly max_stream_description_length: number;
  readonly max_topic_length: number;
  readonly max_message_length: number;
  /**
   * Zulip's EMAIL_GATEWAY_PATTERN: where channel email addresses go, `%s` standing for the
   * address's local part (e.g. `%s@chat.example.com`). "" (Zulip's production default): no gateway,
   * and GET /streams/{stream_id}/email_address answers an empty address, as Zulip does.
   */
  readonly email_gateway_pattern: string;
  /**
   * The user ids of Zulip's system bots (Notification Bot, Email Gateway, Welcome Bot: Zulip's
   * CROSS_REALM_BOT_EMAILS), which live outside the organization. They are listed in register's
   * `cross_realm_bots`; the defaults sit at the top of the int32 range so that they never meet a
   * realm user's id.
   */
  readonly notification_bot_id: number;
  readonly email_gateway_bot_id: number;
  readonly welcome_bot_id: number;
}

/** The newest feature level whose behaviour the engine follows (the seed goes up to 496). */
export const ENGINE_FEATURE_LEVEL = 496;

export const SERVER_DEFAULTS: ServerSettings = {
  feature_level: ENGINE_FEATURE_LEVEL,
  web_public_streams_enabled: true,
  push_notifications: 'off',
  max_stream_name_length: 60,
  max_stream_description_length: 1024,
  max_topic_length: 60,
  max_message_length: 10000,
  email_gateway_pattern: '',
  notification_bot_id: 2147483645,
  email_gateway_bot_id: 2147483646,
  welcome_bot_id: 2147483647,
};

/** Realm-level group permission settings and the system group a new organization gets. */
export const REALM_GROUP_SETTING_DEFAULTS = {
  can_access_all_users_group: 'role:everyone',
  can_add_custom_emoji_group: 'role:members',
  can_add_subscribers_group: 'role:members',
  can_create_bots_group: 'role:members',
  can_create_groups: 'role:members',
  can_create_private_channel_group: 'role:members',
  can_create_public_channel_group: 'role:members',
  can_create_web_public_channel_group: 'role:owners',
  can_create_write_only_bots_group: 'role:members',
  can_delete_any_message_group: 'role:administrators',
  can_delete_own_message_group: 'role:everyone',
  can_invite_users_group: 'role:members',
  can_manage_all_groups: 'role:owners',
  can_manage_billing_group: 'role:administrators',
  can_mention_many_users_group: 'role:administrators',
  can_move_messages_between_channels_group: 'role:members',
  can_move_messages_between_topics_group: 'role:everyone',
  can_resolve_topics_group: 'role:everyone',
  can_set_delete_message_policy_group: 'role:moderators',
  can_set_topics_policy_group: 'role:moderators',
  can_summarize_topics_group: 'role:everyone',
  create_multiuse_invite_group: 'role:administrators',
  direct_message_initiator_group: 'role:everyone',
  direct_message_permission_group: 'role:everyone',
} as const satisfies Record<string, SystemGroupName>;

export type RealmGroupSettingName = keyof typeof REALM_GROUP_SETTING_DEFAULTS;
export const REALM_GROUP_SETTING_NAMES = Object.keys(
  REALM_GROUP_SETTING_DEFAULTS,
).sort() as RealmGroupSettingName[];

export type RealmSettings = {
  readonly id: number;
  readonly string_id: string;
  readonly name: string;
  readonly uri: string;
  readonly deactivated: boolean;
  readonly enable_spectator_access: boolean;
  readonly topics_policy: 'allow_empty_topic' | 'disable_empty_topic';
  readonly waiting_period_threshold: number;
  readonly name_changes_disabled: boolean;
  readonly email_changes_disabled: boolean;
  readonly require_unique_names: boolean;
  /** -1: unlimited. */
  readonly message_retention_days: number;
  readonly default_language: string;
  readonly password_auth_enabled: boolean;
} & RealmMessageSettings & { readonly [K in RealmGroupSettingName]: GroupSettingValue };

/**
 * Message editing, moving and deletion limits (Zulip's `Realm` fields of the same names); a limit
 * of `null` means no limit.
 */
export interface MessageEditSettings {
  readonly allow_message_editing: boolean;
  readonly message_content_edit_limit_seconds: number | null;
  readonly message_content_delete_limit_seconds: number | null;
  readonly move_messages_within_stream_limit_seconds: number | null;
  readonly move_messages_between_streams_limit_seconds: number | null;
  readonly message_edit_history_visibility_policy: 'all' | 'moves' | 'none';
}

/**
 * The other realm settings POST /register reads that no operation changes yet (read receipts,
 * guest indicators...): a host sets them in the snapshot.
 */
export interface RealmMessageSettings extends MessageEditSettings {
  readonly description: string;
  readonly enable_read_receipts: boolean;
  readonly enable_guest_user_indicator: boolean;
  readonly enable_guest_user_dm_warning: boolean;
  readonly presence_disabled: boolean;
}

/** Zulip's defaults for a new organization (10 minutes to edit or delete, a week to move). */
export const MESSAGE_EDIT_DEFAULTS: MessageEditSettings = {
  allow_message_editing: true,
  message_content_edit_limit_seconds: 600,
  message_content_delete_limit_seconds: 600,
  move_messages_within_stream_limit_seconds: 604800,
  move_messages_between_streams_limit_seconds: 604800,
  message_edit_history_visibility_policy: 'all',
};

/** Zulip's values for a new organization (`Realm` model defaults, `do_create_realm`). */
export const REALM_MESSAGE_SETTING_DEFAULTS: RealmMessageSettings = {
  ...MESSAGE_EDIT_DEFAULTS,
  description: '',
  enable_read_receipts: true,
  enable_guest_user_indicator: true,
  enable_guest_user_dm_warning: true,
  presence_disabled: false,
};

/** The realm's display name for the empty topic (Zulip's `realm_empty_topic_display_name`). */
export const EMPTY_TOPIC_DISPLAY_NAME = 'general chat';
