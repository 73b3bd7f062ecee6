import { describe, expect, it } from 'vitest';
import { allMessages } from '../../src/core/messages/store';
import type { RealmState } from '../../src/core/state';
import { compareCodePoints } from '../../src/core/text/code-points';
import { basicAuthHeader, handleApiRequest } from '../../src/index';
import { expectValidResponse } from '../support/openapi';
import { cast, devRealm, devSnapshot, realmFromUnknown, testCtx } from '../support/realm';

/**
 * POST /register as the real clients send it, checked against what they read: zulip-flutter
 * (lib/api/route/events.dart: no `event_types`, so every state type; InitialSnapshot's
 * non-nullable fields) and zulip-terminal (zulipterminal/model.py: its `fetch_event_types`,
 * `event_types`, `client_gravatar`, `apply_markdown`, `include_subscribers`, through the Python
 * client, which JSON-encodes every non-string value).
 */

type Kind = 'int' | 'int?' | 'string' | 'string?' | 'bool' | 'list' | 'map' | 'url';
type Body = Record<string, unknown>;

/** Keys a client reads that we do not send yet (none now: every state type they read is sent). */
const ELSEWHERE = new Set<string>();

function isKind(value: unknown, kind: Kind): boolean {
  switch (kind) {
    case 'int':
      return Number.isInteger(value);
    case 'int?':
      return value === null || Number.isInteger(value);
    case 'string':
      return typeof value === 'string';
    case 'string?':
      return value === null || typeof value === 'string';
    case 'bool':
      return typeof value === 'boolean';
    case 'list':
      return Array.isArray(value);
    case 'map':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'url':
      return typeof value === 'string' && URL.canParse(value);
  }
}

function expectKeys(body: Body, keys: Readonly<Record<string, Kind>>): void {
  const wrong: string[] = [];
  for (const [key, kind] of Object.entries(keys)) {
    if (!(key in body)) {
      if (!ELSEWHERE.has(key)) wrong.push(`${key}: missing`);
    } else if (!isKind(body[key], kind)) wrong.push(`${key}: not ${kind} (${JSON.stringify(body[key])})`);
  }
  expect(wrong).toEqual([]);
}

/** zulip-flutter's InitialSnapshot: the fields without a default that may not be null. */
const FLUTTER_KEYS: Readonly<Record<string, Kind>> = {
  queue_id: 'string?',
  last_event_id: 'int',
  zulip_feature_level: 'int',
  zulip_version: 'string',
  zulip_merge_base: 'string',
  alert_words: 'list',
  custom_profile_fields: 'list',
  max_stream_name_length: 'int',
  max_topic_length: 'int',
  server_presence_ping_interval_seconds: 'int',
  server_presence_offline_threshold_seconds: 'int',
  server_typing_started_expiry_period_milliseconds: 'int',
  server_typing_stopped_wait_period_milliseconds: 'int',
  server_typing_started_wait_period_milliseconds: 'int',
  muted_users: 'list',
  presences: 'map',
  realm_emoji: 'map',
  realm_user_groups: 'list',
  recent_private_conversations: 'list',
  saved_snippets: 'list',
  subscriptions: 'list',
  channel_folders: 'list',
  unread_msgs: 'map',
  starred_messages: 'list',
  streams: 'list',
  user_status: 'map',
  user_settings: 'map',
  user_topics: 'list',
  realm_wildcard_mention_policy: 'int',
  realm_topics_policy: 'string',
  realm_mandatory_topics: 'bool',
  realm_name: 'string',
  realm_waiting_period_threshold: 'int',
  realm_message_content_delete_limit_seconds: 'int?',
  realm_allow_message_editing: 'bool',
  realm_message_content_edit_limit_seconds: 'int?',
  realm_enable_read_receipts: 'bool',
  realm_icon_url: 'string',
  realm_presence_disabled: 'bool',
  realm_default_external_accounts: 'map',
  max_file_upload_size_mib: 'int',
  server_thumbnail_formats: 'list',
  server_emoji_data_url: 'url',
  event_queue_longpoll_timeout_seconds: 'int',
  realm_moderation_request_channel_id: 'int?',
  realm_empty_topic_display_name: 'string',
  realm_users: 'list',
  realm_non_active_users: 'list',
  cross_realm_bots: 'list',
};

