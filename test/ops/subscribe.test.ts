import { describe, expect, it } from 'vitest';
import { subscribe } from '../../src/ops/channels/subscribe';
import { getStreamId } from '../../src/ops/channels/getStreamId';
import { getMessages } from '../../src/ops/messages/getMessages';
import { sendMessage } from '../../src/ops/messages/sendMessage';
import { createRealm } from '../../src/core/snapshot/create';
import { seededRandom } from '../../src/core/context';
import { getChannelByName, isSubscribed } from '../../src/core/permissions/channels';
import type { OpResult } from '../../src/core/result';
import type { RealmState } from '../../src/core/state';
import { expectValidEvent, expectValidResponse } from '../support/openapi';
import { expectRefused } from '../support/expect-result';
import { as, devRealm, devSnapshot, testCtx, wire, type CastName } from '../support/realm';

/**
 * Rules from Zulip's `add_subscriptions_backend` (zerver/views/streams.py), `list_to_streams`,
 * `check_channel_creation_permissions`, `filter_stream_authorization_for_adding_subscribers`
 * (zerver/lib/streams.py), `bulk_add_subscriptions` (zerver/actions/streams.py) and
 * `pick_colors` (zerver/lib/stream_color.py); tests in zerver/tests/test_subs.py.
 */
const OP = 'subscribe';
const state = devRealm();
const ACTIVE = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16];
const NON_GUESTS = ACTIVE.filter((id) => id !== 10);
const without = (ids: readonly number[], ...gone: number[]) => ids.filter((id) => !gone.includes(id));

const post = (s: RealmState, params: Record<string, string>, who: CastName = 'hamlet') =>
  wire(s, who, 'POST', '/users/me/subscriptions', params, testCtx());
const subs = (...names: string[]) => JSON.stringify(names.map((name) => ({ name })));

/** A success; `new_subscription_messages_sent` is true unless `data` says otherwise (feature level 397). */
function ok(r: OpResult, data: object): void {
  expect(r.body).toEqual({ result: 'success', msg: '', new_subscription_messages_sent: true, ...data });
  expect(r.status).toBe(200);
  expectValidResponse(OP, 200, r.body);
  for (const e of r.events) expectValidEvent(e.event);
}

function refused(r: OpResult, before: RealmState, msg: string, code?: string, extra?: object): void {
  expectRefused(OP, r, before, msg, code, extra);
}

function realmWith(edit: (snap: ReturnType<typeof devSnapshot>) => void): RealmState {
  const snap = devSnapshot();
  edit(snap);
  return createRealm(snap, { random: seededRandom(1) });
}

const kinds = (r: OpResult) =>
  r.events.map((e) => ('op' in e.event ? `${e.event.type}/${String(e.event.op)}` : e.event.type));

