import { scheduledMessageForApi } from '../../ops/scheduled/format';
import { FLAG_BITS } from '../messages/flags';
import { someRowHas, starredIn } from '../messages/row-summary';
import { USER_SETTING_NAMES } from '../model/user-settings';
import type { User } from '../model/records';
import { isGuest } from '../permissions/roles';
import type { RealmState } from '../state';
import { fieldsInOrder, formatCustomProfileField } from '../users/custom-profile-fields';
import { canonicalizeTimezone } from '../users/timezones';
import { renderMarkdown } from '../markdown';
import type { NotificationDefaults } from '../channels/stream-dict';
import { subscriptionLists, streamsFor } from './channels';
import { capabilities, wantFunction, type RegisterOptions } from './options';
import { realmSection } from './realm';
import { unreadMsgs } from './unread';
import { userGroups } from './user-groups';
import { realmBots, realmUserSection } from './users';
import { ENGINE_FEATURE_LEVEL } from '../model/realm';
import { ENGINE_MERGE_BASE, ENGINE_VERSION } from './version';
import { otherState } from './other-state';
import { everydaySection } from './everyday';

/** The feature level at which Zulip removed the legacy top-level user settings from register. */
export const LEGACY_SETTINGS_REMOVED = 439;

type Dict = Record<string, unknown>;

/** Zulip's `CustomProfileField.ALL_FIELD_TYPES` as register lists them. */
const CUSTOM_PROFILE_FIELD_TYPES = {
  SHORT_TEXT: { id: 1, name: 'Text (short)' },
  LONG_TEXT: { id: 2, name: 'Text (long)' },
  SELECT: { id: 3, name: 'List of options' },
  DATE: { id: 4, name: 'Date picker' },
  URL: { id: 5, name: 'Link' },
  USER: { id: 6, name: 'Users' },
  EXTERNAL_ACCOUNT: { id: 7, name: 'External account' },
  PRONOUNS: { id: 8, name: 'Pronouns' },
} as const;

/** Zulip's `UserProfile.display_settings_legacy` and `notification_settings_legacy`. */
const LEGACY_DISPLAY = [
  'color_scheme',
  'default_language',
  'demote_inactive_streams',
  'emojiset',
  'enter_sends',
  'fluid_layout_width',
  'high_contrast_mode',
  'left_side_userlist',
  'starred_message_counts',
  'translate_emoticons',
  'twenty_four_hour_time',
  'web_home_view',
] as const;
const LEGACY_NOTIFICATIONS = [
  'email_notifications_batching_period_seconds',
  'enable_desktop_notifications',
  'enable_digest_emails',
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
  'message_content_in_email_notifications',
  'notification_sound',
  'pm_content_in_desktop_notifications',
  'presence_enabled',
  'realm_name_in_email_notifications_policy',
  'wildcard_mentions_notify',
] as const;

const EMOJISET_CHOICES = [
  { key: 'google', text: 'Google' },
  { key: 'twitter', text: 'Twitter' },
  { key: 'text', text: 'Plain text' },
];
const NOTIFICATION_SOUNDS = ['chime-sequence', 'ding', 'zulip'];

/**
 * The initial state of POST /register for `userId` (Zulip's `fetch_initial_state_data` and
 * `post_process_state`), without `queue_id` and `last_event_id` (the host's queue adds them).
 * Pure: the same state and options give the same object. Covers every state type the operations
 * read or change; types the model does not hold (presence, emoji, alert words...) are left out
 * unless listed in docs/differences/register.md. `now` (UNIX seconds) feeds the channels'
 * `is_recently_active`.
 *
 * @example
 * ```ts
 * const state = registerState(realm, 4, { event_types: ['subscription', 'update_message_flags', 'message'] });
 * expect(state['subscriptions']).toContainEqual(expect.objectContaining({ name: 'Verona' }));
 * expect(state).toHaveProperty('unread_msgs.count');
 * expect(state).not.toHaveProperty('realm_users');
 * ```
 */
