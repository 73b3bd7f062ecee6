import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Actor, DefinedOperation } from '../../src/core/operation';
import type { RealmState } from '../../src/core/state';
import * as ops from '../../src/ops/index';
import { basicAuthHeader } from '../../src/wire/auth';
import { handleApiRequest } from '../../src/wire/handle';
import { devRealm, testCtx } from '../support/realm';
import { fcParams } from './runs';
import { ACTOR_KINDS, actorsByKind, arbActor, arbRealmCase, kindOf, type ActorKind } from './shapes';
import { loose } from '../support/loose';

/**
 * The permission matrix: for every operation, a representative valid request on the dev realm, and
 * for every kind of actor whether Zulip allows it — a table written from the reference digests
 * (zulip-ops-1-7.md, zulip-ops-8-20.md), not from the code. Each cell is checked through the
 * library and through the wire, and a refused actor never changes anything.
 *
 * Kinds on the dev realm: owner desdemona, admin iago, moderator shiva, member cordelia,
 * provisional aaron, guest polonius, bot default-bot (owned by hamlet), botOwner hamlet,
 * deactivated ex-employee, anonymous (no credentials).
 */
const state = devRealm();
const actors = actorsByKind(state);
const VERONA_MESSAGE = 101;

type Kinds = readonly ActorKind[];
const ALL_ACTIVE: Kinds = [
  'owner',
  'admin',
  'moderator',
  'member',
  'provisional',
  'guest',
  'bot',
  'botOwner',
];
const HUMANS: Kinds = ['owner', 'admin', 'moderator', 'member', 'provisional', 'guest', 'botOwner'];
const ADMINS: Kinds = ['owner', 'admin'];

interface Row {
  readonly title: string;
  readonly op: DefinedOperation;
  readonly params: Record<string, unknown>;
  /** Kinds that succeed; every other kind is refused. */
  readonly allowed: Kinds;
  /** Why, from the digest. */
  readonly why: string;
}

/**
 * Cells where the engine deliberately follows a newer Zulip than the digests (FL 442), as its
 * operation owners documented. The digest's answer is in the table; these override it, and are
 * listed in docs/laws.md so a reader sees every disagreement.
 */
const NEWER_ZULIP: Readonly<Record<string, { allowed: Kinds; why: string }>> = {
  'group managed by its members': {
    allowed: ['owner', 'botOwner', 'bot'],
    why: 'FL 496: bots may edit groups (editUserGroup.ts BOTS_MAY_EDIT_GROUPS_FEATURE_LEVEL); the bot is a member of 105',
  },
  'delete all bot storage': {
    allowed: ['bot'],
    why: 'FL 494: bot storage is for bots only (deleteBotStorage.ts, docs/differences/personal.md)',
  },
};

