import * as z from 'zod/mini';
import { param, rawParam, zulipIssue, type ParamSpec } from '../../core/params';
import { isUserSettingName, type UserSettingName } from '../../core/model/user-settings';
import { isKnownTimezone } from '../../core/users/timezones';

/**
 * The parameters of PATCH /settings, as Zulip's `json_change_settings` declares them. Zulip lists
 * its keyword parameters alphabetically, and parses them in that order, so when two are invalid
 * the alphabetically first one is reported.
 */

const NOT_IN_LIST = 'Invalid {var}: Value error, Not in the list of possible values';

/** JSON integers restricted to a list (`check_int_in_validator`). */
const INT_CHOICES: Partial<Record<UserSettingName, readonly number[]>> = {
  automatically_follow_topics_policy: [1, 2, 3, 4],
  automatically_unmute_topics_in_muted_streams_policy: [1, 2, 3, 4],
  color_scheme: [1, 2, 3],
  demote_inactive_streams: [1, 2, 3],
  desktop_icon_count_display: [1, 2, 3, 4],
  email_address_visibility: [1, 2, 3, 4, 5],
  realm_name_in_email_notifications_policy: [1, 2, 3],
  user_list_style: [1, 2, 3],
  // Zulip's WEB_CHANNEL_DEFAULT_VIEW_CHOICES lists all four views (1 first topic, 3 topic list,
  // 2 channel feed, 4 top unread topic); see docs/differences/settings.md.
  web_channel_default_view: [1, 2, 3, 4],
  web_mark_read_on_scroll_policy: [1, 2, 3],
  web_stream_unreads_count_display_policy: [1, 2, 3],
};

/** Plain-string settings restricted to a list (`check_string_in_validator`). */
const STRING_CHOICES: Partial<Record<UserSettingName, readonly string[]>> = {
  emojiset: ['google', 'twitter', 'text'],
  web_animate_image_previews: ['always', 'on_hover', 'never'],
  // FL 454 renamed `recent_topics` to `recent`; both spellings are accepted and stored as `recent`.
  web_home_view: ['recent', 'recent_topics', 'inbox', 'all_messages'],
};

/** The enum Zulip parses by member name (`parse_enum_from_string_value`). */
export const RESOLVED_TOPIC_NOTICE_POLICIES = ['always', 'except_followed', 'never'] as const;

/** Integer settings without a list (the batching period is range-checked later, by the view). */
const FREE_INTS: ReadonlySet<UserSettingName> = new Set([
  'email_notifications_batching_period_seconds',
  'web_font_size_px',
  'web_line_height_percent',
]);

/** Plain strings the view validates itself, after parsing. */
const RAW_STRINGS: ReadonlySet<UserSettingName> = new Set(['default_language', 'notification_sound']);

const intIn = (choices: readonly number[]) =>
  z.int().check(
    z.superRefine((n, ctx) => {
      if (!choices.includes(n)) zulipIssue(ctx, NOT_IN_LIST);
    }),
  );

const stringIn = (choices: readonly string[]) =>
  z.string().check(
    z.superRefine((s, ctx) => {
      if (!choices.includes(s)) zulipIssue(ctx, NOT_IN_LIST);
    }),
  );

const resolvedTopicPolicy = z.string().check(
  z.superRefine((s, ctx) => {
    if (!(RESOLVED_TOPIC_NOTICE_POLICIES as readonly string[]).includes(s)) zulipIssue(ctx, 'Invalid {var}');
  }),
);

const timezone = z.string().check(
  z.superRefine((s, ctx) => {
    if (!isKnownTimezone(s)) zulipIssue(ctx, 'Invalid {var}: Value error, Not a recognized time zone');
  }),
);

export interface TargetUsers {
  readonly user_ids: readonly number[];
  readonly group_ids: readonly number[];
  readonly skip_if_already_edited: boolean;
}

/**
 * `Json[TargetUsersData]`: a pydantic model with `user_ids: list[int] = []`, `group_ids: list[int] = []`
 * and a required `skip_if_already_edited: bool`, validated field by field in that order, then a model
 * validator whose JsonableError reaches the client unwrapped. Unknown keys are ignored.
 */
const targetUsers = z.pipe(
  z.unknown(),
  z.transform((value, ctx): TargetUsers => {
    const fail = (message: string) => {
      zulipIssue(ctx, message);
      return z.NEVER;
    };
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return fail('{var} does not have the expected format');
    const record = value as Record<string, unknown>;
    const ids = (key: 'user_ids' | 'group_ids'): number[] | string => {
      const list = Object.prototype.hasOwnProperty.call(record, key) ? record[key] : [];
      if (!Array.isArray(list)) return `{var}["${key}"] is not a list`;
      const bad = list.findIndex((x) => typeof x !== 'number' || !Number.isSafeInteger(x));
      return bad >= 0 ? `{var}["${key}"][${bad}] is not an integer` : (list as number[]);
    };
    const userIds = ids('user_ids');
    if (typeof userIds === 'string') return fail(userIds);
    const groupIds = ids('group_ids');
    if (typeof groupIds === 'string') return fail(groupIds);
    if (!Object.prototype.hasOwnProperty.call(record, 'skip_if_already_edited')) {
      return fail('{var}["skip_if_already_edited"] field is missing: Field required');
    }
    const skip = record['skip_if_already_edited'];
    if (typeof skip !== 'boolean') return fail('{var}["skip_if_already_edited"] is not a boolean');
    if (userIds.length === 0 && groupIds.length === 0)
      return fail('Either user_ids or group_ids must be provided.');
    return { user_ids: userIds, group_ids: groupIds, skip_if_already_edited: skip };
  }),
);