export function registerState(
  state: RealmState,
  userId: number,
  options: RegisterOptions = {},
  now = 0,
): Dict {
  const me = state.users.get(userId);
  if (me === undefined) throw new RangeError(`registerState: no user ${userId}`);
  const want = wantFunction(options);
  const caps = capabilities(options);
  const clientGravatar = options.client_gravatar ?? true;
  const out: Dict = {
    zulip_version: ENGINE_VERSION,
    zulip_feature_level: state.server.feature_level ?? ENGINE_FEATURE_LEVEL,
    zulip_merge_base: ENGINE_MERGE_BASE,
  };

  if (want('custom_profile_fields')) {
    out['custom_profile_fields'] = fieldsInOrder(state).map(formatCustomProfileField);
    out['custom_profile_field_types'] = CUSTOM_PROFILE_FIELD_TYPES;
  }
  if (want('message')) out['max_message_id'] = maxMessageId(state, userId);
  if (want('saved_snippets'))
    out['saved_snippets'] = [...state.savedSnippets.values()]
      .filter((s) => s.user_id === userId)
      .map((s) => ({ id: s.id, title: s.title, content: s.content, date_created: s.date_created }));
  if (want('navigation_views'))
    out['navigation_views'] = (state.navigationViews.get(userId) ?? []).map((v) => ({
      fragment: v.fragment,
      is_pinned: v.is_pinned,
      name: v.name,
    }));
  if (want('drafts'))
    out['drafts'] = [...state.drafts.values()]
      .filter((d) => d.user_id === userId)
      .sort((a, b) => b.timestamp - a.timestamp)
      .map((d) => ({
        id: d.id,
        type: d.type,
        to: [...d.to],
        topic: d.topic,
        content: d.content,
        timestamp: d.timestamp,
      }));
  if (want('scheduled_messages'))
    out['scheduled_messages'] = [...state.scheduledMessages.values()]
      .filter((m) => m.sender_id === userId && !m.delivered)
      .sort((a, b) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp)
      .map(scheduledMessageForApi);
  if (want('muted_topics') && (options.event_types == null || !want('user_topic')))
    out['muted_topics'] = mutedTopics(state, userId);
  if (want('realm_user_groups'))
    out['realm_user_groups'] = userGroups(state, caps.include_deactivated_groups);
  if (want('realm')) Object.assign(out, realmSection(state, me));
  if (want('realm_linkifiers'))
    out['realm_linkifiers'] = caps.linkifier_url_template
      ? state.linkifiers.map((l) => ({ id: l.id, pattern: l.pattern, url_template: l.url_template }))
      : [];
  if (want('realm_filters')) out['realm_filters'] = [];
  if (want('realm_user'))
    Object.assign(
      out,
      realmUserSection(state, me, { clientGravatar, userListIncomplete: caps.user_list_incomplete }),
    );
  if (want('realm_bot')) out['realm_bots'] = realmBots(state, me);
  if (want('subscription')) {
    const lists = subscriptionLists(state, me, {
      includeSubscribers: options.include_subscribers ?? false,
      archived: caps.archived_channels,
      now,
      nullAs: caps.notification_settings_null ? null : legacyNotifications(me),
    });
    Object.assign(out, lists);
  }
  if (want('channel_folders'))
    out['channel_folders'] = [...state.channelFolders.values()]
      .sort((a, b) => a.order - b.order || a.id - b.id)
      .map((f) => ({
        id: f.id,
        name: f.name,
        description: f.description,
        rendered_description: renderMarkdown(f.description),
        order: f.order,
        creator_id: f.creator_id,
        date_created: f.date_created,
        is_archived: f.is_archived,
      }));
  if (want('update_message_flags') && want('message'))
    out['unread_msgs'] = unreadMsgs(state, userId, caps.empty_topic_name);
  if (want('starred_messages')) out['starred_messages'] = starred(state, userId);
  if (want('stream'))
    out['streams'] = streamsFor(
      state,
      me,
      { include_web_public: true, exclude_archived: !caps.archived_channels, include_all: true },
      now,
      true,
    );
  if (want('default_streams'))
    out['realm_default_streams'] = isGuest(me) ? [] : [...state.defaultChannelIds.keys()];
  // Zulip stopped sending the legacy top-level settings at feature level 439 (zulip-terminal's
  // model.py: "removed from the top-level object in ZFL 439"); older levels keep Zulip's rule.
  const legacySettings =
    !caps.user_settings_object && (out['zulip_feature_level'] as number) < LEGACY_SETTINGS_REMOVED;
  if (want('update_display_settings') && legacySettings) {
    for (const p of LEGACY_DISPLAY) out[p] = me.settings[p];
    out['emojiset_choices'] = EMOJISET_CHOICES;
    out['timezone'] = canonicalizeTimezone(me.timezone);
  }
  if (want('update_global_notifications') && legacySettings) {
    for (const p of LEGACY_NOTIFICATIONS) out[p] = me.settings[p];
    out['available_notification_sounds'] = NOTIFICATION_SOUNDS;
  }
  if (want('user_settings')) {
    const settings: Dict = {};
    for (const p of USER_SETTING_NAMES) settings[p] = me.settings[p];
    settings['emojiset_choices'] = EMOJISET_CHOICES;
    settings['timezone'] = canonicalizeTimezone(me.timezone);
    settings['available_notification_sounds'] = NOTIFICATION_SOUNDS;
    out['user_settings'] = settings;
  }
  Object.assign(out, otherState(state, me, want));
  if (want('user_topic'))
    out['user_topics'] = (state.userTopics.get(userId) ?? []).map((t) => ({
      stream_id: t.stream_id,
      topic_name: t.topic_name === '' && !caps.empty_topic_name ? 'general chat' : t.topic_name,
      visibility_policy: t.visibility_policy,
      last_updated: t.last_updated,
    }));
  Object.assign(out, everydaySection(state, me, want, options, now));
  return out;
}