const ROWS: readonly Row[] = [
  {
    title: 'own settings',
    op: ops.updateSettings,
    params: { twenty_four_hour_time: true },
    allowed: HUMANS,
    why: '1.1: humans only (bots refused before parsing), guests too',
  },
  {
    title: 'bulk settings (target_users)',
    op: ops.updateSettings,
    params: { twenty_four_hour_time: true, target_users: { user_ids: [5], skip_if_already_edited: false } },
    allowed: ADMINS,
    why: '1.1.3: target_users needs is_realm_admin',
  },
  {
    title: 'channel description',
    op: ops.editChannel,
    params: { stream_id: 1, description: 'Fair Verona' },
    allowed: ADMINS,
    why: '2.2: admins administer every channel; Verona has no can_administer_channel_group members',
  },
  {
    title: 'subscription property',
    op: ops.updateSubscriptionSettings,
    params: { subscription_data: [{ stream_id: 1, property: 'pin_to_top', value: true }] },
    allowed: ALL_ACTIVE,
    why: '3.2: any subscriber (everyone active incl. the bot is on Verona)',
  },
  {
    title: "hamlet's scheduled message",
    op: ops.editScheduledMessage,
    params: { scheduled_message_id: 1, content: 'Lunch at one?' },
    allowed: ['botOwner'],
    why: '4.2.5: only the sender; others get 404',
  },
  {
    title: 'group managed by its members',
    op: ops.editUserGroup,
    params: { user_group_id: 105, description: 'Wranglers of bots' },
    allowed: ['owner', 'botOwner'],
    why: '5.1: can_manage_all_groups (owners) or can_manage_group (105 = members hamlet and the bot); admins have no implicit right; bots and guests refused by decorators',
  },
  {
    title: 'list users',
    op: ops.getUsers,
    params: {},
    allowed: [...ALL_ACTIVE, 'anonymous'],
    why: '6.2: any user; spectators when a web-public channel exists and spectator access is on',
  },
  {
    title: 'create profile field',
    op: ops.createCustomProfileField,
    params: { name: 'Shoe size', field_type: 1 },
    allowed: ADMINS,
    why: '7.1: require_realm_admin',
  },
  {
    title: 'unsubscribe self',
    op: ops.unsubscribe,
    params: { subscriptions: ['Verona'] },
    allowed: ALL_ACTIVE,
    why: 'op 8: no role restriction for oneself',
  },
  {
    title: 'unsubscribe another member',
    op: ops.unsubscribe,
    params: { subscriptions: ['Verona'], principals: [7] },
    allowed: ADMINS,
    why: "op 8.6: admins always; Verona's can_remove_subscribers_group is administrators",
  },
  {
    title: "unsubscribe one's own bot",
    op: ops.unsubscribe,
    params: { subscriptions: ['Verona'], principals: [11] },
    allowed: ['owner', 'admin', 'botOwner', 'bot'],
    why: "op 8.3: a bot owned by the caller is not 'others' (and the bot itself is unsubscribing itself)",
  },
  {
    title: 'mark all read',
    op: ops.updateMessageFlagsForNarrow,
    params: { anchor: 'newest', num_before: 10, num_after: 0, narrow: [], op: 'add', flag: 'read' },
    allowed: ALL_ACTIVE,
    why: 'op 9: any user',
  },
  {
    title: 'delete a topic',
    op: ops.deleteTopic,
    params: { stream_id: 1, topic_name: 'lunch' },
    allowed: ADMINS,
    why: 'op 10.2: organization administrator, with content access (both are on Verona)',
  },
  {
    title: "delete another user's message",
    op: ops.deleteMessage,
    params: { message_id: 112 },
    allowed: ADMINS,
    why: "can_delete_any_message_group (administrators); the sender is past the 10 minutes' limit",
  },
  {
    title: "move another user's message to another topic",
    op: ops.updateMessage,
    params: { message_id: 112, topic: 'moved' },
    allowed: ['owner', 'admin', 'moderator'],
    why: 'can_move_messages_between_topics_group (everyone), but the week-long limit binds all below moderators',
  },
  {
    title: 'react to a Verona message',
    op: ops.addReaction,
    params: { message_id: 112, emoji_name: 'octopus' },
    allowed: ALL_ACTIVE,
    why: 'access_message_and_usermessage: every active user can read Verona (public, shared history)',
  },
  {
    title: "remove Desdemona's reaction",
    op: ops.removeReaction,
    params: { message_id: 145, emoji_name: '+1' },
    allowed: ['owner'],
    why: "only the reaction's own user can remove it (Reaction doesn't exist. for everyone else)",
  },
  {
    title: 'deactivate a custom emoji the realm lacks',
    op: ops.deactivateCustomEmoji,
    params: { emoji_name: 'green_tick' },
    allowed: [],
    why: 'delete_emoji: the name must be an active custom emoji first (404); the dev realm has none',
  },
  {
    title: "a Verona message's edit history",
    op: ops.getMessageHistory,
    params: { message_id: 112 },
    allowed: ALL_ACTIVE,
    why: 'access_message: every active user can read Verona (public, shared history; guests are subscribed)',
  },
  {
    title: 'own editable profile field',
    op: ops.updateProfileData,
    params: { data: [{ id: 1, value: '+1-555-0199' }] },
    allowed: HUMANS,
    why: 'op 11.2: humans only',
  },
  {
    title: 'own non-editable profile field',
    op: ops.updateProfileData,
    params: { data: [{ id: 3, value: 'Pie' }] },
    allowed: ADMINS,
    why: 'op 11.4: editable_by_user false needs an admin',
  },
  {
    title: 'add navigation view',
    op: ops.addNavigationView,
    params: { fragment: 'recent', is_pinned: true },
    allowed: ALL_ACTIVE,
    why: 'op 12: any role',
  },
  {
    title: 'create saved snippet',
    op: ops.createSavedSnippet,
    params: { title: 'Hi', content: 'Hello' },
    allowed: ALL_ACTIVE,
    why: 'op 13: any role',
  },
  {
    title: 'own user',
    op: ops.getOwnUser,
    params: {},
    allowed: ALL_ACTIVE,
    why: 'op 14: any authenticated user',
  },
  {
    title: 'linkifiers',
    op: ops.getLinkifiers,
    params: {},
    allowed: ALL_ACTIVE,
    why: 'op 15: any authenticated user',
  },
  {
    title: 'test push to all devices',
    op: ops.sendTestPushNotification,
    params: {},
    allowed: HUMANS,
    why: 'op 16.2: humans only',
  },
  {
    title: "regenerate hamlet's bot key",
    op: ops.regenerateBotApiKey,
    params: { bot_id: 11 },
    allowed: ['owner', 'admin', 'botOwner'],
    why: 'op 17: the owner or an admin; guests and bots refused first',
  },
  {
    title: "remove hamlet's FCM token",
    op: ops.removeFcmToken,
    params: { token: 'fcm-token-for-hamlet-0123456789abcdef' },
    allowed: ['botOwner'],
    why: "op 18: humans only; another user's token does not exist",
  },
  {
    title: 'delete all bot storage',
    op: ops.deleteBotStorage,
    params: {},
    allowed: ALL_ACTIVE,
    why: 'op 19: any authenticated user has a storage',
  },
  {
    title: 'reorder channel folders',
    op: ops.reorderChannelFolders,
    params: { order: [2, 1, 3] },
    allowed: ADMINS,
    why: 'op 20: organization administrator',
  },
  {
    title: 'send to a public channel',
    op: ops.sendMessage,
    params: { type: 'stream', to: 'Verona', topic: 'matrix', content: 'hi' },
    allowed: ALL_ACTIVE,
    why: 'check_message: everyone may post in Verona (every kind is subscribed, the guest too)',
  },
  {
    title: 'send to a private channel',
    op: ops.sendMessage,
    params: { type: 'stream', to: 'core team', topic: 'matrix', content: 'hi' },
    allowed: ['owner', 'admin', 'bot', 'botOwner'],
    why: 'access_stream_for_send_message: a private channel needs a subscription (core team: 1, 2, 4, 11)',
  },
  {
    title: 'send a direct message',
    op: ops.sendMessage,
    params: { type: 'direct', to: '[5]', content: 'hi' },
    allowed: ALL_ACTIVE,
    why: 'check_message: any user may message an accessible active user; the default DM settings allow it',
  },
  {
    title: 'fetch messages',
    op: ops.getMessages,
    params: { anchor: 'newest', num_before: 10, num_after: 0 },
    allowed: ALL_ACTIVE,
    why: 'get_messages_backend: any authenticated user (spectators not modelled)',
  },
  {
    title: 'fetch one public message',
    op: ops.getMessage,
    params: { message_id: VERONA_MESSAGE },
    allowed: ALL_ACTIVE,
    why: 'access_message: a public channel readable by everyone (the guest is subscribed)',
  }, // Issue 24: read endpoints, flags by id, the mark-as-read family, bot storage.
  {
    title: 'bot storage read',
    op: ops.getBotStorage,
    params: {},
    allowed: ['bot'],
    why: 'FL 494: BotRequiredError on every /bot_storage route',
  },
  {
    title: 'bot storage write',
    op: ops.updateBotStorage,
    params: { storage: { k: 'v' } },
    allowed: ['bot'],
    why: 'FL 494: BotRequiredError on every /bot_storage route',
  },
  {
    title: 'flags by id',
    op: ops.updateMessageFlags,
    params: { messages: [VERONA_MESSAGE], op: 'add', flag: 'starred' },
    allowed: ALL_ACTIVE,
    why: 'do_update_message_flags: any user; a public channel with shared history gives a historical row',
  },
  {
    title: 'mark all read',
    op: ops.markAllAsRead,
    params: {},
    allowed: ALL_ACTIVE,
    why: 'mark_all_as_read: any authenticated user',
  },
  {
    title: 'mark channel read',
    op: ops.markStreamAsRead,
    params: { stream_id: 1 },
    allowed: ALL_ACTIVE,
    why: 'access_stream_by_id: #Verona, the guest is subscribed',
  },
  {
    title: 'mark channel read through the empty topic',
    op: ops.markTopicAsRead,
    params: { stream_id: 1, topic_name: '' },
    allowed: ALL_ACTIVE,
    why: 'access_stream_by_id; an empty topic name skips the topic check',
  },
  {
    title: 'channel id by name',
    op: ops.getStreamId,
    params: { stream: 'Verona' },
    allowed: ALL_ACTIVE,
    why: 'access_stream_by_name: #Verona, the guest is subscribed',
  },
  {
    title: 'channel by id',
    op: ops.getStreamById,
    params: { stream_id: 1 },
    allowed: ALL_ACTIVE,
    why: 'access_stream_by_id (metadata): #Verona',
  },
  {
    title: 'channel subscribers',
    op: ops.getSubscribers,
    params: { stream_id: 1 },
    allowed: ALL_ACTIVE,
    why: 'validate_user_access_to_subscribers_helper: the guest is subscribed',
  },
  {
    title: 'channel topics',
    op: ops.getStreamTopics,
    params: { stream_id: 1 },
    allowed: ALL_ACTIVE,
    why: 'get_topics_backend: access_stream_by_id',
  },
  {
    title: 'user by id',
    op: ops.getUser,
    params: { user_id: 2 },
    allowed: ALL_ACTIVE,
    why: 'access_user_by_id: everyone may see everyone in the dev realm',
  },
  {
    title: 'user by email',
    op: ops.getUserByEmail,
    params: { email: 'iago@zulip.com' },
    allowed: ALL_ACTIVE,
    why: 'access_user_by_email: everyone may see everyone in the dev realm',
  },
  {
    title: 'user groups',
    op: ops.getUserGroups,
    params: {},
    allowed: ALL_ACTIVE,
    why: 'get_user_groups: no role check',
  },
  {
    title: 'user group members',
    op: ops.getUserGroupMembers,
    params: { user_group_id: 103 },
    allowed: ALL_ACTIVE,
    why: 'get_user_group_members: no role check',
  },
  {
    title: 'user group membership',
    op: ops.getIsUserGroupMember,
    params: { user_group_id: 103, user_id: 2 },
    allowed: ALL_ACTIVE,
    why: 'get_is_user_group_member: no role check',
  },
  {
    title: 'custom profile fields',
    op: ops.getCustomProfileFields,
    params: {},
    allowed: ALL_ACTIVE,
    why: 'list_realm_custom_profile_fields: no role check',
  },
  {
    title: 'render a message',
    op: ops.renderMessage,
    params: { content: '**x**' },
    allowed: ALL_ACTIVE,
    why: 'render_message_backend: any authenticated user',
  },
  {
    title: 'check messages against a search narrow',
    op: ops.checkMessagesMatchNarrow,
    params: { msg_ids: [VERONA_MESSAGE], narrow: [{ operator: 'search', operand: 'verona' }] },
    allowed: ALL_ACTIVE,
    why: 'messages_in_narrow_backend: any authenticated user, over their own rows',
  },
  {
    title: "a channel's email address",
    op: ops.getStreamEmailAddress,
    params: { stream_id: 1 },
    allowed: ALL_ACTIVE,
    why: 'get_stream_email_address: access_stream_by_id (#Verona, the guest is subscribed)',
  },
  {
    title: 'join a public channel',
    op: ops.subscribe,
    params: { subscriptions: [{ name: 'Venice' }] },
    allowed: ['owner', 'admin', 'moderator', 'member', 'provisional', 'bot', 'botOwner'],
    why: 'add_subscriptions_backend is @require_non_guest_user; public channels need no grant',
  },
  {
    title: 'create a public channel',
    op: ops.subscribe,
    params: { subscriptions: [{ name: 'matrix new' }] },
    allowed: ['owner', 'admin', 'moderator', 'member', 'provisional', 'bot', 'botOwner'],
    why: 'can_create_public_channel_group defaults to role:members',
  },
  {
    title: 'create a web-public channel',
    op: ops.subscribe,
    params: { subscriptions: [{ name: 'matrix open' }], is_web_public: true },
    allowed: ['owner'],
    why: 'can_create_web_public_channel_group defaults to role:owners',
  },
  {
    title: 'follow a topic',
    op: ops.updateUserTopic,
    params: { stream_id: 1, topic: 'lunch', visibility_policy: 3 },
    allowed: ALL_ACTIVE,
    why: 'update_user_topic: any authenticated user with access to the channel (Verona is public)',
  },
  {
    title: 'mute a user',
    op: ops.muteUser,
    params: { muted_user_id: 6 },
    allowed: ALL_ACTIVE,
    why: 'mute_user: any authenticated user, bots too (no human_users_only)',
  },
  {
    title: 'unmute a user nobody muted',
    op: ops.unmuteUser,
    params: { muted_user_id: 6 },
    allowed: [],
    why: 'unmute_user: User is not muted (no mutes on the dev realm)',
  },
  {
    title: 'add alert words',
    op: ops.addAlertWords,
    params: { alert_words: ['lunch'] },
    allowed: ALL_ACTIVE,
    why: 'add_alert_words: any authenticated user',
  },
  {
    title: 'remove alert words',
    op: ops.removeAlertWords,
    params: { alert_words: ['lunch'] },
    allowed: ALL_ACTIVE,
    why: 'remove_alert_words: any authenticated user',
  },
  {
    title: 'set own status',
    op: ops.updateStatus,
    params: { status_text: 'out' },
    allowed: HUMANS,
    why: 'update_user_status_backend: human_users_only',
  },
  {
    title: "another user's status",
    op: ops.getUserStatus,
    params: { user_id: 5 },
    allowed: ALL_ACTIVE,
    why: 'get_status_backend: any authenticated user who can access the user',
  },
  {
    title: 'mute a topic (legacy)',
    op: ops.muteTopic,
    params: { stream_id: 1, topic: 'lunch', op: 'add' },
    allowed: ALL_ACTIVE,
    why: 'update_muted_topic: any authenticated user with access to the channel (Verona is public)',
  },
];