function settingSpec(name: UserSettingName, sample: unknown): ParamSpec {
  const ints = INT_CHOICES[name];
  if (ints) return param(name, intIn(ints));
  const strings = STRING_CHOICES[name];
  if (strings) return rawParam(name, stringIn(strings));
  if (name === 'resolved_topic_notice_auto_read_policy') return rawParam(name, resolvedTopicPolicy);
  if (FREE_INTS.has(name)) return param(name, z.int());
  if (RAW_STRINGS.has(name)) return rawParam(name, z.string());
  if (typeof sample === 'boolean') return param(name, z.boolean());
  // A setting added to the defaults without a rule here: its type, unrestricted.
  return typeof sample === 'number' ? param(name, z.int()) : rawParam(name, z.string());
}

/**
 * Zulip's declaration order (its signature is alphabetical except that `high_contrast_mode` comes
 * before `hide_ai_features`). It decides which invalid parameter is reported, and the order in
 * which changed settings are applied and announced.
 */
export const PARAM_ORDER = [
  'allow_private_data_export',
  'automatically_follow_topics_policy',
  'automatically_follow_topics_where_mentioned',
  'automatically_unmute_topics_in_muted_streams_policy',
  'color_scheme',
  'default_language',
  'demote_inactive_streams',
  'desktop_icon_count_display',
  'display_emoji_reaction_users',
  'email',
  'email_address_visibility',
  'email_notifications_batching_period_seconds',
  'emojiset',
  'enable_desktop_notifications',
  'enable_digest_emails',
  'enable_drafts_synchronization',
  'enable_followed_topic_audible_notifications',
  'enable_followed_topic_desktop_notifications',
  'enable_followed_topic_email_notifications',
  'enable_followed_topic_push_notifications',
  'enable_followed_topic_wildcard_mentions_notify',
  'enable_login_emails',
  'enable_marketing_emails',
  'enable_offline_email_notifications',
  'enable_offline_push_notifications',
  'enable_online_push_notifications',
  'enable_sounds',
  'enable_stream_audible_notifications',
  'enable_stream_desktop_notifications',
  'enable_stream_email_notifications',
  'enable_stream_push_notifications',
  'enter_sends',
  'fluid_layout_width',
  'full_name',
  'high_contrast_mode',
  'hide_ai_features',
  'left_side_userlist',
  'message_content_in_email_notifications',
  'new_password',
  'notification_sound',
  'old_password',
  'pm_content_in_desktop_notifications',
  'presence_enabled',
  'realm_name_in_email_notifications_policy',
  'receives_typing_notifications',
  'resolved_topic_notice_auto_read_policy',
  'send_private_typing_notifications',
  'send_read_receipts',
  'send_stream_typing_notifications',
  'starred_message_counts',
  'target_users',
  'timezone',
  'translate_emoticons',
  'twenty_four_hour_time',
  'user_list_style',
  'web_animate_image_previews',
  'web_channel_default_view',
  'web_escape_navigates_to_home_view',
  'web_font_size_px',
  'web_home_view',
  'web_inbox_show_channel_folders',
  'web_left_sidebar_show_channel_folders',
  'web_left_sidebar_unreads_count_summary',
  'web_line_height_percent',
  'web_mark_read_on_scroll_policy',
  'web_navigate_to_sent_message',
  'web_stream_unreads_count_display_policy',
  'web_suggest_update_timezone',
  'wildcard_mentions_notify',
] as const;

const ACCOUNT_PARAMS: Readonly<Record<string, ParamSpec>> = {
  email: rawParam('email', z.string()),
  full_name: rawParam('full_name', z.string()),
  new_password: rawParam('new_password', z.string()),
  old_password: rawParam('old_password', z.string()),
  target_users: param('target_users', targetUsers),
  timezone: rawParam('timezone', timezone),
};

/** Every parameter, in Zulip's declaration order. */
export function settingsParams(defaults: Readonly<Record<UserSettingName, unknown>>): ParamSpec[] {
  return PARAM_ORDER.map(
    (name) => ACCOUNT_PARAMS[name] ?? settingSpec(name as UserSettingName, defaults[name as UserSettingName]),
  );
}

/** The settings (not account fields), in Zulip's order: the order changes are applied in. */
export const SETTING_ORDER: readonly UserSettingName[] = PARAM_ORDER.filter(
  (name): name is UserSettingName & (typeof PARAM_ORDER)[number] => isUserSettingName(name),
);

/** Settings an administrator may not change for other users (Zulip's SECURITY_SENSITIVE_USER_SETTINGS). */
export const SECURITY_SENSITIVE_SETTINGS: ReadonlySet<string> = new Set([
  'allow_private_data_export',
  'email_address_visibility',
  'enable_digest_emails',
  'enable_login_emails',
  'enable_marketing_emails',
  'presence_enabled',
  'send_private_typing_notifications',
  'send_read_receipts',
  'send_stream_typing_notifications',
]);

/** The value stored for a requested one: the legacy home view name is stored under its new name. */
export function storedValue(name: UserSettingName, value: unknown): unknown {
  return name === 'web_home_view' && value === 'recent_topics' ? 'recent' : value;
}