/** What zulip-terminal reads of its register answer (model.py, ui_tools/messages.py). */
const TERMINAL_KEYS: Readonly<Record<string, Kind>> = {
  zulip_version: 'string',
  zulip_feature_level: 'int',
  queue_id: 'string?',
  last_event_id: 'int',
  max_message_id: 'int',
  subscriptions: 'list',
  muted_topics: 'list',
  realm_user_groups: 'list',
  realm_emoji: 'map',
  user_settings: 'map',
  realm_message_retention_days: 'int',
  presences: 'map',
  realm_users: 'list',
  cross_realm_bots: 'list',
  user_id: 'int',
  email: 'string',
  full_name: 'string',
  realm_name: 'string',
  custom_profile_fields: 'list',
  unread_msgs: 'map',
  starred_messages: 'list',
  realm_allow_message_editing: 'bool',
  realm_allow_edit_history: 'bool',
  realm_message_content_edit_limit_seconds: 'int?',
  max_stream_name_length: 'int',
  max_topic_length: 'int',
  max_message_length: 'int',
  server_typing_started_wait_period_milliseconds: 'int',
  server_typing_stopped_wait_period_milliseconds: 'int',
  server_typing_started_expiry_period_milliseconds: 'int',
  server_presence_offline_threshold_seconds: 'int',
  server_presence_ping_interval_seconds: 'int',
};

/** What flutter's `User.fromJson` requires (lib/api/model/model.g.dart; `is_active` has a fallback). */
const FLUTTER_USER: Readonly<Record<string, Kind>> = {
  user_id: 'int',
  email: 'string',
  full_name: 'string',
  date_joined: 'string',
  is_bot: 'bool',
  role: 'int',
  timezone: 'string',
  avatar_version: 'int',
};
const FLUTTER_CHANNEL: Readonly<Record<string, Kind>> = {
  stream_id: 'int',
  name: 'string',
  description: 'string',
  rendered_description: 'string',
  date_created: 'int',
  invite_only: 'bool',
  is_web_public: 'bool',
  history_public_to_subscribers: 'bool',
};

/**
 * The nested objects flutter decodes with required fields (model.g.dart, initial_snapshot.g.dart):
 * for each list (or map of objects) in the register answer, the keys of each element.
 */
const FLUTTER_NESTED: Readonly<Record<string, Readonly<Record<string, Kind>>>> = {
  realm_users: FLUTTER_USER,
  realm_non_active_users: FLUTTER_USER,
  cross_realm_bots: FLUTTER_USER,
  streams: FLUTTER_CHANNEL,
  subscriptions: { ...FLUTTER_CHANNEL, pin_to_top: 'bool', is_muted: 'bool', color: 'string' },
  realm_user_groups: {
    id: 'int',
    members: 'list',
    direct_subgroup_ids: 'list',
    name: 'string',
    description: 'string',
    is_system_group: 'bool',
  },
  custom_profile_fields: {
    id: 'int',
    type: 'int',
    order: 'int',
    name: 'string',
    hint: 'string',
    field_data: 'string',
  },
  realm_emoji: { id: 'string', name: 'string', source_url: 'string', deactivated: 'bool' },
  recent_private_conversations: { max_message_id: 'int', user_ids: 'list' },
  user_topics: { stream_id: 'int', topic_name: 'string', last_updated: 'int', visibility_policy: 'int' },
  channel_folders: {
    id: 'int',
    name: 'string',
    description: 'string',
    rendered_description: 'string',
    is_archived: 'bool',
  },
  saved_snippets: { id: 'int', title: 'string', content: 'string', date_created: 'int' },
  realm_default_external_accounts: { name: 'string', text: 'string', hint: 'string', url_pattern: 'string' },
};

function expectNested(body: Body, nested: typeof FLUTTER_NESTED): void {
  for (const [key, keys] of Object.entries(nested)) {
    const value = body[key];
    const items = Array.isArray(value) ? value : Object.values(value as Body);
    for (const item of items) expectKeys(item as Body, keys);
  }
  const unread = body['unread_msgs'] as Body;
  for (const s of unread['streams'] as Body[])
    expectKeys(s, { topic: 'string', stream_id: 'int', unread_message_ids: 'list' });
  for (const s of unread['pms'] as Body[])
    expectKeys(s, { other_user_id: 'int', unread_message_ids: 'list' });
  for (const s of unread['huddles'] as Body[])
    expectKeys(s, { user_ids_string: 'string', unread_message_ids: 'list' });
}

function post(realm: RealmState, userId: number, fields: Record<string, unknown>): Body {
  const u = realm.users.get(userId)!;
  // Clients send strings as they are and everything else JSON-encoded.
  const body = new URLSearchParams(
    Object.entries(fields).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  ).toString();
  const r = handleApiRequest(
    realm,
    {
      method: 'POST',
      url: '/api/v1/register',
      headers: { authorization: basicAuthHeader(u.delivery_email, u.api_key) },
      body,
    },
    testCtx(),
  );
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as Body;
}