/** Zulip's `max_message_id_for_user`: the user's newest UserMessage row, or -1. */
function maxMessageId(state: RealmState, userId: number): number {
  const rows = state.messages.rows.get(userId);
  const last = rows?.chunks[rows.chunks.length - 1];
  return last === undefined || last.ids.length === 0 ? -1 : last.ids[last.ids.length - 1]!;
}

/** How many chunks' starred lists `starred` joins per call of `concat`. */
const STARRED_GROUP = 4096;

/** Zulip's `starred_messages`: the user's starred message ids, ascending. */
function starred(state: RealmState, userId: number): number[] {
  const rows = state.messages.rows.get(userId);
  if (rows === undefined) return [];
  const lists: Array<readonly number[]> = [];
  const chunks = rows.chunks;
  for (let c = 0; c < chunks.length; c++)
    if (someRowHas(chunks, c, FLAG_BITS.starred)) lists.push(starredIn(chunks, c));
  // Copied into an array of the exact length, packed (which `JSON.stringify` walks fastest), rather
  // than grown by pushes that leave each outgrown store behind; in groups, so that no call gets more
  // arguments than an engine takes (a user with a hundred million rows has 50,000 chunks).
  let out: number[] = [];
  for (let i = 0; i < lists.length; i += STARRED_GROUP)
    out = out.concat(...lists.slice(i, i + STARRED_GROUP));
  return out;
}

/** The legacy `muted_topics` (Zulip's `get_topic_mutes`): muted topics of unarchived channels. */
function mutedTopics(state: RealmState, userId: number): Array<[string, string, number]> {
  const out: Array<[string, string, number]> = [];
  for (const t of state.userTopics.get(userId) ?? []) {
    const channel = state.channels.get(t.stream_id);
    if (t.visibility_policy === 1 && channel && !channel.is_archived)
      out.push([channel.name, t.topic_name, t.last_updated]);
  }
  return out;
}

/**
 * Zulip's `handle_stream_notifications_compatibility` for clients without
 * `notification_settings_null`: a null channel notification setting becomes the user's global one
 * (applied as each subscription's dict is built).
 */
function legacyNotifications(me: User): NotificationDefaults {
  return {
    desktop_notifications: me.settings.enable_stream_desktop_notifications,
    audible_notifications: me.settings.enable_stream_audible_notifications,
    push_notifications: me.settings.enable_stream_push_notifications,
    email_notifications: me.settings.enable_stream_email_notifications,
    wildcard_mentions_notify: me.settings.wildcard_mentions_notify,
  };
}
