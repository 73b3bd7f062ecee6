import { EMPTY_TOPIC_DISPLAY_NAME, REALM_GROUP_SETTING_NAMES } from '../model/realm';
import { MAX_BULK_NEW_SUBSCRIPTION_MESSAGES } from '../channels/subscribe-events';
import type { User } from '../model/records';
import { settingApiValue } from '../permissions/groups';
import type { RealmState } from '../state';
import { ENGINE_VERSION } from './version';
import {
  DEFAULT_EXTERNAL_ACCOUNTS,
  EMOJI_DATA_PATH,
  GIPHY_RATING_OPTIONS,
  SERVER_CONSTANTS,
  supportedPermissionSettings,
  VIDEO_CHAT_PROVIDERS,
} from './server-constants';

type Dict = Record<string, unknown>;

/** Zulip's legacy policy values by system group (`COMMON_POLICY_TYPES` and its relatives). */
const COMMON = { 'role:members': 1, 'role:administrators': 2, 'role:fullmembers': 3, 'role:moderators': 4 };
const WEB_PUBLIC = { 'role:administrators': 2, 'role:moderators': 4, 'role:nobody': 6, 'role:owners': 7 };
const WILDCARD = {
  'role:everyone': 1,
  'role:members': 2,
  'role:fullmembers': 3,
  'role:administrators': 5,
  'role:nobody': 6,
  'role:moderators': 7,
};

/**
 * Zulip's `get_corresponding_policy_value_for_group_setting`: the legacy value for a system group,
 * else the table's first value (Zulip's fallback for values with no legacy equivalent).
 */
function legacyPolicy(
  state: RealmState,
  value: number | object,
  table: Readonly<Record<string, number>>,
): number {
  const name = typeof value === 'number' ? state.groups.get(value)?.name : undefined;
  return (name !== undefined ? table[name] : undefined) ?? Object.values(table)[0]!;
}

/**
 * The `realm` state type: every realm setting the model holds, under Zulip's `realm_` names, and
 * the server constants clients read (lengths, version, timeouts). Settings the model does not hold
 * (emoji, domains, logos, video chat...) are sent with the values of a new Zulip organization;
 * docs/differences/register.md lists them.
 */
