import { EMPTY_TOPIC_DISPLAY_NAME, REALM_GROUP_SETTING_NAMES } from '../model/realm';
import type { User } from '../model/records';
import { settingApiValue } from '../permissions/groups';
import type { RealmState } from '../state';
import { ENGINE_VERSION } from './version';

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
    realm_description: '',
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
    realm_allow_message_editing: true,
    realm_presence_disabled: false,
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
    max_message_length: state.server.max_message_length,
    server_web_public_streams_enabled: state.server.web_public_streams_enabled,
    server_generation: 0,
    development_environment: false,
    zulip_plan_is_not_limited: true,
    event_queue_longpoll_timeout_seconds: 90,
    zulip_version: ENGINE_VERSION,
  };
  for (const name of REALM_GROUP_SETTING_NAMES) out[`realm_${name}`] = settingApiValue(state, r[name]);
  return out;
}