describe('subscribe: joining existing channels', () => {
  it('subscribes the caller to a public channel (test_subs.py: test_successful_subscriptions_add)', () => {
    const r = post(state, { subscriptions: subs('Venice') }, 'cordelia');
    ok(r, { subscribed: { '5': ['Venice'] }, already_subscribed: {} });
    expect(isSubscribed(r.state, 5, 5)).toBe(true);
    // pick_colors: the first palette color cordelia does not use yet.
    expect(r.state.subscriptions.get(5)!.get(5)!.color).toBe('#76ce90');
    expect(kinds(r)).toEqual(['subscription/add', 'subscription/peer_add']);
    const add = r.events[0]!;
    expect(add.users).toEqual([5]);
    expect(add.event).toMatchObject({
      subscriptions: [
        { stream_id: 5, name: 'Venice', color: '#76ce90', subscribers: [2, 4, 5, 6], in_home_view: true },
      ],
    });
    // Venice has no guest subscriber: one event to every active non-guest but cordelia.
    expect(r.events[1]).toEqual({
      event: { type: 'subscription', op: 'peer_add', stream_ids: [5], user_ids: [5] },
      users: without(NON_GUESTS, 5),
    });
    expect(r.effects).toEqual([]);
  });

  it('gives new subscribers the shared history without per-user rows; unread counts do not change', () => {
    const r = post(state, { subscriptions: subs('Venice') }, 'cordelia');
    // Zulip creates no UserMessage rows for earlier messages (test_subs.py: history is public to subscribers).
    expect(r.state.messages.rows.get(5)).toBe(state.messages.rows.get(5));
  });

  it('reactivates a subscription one left, keeping its color (bulk_add_subscriptions: subs_to_activate)', () => {
    const r = post(state, { subscriptions: subs('Rome') }, 'cordelia');
    ok(r, { subscribed: { '5': ['Rome'] }, already_subscribed: {} });
    expect(r.state.subscriptions.get(4)!.get(5)).toEqual({
      ...state.subscriptions.get(4)!.get(5),
      active: true,
    });
  });

  it('reports channels already subscribed, without change (test_subs.py: test_subscriptions_add_for_principal already subscribed)', () => {
    const r = post(state, { subscriptions: subs('verona ', 'Denmark') });
    ok(r, { subscribed: {}, already_subscribed: { '4': ['Verona', 'Denmark'] } });
    expect(r.state).toBe(state);
    expect(r.events).toEqual([]);
  });

  it('accepts the library call with decoded params and a requested color', () => {
    const r = subscribe(
      state,
      as('othello'),
      { subscriptions: [{ name: 'Venice' }, { name: 'Rome', color: '#123456' }] },
      testCtx(),
    );
    expect(r.body).toMatchObject({ subscribed: { '6': ['Rome'] }, already_subscribed: { '6': ['Venice'] } });
    expect(r.state.subscriptions.get(4)!.get(6)!.color).toBe('#123456');
  });

  it('refuses guests (add_subscriptions_backend is @require_non_guest_user)', () => {
    refused(post(state, { subscriptions: subs('Verona') }, 'polonius'), state, 'Not allowed for guest users');
  });

  it('refuses a private channel without access (test_subs.py: test_subscriptions_add_invalid_stream / private)', () => {
    refused(post(state, { subscriptions: subs('secrets') }), state, 'Unable to access channel (secrets).');
  });

  it('lists inaccessible channels under unauthorized when authorization_errors_fatal is false', () => {
    const r = post(
      state,
      { subscriptions: subs('secrets', 'Venice'), authorization_errors_fatal: 'false' },
      'cordelia',
    );
    // cordelia is subscribed to secrets: accessible. Hamlet is not.
    ok(r, { subscribed: { '5': ['Venice'] }, already_subscribed: { '5': ['secrets'] }, unauthorized: [] });
    const h = post(state, { subscriptions: subs('secrets'), authorization_errors_fatal: 'false' });
    ok(h, { subscribed: {}, already_subscribed: {}, unauthorized: ['secrets'] });
    expect(h.state).toBe(state);
  });

  it("lets a member of the channel's can_subscribe_group join a private channel (user_has_content_access)", () => {
    const s = realmWith((snap) => {
      const c = (snap.channels as Array<Record<string, unknown>>).find((x) => x['stream_id'] === 7)!;
      c['can_subscribe_group'] = 101; // hamletcharacters: hamlet and cordelia
    });
    const r = post(s, { subscriptions: subs('secrets') });
    ok(r, { subscribed: { '4': ['secrets'] }, already_subscribed: {} });
    // Hamlet could see the channel through the group already: no stream/create for him.
    expect(kinds(r)).toEqual(['subscription/add', 'subscription/peer_add']);
  });
});