/** The same request over the wire, JSON-encoding Zulip's Json parameters. */
function viaWire(op: DefinedOperation, s: RealmState, actor: Actor, params: Record<string, unknown>) {
  const json = new Set(op.def.params.filter((p) => p.json).map((p) => p.name));
  let path = op.def.path;
  const fields: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) {
    if ((op.def.pathParams ?? []).includes(k)) path = path.replace(`{${k}}`, String(v));
    else fields[k] = json.has(k) ? JSON.stringify(v) : String(v);
  }
  const user = 'userId' in actor ? s.users.get(actor.userId) : undefined;
  const headers: Record<string, string> = user
    ? { authorization: basicAuthHeader(user.delivery_email, user.api_key) }
    : {};
  const qs = new URLSearchParams(fields).toString();
  const isGet = op.def.method === 'GET';
  return handleApiRequest(
    s,
    {
      method: op.def.method,
      url: `/api/v1${path}${isGet && qs ? `?${qs}` : ''}`,
      headers,
      ...(isGet ? {} : { body: qs }),
    },
    testCtx(),
  );
}

describe('permission matrix (dev realm)', () => {
  it('has one actor of every kind', () => {
    expect(Object.keys(actors).sort()).toEqual([...ACTOR_KINDS].sort());
  });

  it('covers every operation', () => {
    expect(new Set(ROWS.map((r) => r.op.def.name)).size).toBe(Object.keys(ops.OPERATIONS).length);
  });

  const cells = ROWS.flatMap((row) =>
    ACTOR_KINDS.map((kind) => [row.op.def.name, row.title, kind, row] as const),
  );
  it.each(cells)('%s (%s) as %s', (_name, _title, kind, row) => {
    const actor = actors[kind]!;
    const allowed = NEWER_ZULIP[row.title]?.allowed ?? row.allowed;
    const expected = allowed.includes(kind) ? 'success' : 'error';
    // /api/v1 serves no spectator (Zulip's rest_dispatch takes them on /json only).
    const overWire = kind === 'anonymous' && row.op.def.unauthenticatedApi !== true ? 'error' : expected;
    for (const [how, r, want] of [
      ['library', loose(row.op)(state, actor, row.params, testCtx()), expected],
      ['wire', viaWire(row.op, state, actor, row.params), overWire],
    ] as const) {
      expect(r.body.result, `${how}: ${JSON.stringify(r.body)} — ${row.why}`).toBe(want);
      if (want === 'error') {
        expect(r.state).toBe(state);
        expect(r.events).toEqual([]);
        expect(r.effects).toEqual([]);
      }
    }
  });
});