const FLUTTER = {
  apply_markdown: true,
  client_gravatar: false,
  slim_presence: true,
  client_capabilities: {
    notification_settings_null: true,
    bulk_message_deletion: true,
    user_avatar_url_field_optional: true,
    stream_typing_notifications: true,
    user_settings_object: true,
    include_deactivated_groups: true,
    empty_topic_name: true,
    individual_emoji_changes: true,
  },
};

const TERMINAL = {
  event_types: [
    'message',
    'update_message',
    'reaction',
    'submessage',
    'subscription',
    'typing',
    'update_message_flags',
    'user_settings',
    'realm_emoji',
    'realm_user',
  ],
  narrow: [],
  fetch_event_types: [
    'realm',
    'presence',
    'subscription',
    'message',
    'starred_messages',
    'update_message_flags',
    'muted_topics',
    'realm_user',
    'realm_user_groups',
    'user_settings',
    'realm_emoji',
    'custom_profile_fields',
    'zulip_version',
  ],
  client_gravatar: true,
  apply_markdown: true,
  include_subscribers: true,
};

describe('POST /register as the real clients send it', () => {
  const realm = devRealm();

  it.each([
    ['hamlet', cast.hamlet],
    ['iago', cast.iago],
    ['polonius', cast.polonius],
  ])('zulip-flutter (every state type) as %s: each key it decodes, with its type', (_name, userId) => {
    const body = post(realm, userId, FLUTTER);
    expectKeys(body, FLUTTER_KEYS);
    expectKeys(body['user_settings'] as Body, {
      twenty_four_hour_time: 'bool',
      starred_message_counts: 'bool',
      display_emoji_reaction_users: 'bool',
      emojiset: 'string',
      presence_enabled: 'bool',
    });
    expectKeys(body['unread_msgs'] as Body, {
      count: 'int',
      pms: 'list',
      streams: 'list',
      huddles: 'list',
      mentions: 'list',
      old_unreads_missing: 'bool',
    });
    expectNested(body, FLUTTER_NESTED);
    expect((body['cross_realm_bots'] as Body[]).map((b) => b['full_name'])).toEqual([
      'Email Gateway',
      'Notification Bot',
    ]);
    expectValidResponse('register-queue', 200, body);
  });

  it.each([
    ['hamlet', cast.hamlet],
    ['polonius', cast.polonius],
  ])('zulip-terminal (its fetch_event_types) as %s: each key it reads, with its type', (_name, userId) => {
    const body = post(realm, userId, TERMINAL);
    expectKeys(body, TERMINAL_KEYS);
    for (const s of body['subscriptions'] as Body[]) expect(s).toHaveProperty('subscribers');
    expectValidResponse('register-queue', 200, body);
  });

  it('include_subscribers "partial" sent as a plain string (as the official clients send it)', () => {
    const partial = post(realm, cast.hamlet, { ...TERMINAL, include_subscribers: 'partial' });
    expect(partial).toEqual(post(realm, cast.hamlet, TERMINAL));
    const u = realm.users.get(cast.hamlet)!;
    const bad = handleApiRequest(
      realm,
      {
        method: 'POST',
        url: '/api/v1/register',
        headers: { authorization: basicAuthHeader(u.delivery_email, u.api_key) },
        body: 'include_subscribers=some',
      },
      testCtx(),
    );
    expect(bad.body).toMatchObject({ result: 'error', msg: 'include_subscribers is not valid JSON' });
  });

  it('recent_private_conversations: the conversations of the direct messages held, newest first', () => {
    const body = post(realm, cast.hamlet, { fetch_event_types: ['recent_private_conversations'] });
    const list = body['recent_private_conversations'] as Array<{
      max_message_id: number;
      user_ids: number[];
    }>;
    expect(list.length).toBeGreaterThan(0);
    const ids = list.map((c) => c.max_message_id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    // The same, from every stored message: the newest per conversation Hamlet is part of.
    const newest = new Map<string, number>();
    for (const m of allMessages(realm.messages))
      if (m.participants?.includes(cast.hamlet)) {
        const others = m.participants.filter((p) => p !== cast.hamlet).join(',');
        newest.set(others, Math.max(newest.get(others) ?? 0, m.id));
      }
    expect(list).toEqual(
      [...newest]
        .map(([others, max]) => ({
          max_message_id: max,
          user_ids: others === '' ? [] : others.split(',').map(Number),
        }))
        .sort((a, b) => b.max_message_id - a.max_message_id),
    );
    expect(Object.keys(body).sort()).toEqual([
      'last_event_id',
      'msg',
      'queue_id',
      'recent_private_conversations',
      'result',
      'zulip_feature_level',
      'zulip_merge_base',
      'zulip_version',
    ]);
  });

  it('the realm settings a host sets in the snapshot: edit and delete limits, read receipts, edit history', () => {
    const s = devSnapshot();
    Object.assign(s.realm, {
      message_content_edit_limit_seconds: null,
      message_content_delete_limit_seconds: 3600,
      enable_read_receipts: false,
      message_edit_history_visibility_policy: 'none',
      allow_message_editing: false,
      description: 'The **dev** realm',
    });
    const body = post(realmFromUnknown(s), cast.hamlet, { fetch_event_types: ['realm'] });
    expect(body).toMatchObject({
      realm_message_content_edit_limit_seconds: null,
      realm_message_content_delete_limit_seconds: 3600,
      realm_enable_read_receipts: false,
      realm_message_edit_history_visibility_policy: 'none',
      realm_allow_edit_history: false,
      realm_allow_message_editing: false,
      realm_description: 'The **dev** realm',
    });
    const defaults = post(realm, cast.hamlet, { fetch_event_types: ['realm'] });
    expect(defaults).toMatchObject({
      realm_message_content_edit_limit_seconds: 600,
      realm_message_content_delete_limit_seconds: 600,
      realm_enable_read_receipts: true,
      realm_allow_edit_history: true,
    });
  });

  it('no legacy top-level settings at feature level 496 (Zulip removed them at 439), even without user_settings_object', () => {
    const body = post(realm, cast.hamlet, {});
    for (const k of ['twenty_four_hour_time', 'enter_sends', 'emojiset_choices', 'enable_sounds', 'timezone'])
      expect(body).not.toHaveProperty(k);
    expect(body['user_settings']).toHaveProperty('twenty_four_hour_time');
  });

  it('channel lists in Python code-point order by name (upper case first); archived channels left out of GET /users/me/subscriptions', () => {
    const u = realm.users.get(cast.iago)!;
    const auth = { authorization: basicAuthHeader(u.delivery_email, u.api_key) };
    const body = post(realm, cast.iago, { include_subscribers: false });
    for (const key of ['subscriptions', 'unsubscribed', 'never_subscribed', 'streams']) {
      const names = (body[key] as Body[]).map((s) => String(s['name']));
      expect(names, key).toEqual([...names].sort(compareCodePoints));
    }
    const subs = handleApiRequest(
      realm,
      { method: 'GET', url: '/api/v1/users/me/subscriptions', headers: auth },
      testCtx(),
    );
    const listed = (subs.body as unknown as { subscriptions: Body[] }).subscriptions;
    expect(listed.length).toBeGreaterThan(0);
    for (const s of listed) expect(s['is_archived']).toBe(false);
    const names = listed.map((s) => String(s['name']));
    expect(names).toEqual([...names].sort(compareCodePoints));
    expectValidResponse('get-subscriptions', 200, subs.body);
    const streams = handleApiRequest(
      realm,
      { method: 'GET', url: '/api/v1/streams', headers: auth },
      testCtx(),
    );
    const streamNames = (streams.body as unknown as { streams: Body[] }).streams.map((s) =>
      String(s['name']),
    );
    expect(streamNames).toEqual([...streamNames].sort(compareCodePoints));
  });

  it('GET /streams include_default adds the default channels', () => {
    const u = realm.users.get(cast.hamlet)!;
    const auth = { authorization: basicAuthHeader(u.delivery_email, u.api_key) };
    const get = (q: string) =>
      (
        handleApiRequest(realm, { method: 'GET', url: `/api/v1/streams?${q}`, headers: auth }, testCtx())
          .body as unknown as { streams: Body[] }
      ).streams.map((s) => Number(s['stream_id']));
    const none = 'include_public=false&include_subscribed=false';
    expect(get(none)).toEqual([]);
    expect(get(`${none}&include_default=true`).sort()).toEqual([...realm.defaultChannelIds.keys()].sort());
  });

  it('compareCodePoints is Python order: upper case first, astral after every BMP character', () => {
    expect(['b', 'B', 'a', 'A', '\u{1F600}', '\uFFFD'].sort(compareCodePoints)).toEqual([
      'A',
      'B',
      'a',
      'b',
      '\uFFFD',
      '\u{1F600}',
    ]);
  });
});