describe('subscribe: others (principals)', () => {
  it('subscribes another user and tells them by direct message (you_were_just_subscribed_message)', () => {
    const r = post(state, { subscriptions: subs('Venice'), principals: JSON.stringify([5]) });
    ok(r, { subscribed: { '5': ['Venice'] }, already_subscribed: {} });
    expect(r.effects).toEqual([
      {
        type: 'post_notification_direct_message',
        recipient_id: 5,
        content: '@_**King Hamlet|4** subscribed you to #**Venice**.',
      },
    ]);
  });

  it('sends no direct message when send_new_subscription_messages is false (feature level 397)', () => {
    const r = post(state, {
      subscriptions: subs('Venice'),
      principals: JSON.stringify([5]),
      send_new_subscription_messages: 'false',
    });
    expect(r.body).toEqual({
      result: 'success',
      msg: '',
      subscribed: { '5': ['Venice'] },
      already_subscribed: {},
    });
    expectValidResponse(OP, 200, r.body);
    expect(r.effects).toEqual([]);
  });

  it('lists several channels in the direct message, sorted; no message to bots or oneself', () => {
    const r = post(state, {
      subscriptions: subs('Venice', 'Rome'),
      principals: JSON.stringify(['cordelia@zulip.com', 'default-bot@zulip.com', 'hamlet@zulip.com']),
    });
    expect(r.status).toBe(200);
    expect(r.effects).toEqual([
      {
        type: 'post_notification_direct_message',
        recipient_id: 5,
        content:
          '@_**King Hamlet|4** subscribed you to the following channels:\n\n* #**Rome**\n* #**Venice**\n',
      },
    ]);
  });

  it("needs the realm's can_add_subscribers_group (get_streams_to_which_user_cannot_add_subscribers)", () => {
    const s = realmWith((snap) => {
      (snap.realm as Record<string, unknown>)['can_add_subscribers_group'] = 3;
    });
    refused(
      post(s, { subscriptions: subs('Venice'), principals: JSON.stringify([5]) }),
      s,
      'Insufficient permission',
    );
    // Administrators may; and naming only oneself by id is not subscribing others.
    expect(post(s, { subscriptions: subs('Venice'), principals: JSON.stringify([5]) }, 'iago').status).toBe(
      200,
    );
    expect(post(s, { subscriptions: subs('Venice'), principals: JSON.stringify([4]) }, 'hamlet').status).toBe(
      200,
    );
  });

  it('reports unknown and deactivated principals (bulk_access_users_by_id)', () => {
    refused(
      post(state, { subscriptions: subs('Venice'), principals: JSON.stringify([999]) }),
      state,
      'No such user',
    );
    refused(
      post(state, { subscriptions: subs('Venice'), principals: JSON.stringify([14]) }),
      state,
      'User is deactivated',
    );
  });

  it('sends stream/create to a guest newly added to a public channel', () => {
    const r = post(state, { subscriptions: subs('Venice'), principals: JSON.stringify([10]) }, 'iago');
    expect(kinds(r)).toEqual(['stream/create', 'subscription/add', 'subscription/peer_add']);
    expect(r.events[0]!.users).toEqual([10]);
    // The channel now has a guest subscriber: its own event, non-guests plus subscribers.
    expect(r.events[2]!.users).toEqual(without(ACTIVE, 10));
  });
});

describe('subscribe: realms that limit which users guests see', () => {
  it('a guest and the users they could not see get realm_user/add (send_user_creation_events_on_adding_subscriptions)', () => {
    const s = realmWith((snap) => {
      (snap.realm as Record<string, unknown>)['can_access_all_users_group'] = 6;
    });
    const r = post(s, { subscriptions: subs('guest room'), principals: JSON.stringify([10, 13]) }, 'iago');
    ok(r, { subscribed: { '10': ['guest room'], '13': ['guest room'] }, already_subscribed: {} });
    const adds = r.events.filter((e) => e.event.type === 'realm_user');
    // Zulip sends it twice: once as "13 was added where 10 is", once as "guest 10 gained 13".
    expect(adds.map((e) => [e.users, (e.event as { person: { user_id: number } }).person.user_id])).toEqual([
      [[10], 13],
      [[10], 13],
    ]);
    expect(kinds(r)).toEqual([
      'stream/create',
      'stream/create',
      'subscription/add',
      'subscription/add',
      'realm_user/add',
      'realm_user/add',
      'subscription/peer_add',
    ]);
  });
});