describe('permission matrix (arbitrary realms)', () => {
  /**
   * On any realm, role gates that do not depend on the data hold for every user: bots never pass a
   * humans-only operation, only administrators pass an admin-only one, spectators pass only GET /users and web-public topic lists,
   * deactivated users pass nothing; and a refused call never changes the state.
   */
  const HUMANS_ONLY = new Set([
    'updateSettings',
    'updateProfileData',
    'sendTestPushNotification',
    'removeFcmToken',
    'regenerateBotApiKey',
  ]);
  const ADMIN_ONLY = new Set(['createCustomProfileField', 'deleteTopic', 'reorderChannelFolders']);
  const arbCall = fc
    .tuple(fc.constantFrom(...ROWS.map((r) => r.title)), arbRealmCase())
    .chain(([title, realm]) => fc.tuple(fc.constant(title), fc.constant(realm), arbActor(realm.state)));

  it('role gates hold for every actor', () => {
    fc.assert(
      fc.property(arbCall, ([title, realm, actor]) => {
        const row = ROWS.find((x) => x.title === title)!;
        const s = realm.state;
        const r = loose(row.op)(s, actor, row.params, testCtx());
        const user = 'userId' in actor ? s.users.get(actor.userId) : undefined;
        const kind: ActorKind | 'unknown' =
          'anonymous' in actor ? 'anonymous' : user ? kindOf(s, user) : 'unknown';
        if (r.body.result === 'success') {
          expect(kind).not.toBe('deactivated');
          expect(kind).not.toBe('unknown');
          if (kind === 'anonymous') expect(['getUsers', 'getStreamTopics']).toContain(row.op.def.name);
          if (HUMANS_ONLY.has(row.op.def.name)) expect(kind).not.toBe('bot');
          // Bots may hold a role too: an administrator bot passes an admin-only gate, as in Zulip.
          if (ADMIN_ONLY.has(row.op.def.name)) expect(user !== undefined && user.role <= 200).toBe(true);
          if (row.op.def.name.endsWith('BotStorage')) expect(kind).toBe('bot');
        } else {
          expect(r.state).toBe(s);
          expect(r.events).toEqual([]);
        }
      }),
      fcParams(300),
    );
  });
});