export function realmSection(state: RealmState, _user: User): Dict {
  const r = state.realm;
  const out: Dict = {
    realm_name: r.name,
    realm_description: r.description,
    realm_url: r.uri,
    realm_uri: r.uri,
    realm_default_language: r.default_language,
    realm_waiting_period_threshold: r.waiting_period_threshold,
    realm_name_changes_disabled: r.name_changes_disabled,
    realm_email_changes_disabled: r.email_changes_disabled,
    realm_require_unique_names: r.require_unique_names,
    realm_message_retention_days: r.message_retention_days,
    realm_enable_spectator_access: r.enable_spectator_access,
    realm_topics_policy: r.topics_policy,
    realm_mandatory_topics: r.topics_policy === 'disable_empty_topic',
    realm_empty_topic_display_name: EMPTY_TOPIC_DISPLAY_NAME,
    realm_password_auth_enabled: r.password_auth_enabled,
    realm_email_auth_enabled: r.password_auth_enabled,
    realm_authentication_methods: {
      Email: { enabled: r.password_auth_enabled, available: true },
    },
    realm_push_notifications_enabled: state.server.push_notifications !== 'off',
    realm_push_notifications_enabled_end_timestamp: null,
    realm_allow_message_editing: r.allow_message_editing,
    realm_presence_disabled: r.presence_disabled,
    realm_icon_url: '',
    realm_icon_source: 'G',
    realm_logo_source: 'D',
    realm_logo_url: '',
    realm_night_logo_source: 'D',
    realm_night_logo_url: '',
    realm_bot_domain: /^[a-z][a-z0-9+.-]*:\/\/([^/:?#]+)/i.exec(r.uri)?.[1] ?? 'zulip.invalid',
    realm_date_created: 0,
    realm_org_type: 0,
    realm_plan_type: 1,
    realm_new_stream_announcements_stream_id: -1,
    realm_signup_announcements_stream_id: -1,
    realm_zulip_update_announcements_stream_id: -1,
    realm_moderation_request_channel_id: -1,
    realm_create_public_stream_policy: legacyPolicy(state, r.can_create_public_channel_group, COMMON),
    realm_create_private_stream_policy: legacyPolicy(state, r.can_create_private_channel_group, COMMON),
    realm_create_web_public_stream_policy: legacyPolicy(
      state,
      r.can_create_web_public_channel_group,
      WEB_PUBLIC,
    ),
    realm_wildcard_mention_policy: legacyPolicy(state, r.can_mention_many_users_group, WILDCARD),
    max_stream_name_length: state.server.max_stream_name_length,
    max_stream_description_length: state.server.max_stream_description_length,
    max_topic_length: state.server.max_topic_length,
    max_bulk_new_subscription_messages: MAX_BULK_NEW_SUBSCRIPTION_MESSAGES,
    max_message_length: state.server.max_message_length,
    server_web_public_streams_enabled: state.server.web_public_streams_enabled,
    server_generation: 0,
    development_environment: false,
    zulip_plan_is_not_limited: true,
    event_queue_longpoll_timeout_seconds: 90,
    zulip_version: ENGINE_VERSION,
    ...realmMessageSettings(state),
    ...SERVER_CONSTANTS,
    ...realmConstants(r.uri),
    server_supported_permission_settings: supportedPermissionSettings(),
  };
  for (const name of REALM_GROUP_SETTING_NAMES) out[`realm_${name}`] = settingApiValue(state, r[name]);
  return out;
}

/** The message editing, read receipt and guest settings of the realm (snapshot `realm`). */
function realmMessageSettings(state: RealmState): Dict {
  const r = state.realm;
  return {
    realm_message_content_edit_limit_seconds: r.message_content_edit_limit_seconds,
    realm_message_content_delete_limit_seconds: r.message_content_delete_limit_seconds,
    realm_move_messages_within_stream_limit_seconds: r.move_messages_within_stream_limit_seconds,
    realm_move_messages_between_streams_limit_seconds: r.move_messages_between_streams_limit_seconds,
    realm_message_edit_history_visibility_policy: r.message_edit_history_visibility_policy,
    // Zulip's deprecated boolean, kept beside the policy that replaced it.
    realm_allow_edit_history: r.message_edit_history_visibility_policy !== 'none',
    realm_enable_read_receipts: r.enable_read_receipts,
    realm_enable_guest_user_indicator: r.enable_guest_user_indicator,
    realm_enable_guest_user_dm_warning: r.enable_guest_user_dm_warning,
  };
}

/**
 * Realm settings the model does not hold, with the values of a new Zulip organization on a
 * default server (docs/differences/register.md).
 */
function realmConstants(uri: string): Dict {
  return {
    realm_avatar_changes_disabled: false,
    realm_default_code_block_language: '',
    realm_digest_emails_enabled: false,
    realm_digest_weekday: 1,
    realm_disallow_disposable_email_addresses: true,
    realm_emails_restricted_to_domains: false,
    realm_giphy_rating: GIPHY_RATING_OPTIONS.g.id,
    realm_inline_image_preview: true,
    realm_inline_url_embed_preview: false,
    realm_invite_required: true,
    realm_is_zephyr_mirror_realm: false,
    realm_jitsi_server_url: null,
    realm_message_content_allowed_in_email_notifications: true,
    realm_send_welcome_emails: true,
    realm_upload_quota_mib: null,
    realm_video_chat_provider: VIDEO_CHAT_PROVIDERS.jitsi_meet.id,
    realm_available_video_chat_providers: VIDEO_CHAT_PROVIDERS,
    realm_want_advertise_in_communities_directory: false,
    realm_billing: { has_pending_sponsorship_request: false },
    realm_default_external_accounts: DEFAULT_EXTERNAL_ACCOUNTS,
    giphy_rating_options: GIPHY_RATING_OPTIONS,
    jitsi_server_url: SERVER_CONSTANTS.server_jitsi_server_url,
    server_emoji_data_url: `${uri.replace(/\/+$/, '')}${EMOJI_DATA_PATH}`,
  };
}