describe('subscribe: creating channels', () => {
  it('creates a public channel and subscribes its creator (test_subs.py: test_subscriptions_add_new_stream)', () => {
    const r = post(state, {
      subscriptions: JSON.stringify([{ name: '  Brand new ', description: 'About\nit' }]),
      announce: 'true',
    });
    ok(r, { subscribed: { '4': ['Brand new'] }, already_subscribed: {} });
    const c = getChannelByName(r.state, 'brand NEW')!;
    expect(c).toMatchObject({
      stream_id: 11,
      name: 'Brand new',
      description: 'About it',
      invite_only: false,
      history_public_to_subscribers: true,
      creator_id: 4,
      date_created: testCtx().now,
      can_administer_channel_group: { direct_members: [4], direct_subgroups: [] },
      can_remove_subscribers_group: 3,
      can_send_message_group: 7,
      topics_policy: 'inherit',
    });
    expect(kinds(r)).toEqual(['stream/create', 'subscription/add', 'subscription/peer_add']);
    expect(r.events[0]!.users).toEqual(NON_GUESTS);
    expect(r.events[0]!.event).toMatchObject({
      streams: [{ stream_id: 11, subscriber_count: 0 }],
      for_unarchiving: false,
    });
    expect(r.effects).toEqual([
      {
        type: 'announce_new_channels',
        topic: 'new channels',
        content: '@_**King Hamlet|4** created a new channel #**Brand new**.',
      },
      {
        type: 'post_notification_message',
        stream_id: 11,
        topic: 'channel events',
        content:
          '**Public** channel created by @_**King Hamlet|4**. **Description:**\n```` quote\nAbout it\n````',
      },
    ]);
    // The new channel is in the name index the other operations use.
    expect(getStreamId(r.state, as('cordelia'), { stream: 'Brand new' }, testCtx()).body).toMatchObject({
      stream_id: 11,
    });
  });

  it('a new channel can be posted to and narrowed to at once', () => {
    const created = post(state, { subscriptions: subs('fresh') }).state;
    const sent = sendMessage(
      created,
      as('hamlet'),
      { type: 'stream', to: 11, topic: 'hi', content: 'first' },
      testCtx(),
    );
    expect(sent.status).toBe(200);
    const narrow = [{ operator: 'channel', operand: 11 }];
    const got = getMessages(
      sent.state,
      as('cordelia'),
      { anchor: 'newest', num_before: 5, num_after: 0, narrow },
      testCtx(),
    );
    expect(got.body).toMatchObject({
      result: 'success',
      messages: [expect.objectContaining({ content: '<p>first</p>' })],
    });
  });

  it('creates a private channel: stream/create to administrators and the creator only', () => {
    const r = post(state, { subscriptions: subs('hush'), invite_only: 'true' });
    ok(r, { subscribed: { '4': ['hush'] }, already_subscribed: {} });
    expect(getChannelByName(r.state, 'hush')).toMatchObject({
      invite_only: true,
      history_public_to_subscribers: false,
    });
    expect(r.events[0]).toMatchObject({ users: [1, 2, 4] });
    // Peers of a private channel: administrators (the creator is the one added).
    expect(r.events.at(-1)).toEqual({
      event: { type: 'subscription', op: 'peer_add', stream_ids: [11], user_ids: [4] },
      users: [1, 2],
    });
    expect(r.effects).toEqual([
      expect.objectContaining({
        content: expect.stringContaining('**Private, protected history** channel created by'),
      }),
    ]);
  });

  it('creates several channels and joins existing ones in one call; new channels send no direct message', () => {
    const r = post(state, {
      subscriptions: subs('one', 'Venice', 'two'),
      principals: JSON.stringify([5]),
      announce: 'true',
    });
    ok(r, { subscribed: { '5': ['Venice', 'one', 'two'] }, already_subscribed: {} });
    expect(r.effects[0]).toEqual({
      type: 'post_notification_direct_message',
      recipient_id: 5,
      content: '@_**King Hamlet|4** subscribed you to #**Venice**.',
    });
    expect(r.effects[1]).toMatchObject({
      content: '@_**King Hamlet|4** created the following channels: #**one**, #**two**.',
    });
  });

  it('checks names (check_stream_name)', () => {
    refused(post(state, { subscriptions: subs('  ') }), state, "Channel name can't be empty.");
    refused(
      post(state, { subscriptions: subs('x'.repeat(61)) }),
      state,
      'Channel name too long (limit: 60 characters).',
    );
    refused(
      post(state, { subscriptions: subs('bad\u0001name') }),
      state,
      'Invalid character in channel name, at position 4.',
    );
  });

  it('checks description length', () => {
    const long = JSON.stringify([{ name: 'new', description: 'd'.repeat(1025) }]);
    refused(
      post(state, { subscriptions: long }),
      state,
      'subscriptions[0]["description"] is too long (limit: 1024 characters)',
    );
  });

  it('needs can_create_public_channel_group / can_create_private_channel_group (test_subs.py: test_user_settings_for_creating_streams)', () => {
    const s = realmWith((snap) => {
      (snap.realm as Record<string, unknown>)['can_create_public_channel_group'] = 3;
      (snap.realm as Record<string, unknown>)['can_create_private_channel_group'] = 4;
    });
    refused(post(s, { subscriptions: subs('new') }), s, 'Insufficient permission');
    refused(post(s, { subscriptions: subs('new'), invite_only: 'true' }), s, 'Insufficient permission');
    expect(post(s, { subscriptions: subs('new') }, 'iago').status).toBe(200);
    expect(post(s, { subscriptions: subs('new'), invite_only: 'true' }, 'shiva').status).toBe(200);
    // Joining existing channels needs no creation permission.
    expect(post(s, { subscriptions: subs('Venice') }, 'cordelia').status).toBe(200);
  });

  it('web-public channels: owners by default, and only where enabled (test_subs.py: test_create_web_public_stream)', () => {
    refused(
      post(state, { subscriptions: subs('open'), is_web_public: 'true' }, 'iago'),
      state,
      'Insufficient permission',
    );
    const r = post(state, { subscriptions: subs('open'), is_web_public: 'true' }, 'desdemona');
    ok(r, { subscribed: { '1': ['open'] }, already_subscribed: {} });
    expect(r.events[0]!.users).toEqual(ACTIVE);
    const off = realmWith((snap) => {
      (snap.realm as Record<string, unknown>)['enable_spectator_access'] = false;
    });
    refused(
      post(off, { subscriptions: subs('open'), is_web_public: 'true' }, 'desdemona'),
      off,
      'Web-public channels are not enabled.',
    );
  });

  it('default channels: administrators only, never private (check_channel_creation_permissions)', () => {
    refused(
      post(state, { subscriptions: subs('new'), is_default_stream: 'true' }),
      state,
      'Insufficient permission',
    );
    refused(
      post(state, { subscriptions: subs('new'), is_default_stream: 'true', invite_only: 'true' }, 'iago'),
      state,
      'A default channel cannot be private.',
    );
    const r = post(state, { subscriptions: subs('new'), is_default_stream: 'true' }, 'iago');
    expect(r.state.defaultChannelIds.has(11)).toBe(true);
    expect(kinds(r)).toEqual([
      'stream/create',
      'default_streams',
      'subscription/add',
      'subscription/peer_add',
    ]);
  });

  it('retention: owners only; bad values refused', () => {
    refused(
      post(state, { subscriptions: subs('new'), message_retention_days: '30' }, 'iago'),
      state,
      'Must be an organization owner',
      'UNAUTHORIZED_PRINCIPAL',
    );
    const r = post(state, { subscriptions: subs('new'), message_retention_days: '"unlimited"' }, 'desdemona');
    expect(getChannelByName(r.state, 'new')!.message_retention_days).toBe(-1);
  });

  it('group settings for new channels are validated (access_user_group_for_setting)', () => {
    refused(
      post(state, { subscriptions: subs('new'), can_add_subscribers_group: '7' }),
      state,
      "'can_add_subscribers_group' setting cannot be set to 'role:everyone' group.",
    );
    refused(
      post(state, { subscriptions: subs('new'), invite_only: 'true', can_create_topic_group: '6' }),
      state,
      'Unsupported parameter combination: history_public_to_subscribers, can_create_topic_group',
      'BAD_REQUEST',
      { parameters: 'history_public_to_subscribers, can_create_topic_group' },
    );
    const r = post(state, {
      subscriptions: subs('new'),
      can_send_message_group: '{"direct_members":[5],"direct_subgroups":[3]}',
    });
    expect(getChannelByName(r.state, 'new')!.can_send_message_group).toEqual({
      direct_members: [5],
      direct_subgroups: [3],
    });
  });

  it('refuses a private web-public channel, which Zulip has no policy for', () => {
    refused(
      post(state, { subscriptions: subs('new'), invite_only: 'true', is_web_public: 'true' }, 'desdemona'),
      state,
      'Invalid parameters',
    );
  });
});
