/**
 * Every per-user setting that PATCH /settings edits, with the value a new Zulip account gets
 * (Zulip's `UserBaseSettings` defaults). Values are in their API form: enum-by-name settings such as
 * `resolved_topic_notice_auto_read_policy` are kept as their names.
 */
export const USER_SETTING_DEFAULTS = {
  allow_private_data_export: false,
  automatically_follow_topics_policy: 3,
  automatically_follow_topics_where_mentioned: true,
  automatically_unmute_topics_in_muted_streams_policy: 2,
  color_scheme: 1,
  default_language: 'en',
  demote_inactive_streams: 1,
  desktop_icon_count_display: 1,
  display_emoji_reaction_users: true,
  email_address_visibility: 1,
  email_notifications_batching_period_seconds: 120,
  emojiset: 'google',
  enable_desktop_notifications: true,
  enable_digest_emails: true,
  enable_drafts_synchronization: true,
  enable_followed_topic_audible_notifications: true,
  enable_followed_topic_desktop_notifications: true,
  enable_followed_topic_email_notifications: true,
  enable_followed_topic_push_notifications: true,
  enable_followed_topic_wildcard_mentions_notify: true,
  enable_login_emails: true,
  enable_marketing_emails: true,
  enable_offline_email_notifications: true,
  enable_offline_push_notifications: true,
  enable_online_push_notifications: true,
  enable_sounds: true,
  enable_stream_audible_notifications: false,
  enable_stream_desktop_notifications: false,
  enable_stream_email_notifications: false,
  enable_stream_push_notifications: false,
  enter_sends: false,
  fluid_layout_width: false,
  hide_ai_features: false,
  high_contrast_mode: false,
  left_side_userlist: false,
  message_content_in_email_notifications: true,
  notification_sound: 'zulip',
  pm_content_in_desktop_notifications: true,
  presence_enabled: true,
  realm_name_in_email_notifications_policy: 1,
  receives_typing_notifications: true,
  resolved_topic_notice_auto_read_policy: 'except_followed',
  send_private_typing_notifications: true,
  send_read_receipts: true,
  send_stream_typing_notifications: true,
  starred_message_counts: true,
  translate_emoticons: false,
  twenty_four_hour_time: false,
  user_list_style: 3,
  web_animate_image_previews: 'on_hover',
  web_channel_default_view: 1,
  web_escape_navigates_to_home_view: true,
  web_font_size_px: 16,
  web_home_view: 'inbox',
  web_inbox_show_channel_folders: true,
  web_left_sidebar_show_channel_folders: true,
  web_left_sidebar_unreads_count_summary: true,
  web_line_height_percent: 140,
  web_mark_read_on_scroll_policy: 1,
  web_navigate_to_sent_message: true,
  web_stream_unreads_count_display_policy: 2,
  web_suggest_update_timezone: true,
  wildcard_mentions_notify: true,
} as const;

export type UserSettingName = keyof typeof USER_SETTING_DEFAULTS;
type Widen<T> = T extends boolean ? boolean : T extends number ? number : T extends string ? string : never;
export type UserSettings = { readonly [K in UserSettingName]: Widen<(typeof USER_SETTING_DEFAULTS)[K]> };

export const USER_SETTING_NAMES = Object.keys(USER_SETTING_DEFAULTS).sort() as UserSettingName[];

export function isUserSettingName(name: string): name is UserSettingName {
  return Object.prototype.hasOwnProperty.call(USER_SETTING_DEFAULTS, name);
}
