import type { SettingRule } from '../permissions/setting-rules';
import {
  CHANNEL_SETTING_RULES,
  REALM_SETTING_RULES,
  USER_GROUP_SETTING_RULES,
} from '../permissions/setting-rules';

/**
 * Zulip's server settings and constants as POST /register reports them, with the values of a
 * default installation (zproject/default_settings.py and the models' constants). chat-realm has no
 * uploads, thumbnails, GIPHY, Zoom or summaries: those are reported as switched off.
 */
export const SERVER_CONSTANTS = {
  /** `MAX_FILE_UPLOAD_SIZE`: 0, as a server with uploads disabled (chat-realm stores no files). */
  max_file_upload_size_mib: 0,
  max_avatar_file_size_mib: 5,
  max_icon_file_size_mib: 5,
  max_logo_file_size_mib: 5,
  password_min_length: 6,
  password_max_length: 100,
  password_min_guesses: 10000,
  server_inline_image_preview: true,
  server_inline_url_embed_preview: true,
  server_avatar_changes_disabled: false,
  server_name_changes_disabled: false,
  server_needs_upgrade: false,
  settings_send_digest_emails: true,
  server_presence_ping_interval_seconds: 60,
  server_presence_offline_threshold_seconds: 140,
  server_typing_started_expiry_period_milliseconds: 45000,
  server_typing_stopped_wait_period_milliseconds: 5000,
  server_typing_started_wait_period_milliseconds: 10000,
  server_thumbnail_formats: [] as never[],
  server_can_summarize_topics: false,
  server_min_deactivated_realm_deletion_days: 14,
  server_max_deactivated_realm_deletion_days: null,
  server_jitsi_server_url: 'https://meet.jit.si',
  navigation_tour_video_url: null,
  upgrade_text_for_wide_organization_logo: 'Available on Zulip Cloud Standard. Upgrade to access.',
} as const;

/** Zulip's `Realm.GIPHY_RATING_OPTIONS`. */
export const GIPHY_RATING_OPTIONS = {
  disabled: { name: 'GIPHY integration disabled', id: 0 },
  y: { name: 'Allow GIFs rated Y (Very young audience)', id: 1 },
  g: { name: 'Allow GIFs rated G (General audience)', id: 2 },
  pg: { name: 'Allow GIFs rated PG (Parental guidance)', id: 3 },
  'pg-13': { name: 'Allow GIFs rated PG-13 (Parental guidance - under 13)', id: 4 },
  r: { name: 'Allow GIFs rated R (Restricted)', id: 5 },
} as const;

/** The video chat providers of a server with only the default Jitsi server configured. */
export const VIDEO_CHAT_PROVIDERS = {
  disabled: { name: 'None', id: 0 },
  jitsi_meet: { name: 'Jitsi Meet', id: 1 },
} as const;

/** Zulip's `DEFAULT_EXTERNAL_ACCOUNTS` as `get_default_external_accounts` lists them. */
export const DEFAULT_EXTERNAL_ACCOUNTS = {
  github: {
    text: 'GitHub',
    url_pattern: 'https://github.com/%(username)s',
    name: 'GitHub',
    hint: 'Enter your GitHub username',
  },
  twitter: {
    text: 'Twitter',
    url_pattern: 'https://twitter.com/%(username)s',
    name: 'Twitter',
    hint: 'Enter your Twitter username',
  },
} as const;

/** Where the emoji name data lives (`server_emoji_data_url`), under the realm's URL. */
export const EMOJI_DATA_PATH = '/static/generated/emoji/emoji_api.json';

interface PermissionConfig {
  require_system_group: boolean;
  allow_internet_group: boolean;
  allow_nobody_group: boolean;
  allow_everyone_group: boolean;
  default_group_name: string;
  default_for_system_groups: string | null;
  allowed_system_groups: string[];
}

function config(rule: SettingRule): PermissionConfig {
  return {
    require_system_group: rule.requireSystemGroup,
    allow_internet_group: rule.allowInternet,
    allow_nobody_group: rule.allowNobody,
    allow_everyone_group: rule.allowEveryone,
    default_group_name: rule.default === 'creator' ? 'group_creator' : rule.default,
    default_for_system_groups: null,
    allowed_system_groups: [...(rule.allowedSystemGroups ?? [])],
  };
}

function table(rules: Readonly<Record<string, SettingRule>>): Record<string, PermissionConfig> {
  return Object.fromEntries(Object.entries(rules).map(([name, rule]) => [name, config(rule)]));
}

/** Zulip's `get_server_supported_permission_settings`, from the engine's setting rules. */
export function supportedPermissionSettings(): Record<
  'realm' | 'stream' | 'group',
  Record<string, PermissionConfig>
> {
  return {
    realm: table(REALM_SETTING_RULES),
    stream: table(CHANNEL_SETTING_RULES),
    group: table(USER_GROUP_SETTING_RULES),
  };
}
