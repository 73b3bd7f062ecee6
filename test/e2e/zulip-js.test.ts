/**
 * End to end over loopback: the real zulip-js client from npm (unmodified) against the Fetch
 * handler on the Node adapter, on a realm handle (memory store). Every operation,
 * through zulip-js's own method where it has one and `callEndpoint` otherwise; every response body
 * is validated against its endpoint's schema (the status comes from the server side), every event
 * published against the event schemas.
 *
 * zulip-js replaces the global FormData (isomorphic-form-data), hence a file of its own: vitest
 * runs each file in its own process (pool 'forks').
 *
 * An operation still answering 501 (being written) is skipped, decided by probing it once.
 */
import zulip, { type ZulipClient } from 'zulip-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressedEvent } from '../../src/core/events';
import { FLAG_BITS } from '../../src/core/messages/flags';
import { getRowFlags } from '../../src/core/messages/rows';
import { getMessage } from '../../src/core/messages/store';
import type { DefinedOperation } from '../../src/core/operation';
import type { RealmState } from '../../src/core/state';
import { openRealm, type RealmHandle } from '../../src/host/realm-handle';
import * as ops from '../../src/ops/index';
import { createFetchHandler } from '../../src/server/fetch';
import { serveNode, type NodeServer } from '../../src/server/node';
import { memoryStore } from '../../src/stores/memory/index';
import { expectValidEvent, expectValidResponse } from '../support/openapi';
import { cast, devSnapshot, type CastName } from '../support/realm';

const NOW = 1795219200;

let realm: RealmHandle;
const store = memoryStore();
let server: NodeServer;
/** The status of every response, in order (zulip-js gives only the body). */
const statuses: number[] = [];
const published: AddressedEvent[] = [];

beforeAll(async () => {
  realm = await openRealm({ store, snapshot: devSnapshot(), ctx: { now: NOW } });
  realm.subscribe((notice) => published.push(...notice.events));
  const handler = createFetchHandler({ realm });
  server = await serveNode({
    handler: async (request) => {
      const response = await handler(request);
      statuses.push(response.status);
      return response;
    },
  });
});

afterAll(async () => {
  await server?.close();
  await realm?.close();
});

const clients = new Map<string, ZulipClient>();
/** A zulip-js client for a cast member, with the API key the realm has for them now. */
async function as(who: CastName): Promise<ZulipClient> {
  const user = realm.state.users.get(cast[who])!;
  const key = `${who}:${user.api_key}`;
  let client = clients.get(key);
  if (!client) {
    client = await zulip({ realm: server.url, username: user.delivery_email, apiKey: user.api_key });
    clients.set(key, client);
  }
  return client;
}

/** Validates the last response against its operation's schema and returns the body, typed loosely. */
function checked(op: DefinedOperation, body: Record<string, unknown>, status = 200): Record<string, unknown> {
  expect(statuses.at(-1)).toBe(status);
  expectValidResponse(op.def.operationId, status, body);
  return body;
}

/** Runs a call, and checks that it published events (each valid) when it changed the realm. */
async function changes<T>(
  call: () => Promise<T>,
): Promise<{ result: T; events: AddressedEvent[]; before: RealmState }> {
  const before = realm.state;
  const from = published.length;
  const result = await call();
  const events = published.slice(from);
  for (const e of events) expectValidEvent(e.event);
  return { result, events, before };
}

const state = () => realm.state;
const types = (events: readonly AddressedEvent[]) => [
  ...new Set(events.map((e) => `${e.event.type}/${String((e.event as { op?: unknown }).op ?? '')}`)),
];

describe('zulip-js end to end', () => {
  it('getOwnUser through users.me.getProfile()', async () => {
    const hamlet = await as('hamlet');
    const body = checked(ops.getOwnUser, await hamlet.users.me.getProfile());
    expect(body).toMatchObject({
      result: 'success',
      msg: '',
      user_id: cast.hamlet,
      email: 'hamlet@zulip.com',
      full_name: 'King Hamlet',
    });
  });

  it('answers a wrong API key with 401 through zulip-js', async () => {
    const intruder = await zulip({ realm: server.url, username: 'hamlet@zulip.com', apiKey: 'x'.repeat(32) });
    const body = checked(ops.getOwnUser, await intruder.users.me.getProfile(), 401);
    expect(body).toEqual({ result: 'error', msg: 'Invalid API key', code: 'UNAUTHORIZED' });
  });

  it('getUsers through users.retrieve()', async () => {
    const iago = await as('iago');
    const body = checked(ops.getUsers, await iago.users.retrieve({ include_custom_profile_fields: true }));
    const members = body['members'] as Array<{ user_id: number; profile_data?: unknown }>;
    expect(members.map((m) => m.user_id)).toContain(cast.hamlet);
    expect(members.find((m) => m.user_id === cast.hamlet)?.profile_data).toBeDefined();
  });

  it('getLinkifiers through callEndpoint (zulip-js filters.retrieve uses the old /realm/filters)', async () => {
    const hamlet = await as('hamlet');
    const body = checked(ops.getLinkifiers, await hamlet.callEndpoint('/realm/linkifiers'));
    expect(body['linkifiers']).toEqual(state().linkifiers.map((l) => ({ ...l })));
  });

  it('updateSettings through callEndpoint PATCH (zulip-js sends the query string)', async () => {
    const hamlet = await as('hamlet');
    const { result, events } = await changes(() =>
      hamlet.callEndpoint('/settings', 'PATCH', {
        twenty_four_hour_time: true,
        full_name: 'Prince Hamlet',
      }),
    );
    expect(checked(ops.updateSettings, result)).toEqual({ result: 'success', msg: '' });
    const user = state().users.get(cast.hamlet)!;
    expect(user.settings.twenty_four_hour_time).toBe(true);
    expect(user.full_name).toBe('Prince Hamlet');
    expect(types(events)).toEqual(expect.arrayContaining(['realm_user/update', 'user_settings/update']));
  });

  it('editChannel through callEndpoint PATCH', async () => {
    const iago = await as('iago');
    const { result, events } = await changes(() =>
      iago.callEndpoint('/streams/1', 'PATCH', { description: 'Fair Verona, where we lay our scene' }),
    );
    expect(checked(ops.editChannel, result)).toEqual({ result: 'success', msg: '' });
    expect(state().channels.get(1)?.description).toBe('Fair Verona, where we lay our scene');
    expect(types(events)).toContain('stream/update');

    const refused = await (await as('hamlet')).callEndpoint('/streams/1', 'PATCH', { description: 'x' });
    expect(checked(ops.editChannel, refused, 400)).toEqual({
      result: 'error',
      msg: 'You do not have permission to administer this channel.',
      code: 'BAD_REQUEST',
    });
  });

  it('updateSubscriptionSettings through callEndpoint POST (multipart, array JSON-encoded by zulip-js)', async () => {
    const hamlet = await as('hamlet');
    const { result, events } = await changes(() =>
      hamlet.callEndpoint('/users/me/subscriptions/properties', 'POST', {
        subscription_data: [
          { stream_id: 1, property: 'pin_to_top', value: true },
          { stream_id: 2, property: 'color', value: '#f00f00' },
        ],
      }),
    );
    const body = checked(ops.updateSubscriptionSettings, result);
    expect(body['result']).toBe('success');
    expect(state().subscriptions.get(1)?.get(cast.hamlet)?.pin_to_top).toBe(true);
    expect(state().subscriptions.get(2)?.get(cast.hamlet)?.color).toBe('#f00f00');
    expect(types(events)).toEqual(['subscription/update']);
  });

  it('editScheduledMessage through callEndpoint PATCH', async () => {
    const hamlet = await as('hamlet');
    const { result, events } = await changes(() =>
      hamlet.callEndpoint('/scheduled_messages/1', 'PATCH', {
        content: 'Lunch at one?',
        topic: 'lunch plans',
      }),
    );
    expect(checked(ops.editScheduledMessage, result)).toEqual({ result: 'success', msg: '' });
    expect(state().scheduledMessages.get(1)).toMatchObject({
      content: 'Lunch at one?',
      topic: 'lunch plans',
    });
    expect(types(events)).toEqual(['scheduled_messages/update']);

    const other = await hamlet.callEndpoint('/scheduled_messages/4', 'PATCH', { content: 'mine now' });
    expect(checked(ops.editScheduledMessage, other, 404)).toEqual({
      result: 'error',
      msg: 'Scheduled message does not exist',
      code: 'BAD_REQUEST',
    });
    expect(state().scheduledMessages.get(4)?.content).toBe("Cordelia's message");
  });

  it('editUserGroup through callEndpoint PATCH', async () => {
    const iago = await as('iago');
    const { result, events } = await changes(() =>
      iago.callEndpoint('/user_groups/101', 'PATCH', { description: 'Everyone in Elsinore' }),
    );
    expect(checked(ops.editUserGroup, result)).toEqual({ result: 'success', msg: '' });
    expect(state().groups.get(101)?.description).toBe('Everyone in Elsinore');
    expect(types(events)).toEqual(['user_group/update']);
  });

  it('createCustomProfileField through callEndpoint POST (multipart)', async () => {
    const iago = await as('iago');
    const before = state().customProfileFields.maxKey();
    const { result, events } = await changes(() =>
      iago.callEndpoint('/realm/profile_fields', 'POST', {
        name: 'Team',
        hint: 'Which team',
        field_type: 1,
      }),
    );
    const body = checked(ops.createCustomProfileField, result);
    expect(body).toEqual({ result: 'success', msg: '', id: before + 1 });
    expect(state().customProfileFields.get(before + 1)).toMatchObject({
      name: 'Team',
      hint: 'Which team',
      type: 1,
    });
    expect(types(events)).toEqual(['custom_profile_fields/']);
  });

  it('updateProfileData through callEndpoint PATCH', async () => {
    const hamlet = await as('hamlet');
    const { result, events } = await changes(() =>
      hamlet.callEndpoint('/users/me/profile_data', 'PATCH', {
        data: JSON.stringify([{ id: 1, value: '+45 555 0199' }]),
      }),
    );
    expect(checked(ops.updateProfileData, result)).toEqual({ result: 'success', msg: '' });
    expect(state().users.get(cast.hamlet)?.profile_data['1']).toBe('+45 555 0199');

    const locked = await hamlet.callEndpoint('/users/me/profile_data', 'PATCH', {
      data: JSON.stringify([{ id: 3, value: 'Herring' }]),
    });
    expect(checked(ops.updateProfileData, locked, 400)).toEqual({
      result: 'error',
      msg: 'You are not allowed to change this field. Contact an administrator to update it.',
      code: 'BAD_REQUEST',
    });
    expect(types(events)).toEqual(['realm_user/update']);
  });

  it('unsubscribe through users.me.subscriptions.remove()', async () => {
    const hamlet = await as('hamlet');
    const { result, events } = await changes(() =>
      hamlet.users.me.subscriptions.remove({ subscriptions: JSON.stringify(['Rome', 'nowhere']) }),
    );
    const body = checked(ops.unsubscribe, result, 400);
    expect(body).toEqual({ result: 'error', msg: 'Channel(s) (nowhere) do not exist', code: 'BAD_REQUEST' });
    expect(state().subscriptions.get(4)?.get(cast.hamlet)?.active).toBe(true);
    expect(events).toEqual([]);

    const ok = await changes(() =>
      hamlet.users.me.subscriptions.remove({ subscriptions: JSON.stringify(['Rome']) }),
    );
    expect(checked(ops.unsubscribe, ok.result)).toEqual({
      result: 'success',
      msg: '',
      removed: ['Rome'],
      not_removed: [],
    });
    expect(state().subscriptions.get(4)?.get(cast.hamlet)?.active).toBe(false);
    expect(types(ok.events)).toContain('subscription/remove');
  });

  it('updateMessageFlagsForNarrow through callEndpoint POST (narrow JSON-encoded by zulip-js)', async () => {
    const hamlet = await as('hamlet');
    const params = {
      anchor: 'oldest',
      num_before: 0,
      num_after: 100,
      narrow: [{ operator: 'channel', operand: 'Verona' }],
      op: 'add',
      flag: 'starred',
    };
    const { result, events } = await changes(() =>
      hamlet.callEndpoint('/messages/flags/narrow', 'POST', params),
    );
    const body = checked(ops.updateMessageFlagsForNarrow, result);
    expect(body).toMatchObject({ result: 'success', found_oldest: true, found_newest: true });
    const rows = state().messages.rows.get(cast.hamlet)!;
    for (const id of [101, 134]) expect((getRowFlags(rows, id)! & FLAG_BITS.starred) !== 0).toBe(true);
    expect(types(events)).toEqual(['update_message_flags/add']);

    const again = checked(
      ops.updateMessageFlagsForNarrow,
      await hamlet.callEndpoint('/messages/flags/narrow', 'POST', params),
    );
    expect(again['updated_count']).toBe(0);
  });

  it('deleteTopic through callEndpoint POST', async () => {
    const iago = await as('iago');
    expect(getMessage(state().messages, 112)).toBeDefined();
    const { result, events } = await changes(() =>
      iago.callEndpoint('/streams/1/delete_topic', 'POST', { topic_name: 'weather' }),
    );
    expect(checked(ops.deleteTopic, result)).toEqual({ result: 'success', msg: '', complete: true });
    expect(getMessage(state().messages, 112)).toBeUndefined();
    expect(getMessage(state().messages, 145)).toBeUndefined();
    expect(getMessage(state().messages, 101)).toBeDefined();
    expect(types(events)).toContain('delete_message/');
  });

  it('addNavigationView through callEndpoint POST', async () => {
    const hamlet = await as('hamlet');
    const { result, events } = await changes(() =>
      hamlet.callEndpoint('/navigation_views', 'POST', { fragment: 'recent', is_pinned: 'true' }),
    );
    checked(ops.addNavigationView, result);
    expect(result).toEqual({ result: 'success', msg: '' });
    expect(
      state()
        .navigationViews.get(cast.hamlet)
        ?.find((v) => v.fragment === 'recent'),
    ).toMatchObject({ is_pinned: true });
    expect(types(events)).toEqual(['navigation_view/add']);
  });

  it('createSavedSnippet through callEndpoint POST', async () => {
    const hamlet = await as('hamlet');
    const { result, events } = await changes(() =>
      hamlet.callEndpoint('/saved_snippets', 'POST', { title: 'Soliloquy', content: 'To be, or not to be' }),
    );
    const body = checked(ops.createSavedSnippet, result);
    const id = body['saved_snippet_id'] as number;
    expect(state().savedSnippets.get(id)).toMatchObject({
      user_id: cast.hamlet,
      title: 'Soliloquy',
      content: 'To be, or not to be',
      date_created: NOW,
    });
    expect(types(events)).toEqual(['saved_snippets/add']);
  });

  it('sendTestPushNotification through callEndpoint POST', async () => {
    const hamlet = await as('hamlet');
    const { result, events, before } = await changes(() =>
      hamlet.callEndpoint('/mobile_push/test_notification', 'POST', {}),
    );
    expect(checked(ops.sendTestPushNotification, result)).toEqual({ result: 'success', msg: '' });
    expect(state()).toBe(before);
    expect(events).toEqual([]);
  });

  it('removeFcmToken through callEndpoint DELETE', async () => {
    const hamlet = await as('hamlet');
    const token = 'fcm-token-for-hamlet-0123456789abcdef';
    const { result } = await changes(() =>
      hamlet.callEndpoint('/users/me/android_gcm_reg_id', 'DELETE', { token }),
    );
    expect(checked(ops.removeFcmToken, result)).toEqual({ result: 'success', msg: '' });
    expect(
      state()
        .pushDevices.get(cast.hamlet)
        ?.some((d) => d.token === token),
    ).toBe(false);

    const gone = await hamlet.callEndpoint('/users/me/android_gcm_reg_id', 'DELETE', { token });
    expect(checked(ops.removeFcmToken, gone, 400)).toEqual({
      result: 'error',
      msg: 'Token does not exist',
      code: 'BAD_REQUEST',
    });
  });

  it('regenerateBotApiKey through callEndpoint POST; the new key works, the old does not', async () => {
    const hamlet = await as('hamlet');
    const bot = realm.state.users.get(cast.defaultBot)!;
    const { result, events } = await changes(() =>
      hamlet.callEndpoint(`/bots/${cast.defaultBot}/api_key/regenerate`, 'POST', {}),
    );
    const body = checked(ops.regenerateBotApiKey, result);
    const key = body['api_key'] as string;
    expect(key).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(state().users.get(cast.defaultBot)?.api_key).toBe(key);
    expect(types(events)).toEqual(['realm_bot/update']);

    const fresh = await zulip({ realm: server.url, username: bot.delivery_email, apiKey: key });
    expect(checked(ops.getOwnUser, await fresh.users.me.getProfile())['user_id']).toBe(cast.defaultBot);
    const stale = await zulip({ realm: server.url, username: bot.delivery_email, apiKey: bot.api_key });
    expect(checked(ops.getOwnUser, await stale.users.me.getProfile(), 401)).toMatchObject({
      msg: 'Invalid API key',
    });
  });

  it('deleteBotStorage through callEndpoint DELETE', async () => {
    const bot = await as('embeddedBot');
    const { result } = await changes(() =>
      bot.callEndpoint('/bot_storage', 'DELETE', { keys: JSON.stringify(['state']) }),
    );
    expect(checked(ops.deleteBotStorage, result)).toEqual({ result: 'success', msg: '' });
    expect(state().botStorage.get(cast.embeddedBot) ?? []).toEqual([]);

    const missing = await bot.callEndpoint('/bot_storage', 'DELETE', { keys: JSON.stringify(['state']) });
    expect(checked(ops.deleteBotStorage, missing, 400)).toMatchObject({
      result: 'error',
      code: 'BAD_REQUEST',
    });
  });

  it('reorderChannelFolders through callEndpoint PATCH', async () => {
    const iago = await as('iago');
    const { result, events } = await changes(() =>
      iago.callEndpoint('/channel_folders', 'PATCH', { order: JSON.stringify([2, 1, 3]) }),
    );
    expect(checked(ops.reorderChannelFolders, result)).toEqual({ result: 'success', msg: '' });
    expect([2, 1, 3].map((id) => state().channelFolders.get(id)?.order)).toEqual([0, 1, 2]);
    expect(types(events)).toEqual(['channel_folder/reorder']);
  });

  it('sendMessage through messages.send(), to a channel by name and as a direct message', async () => {
    const hamlet = await as('hamlet');
    const { result, events } = await changes(() =>
      hamlet.messages.send({
        type: 'stream',
        to: 'Verona',
        topic: 'zulip-js',
        content: 'Hello from **zulip-js**',
      }),
    );
    const body = checked(ops.sendMessage, result);
    const id = body['id'] as number;
    expect(getMessage(state().messages, id)).toMatchObject({
      stream_id: 1,
      topic: 'zulip-js',
      sender_id: cast.hamlet,
    });
    expect(types(events)).toContain('message/');
    const direct = checked(
      ops.sendMessage,
      await hamlet.messages.send({ type: 'direct', to: JSON.stringify([cast.cordelia]), content: 'psst' }),
    );
    const dm = getMessage(state().messages, direct['id'] as number);
    expect(dm?.participants).toEqual([cast.hamlet, cast.cordelia]);
    const refused = await hamlet.messages.send({ type: 'stream', to: 'Nowhere', topic: 't', content: 'x' });
    expect(checked(ops.sendMessage, refused, 400)).toMatchObject({ code: 'STREAM_DOES_NOT_EXIST' });
  });

  it('getMessages through messages.retrieve() (narrow JSON-encoded by zulip-js) and getMessage', async () => {
    const cordelia = await as('cordelia');
    const body = checked(
      ops.getMessages,
      await cordelia.messages.retrieve({
        anchor: 'newest',
        num_before: 5,
        num_after: 0,
        narrow: [
          { operator: 'channel', operand: 'Verona' },
          { operator: 'topic', operand: 'zulip-js' },
        ],
      }),
    );
    const messages = body['messages'] as Array<Record<string, unknown>>;
    expect(messages.map((m) => m['content'])).toEqual(['<p>Hello from <strong>zulip-js</strong></p>']);
    expect(messages[0]!['flags']).toEqual([]);
    const one = checked(
      ops.getMessage,
      await cordelia.callEndpoint(`/messages/${String(messages[0]!['id'])}`, 'GET', {}),
    );
    expect(one['raw_content']).toBe('Hello from **zulip-js**');
  });

  it('updateMessage and deleteMessage through callEndpoint PATCH / DELETE', async () => {
    const hamlet = await as('hamlet');
    const sent = await hamlet.messages.send({
      type: 'stream',
      to: 'Verona',
      topic: 'edit me',
      content: 'Draft',
    });
    const id = Number((sent as Record<string, unknown>)['id']);
    const edited = await changes(() =>
      hamlet.callEndpoint(`/messages/${id}`, 'PATCH', { content: 'Final', topic: 'edited' }),
    );
    expect(checked(ops.updateMessage, edited.result)).toEqual({
      result: 'success',
      msg: '',
      detached_uploads: [],
    });
    expect(getMessage(state().messages, id)).toMatchObject({ content: 'Final', topic: 'edited' });
    expect(types(edited.events)).toContain('update_message/');
    const history = checked(
      ops.getMessageHistory,
      await hamlet.callEndpoint(`/messages/${id}/history`, 'GET', {}),
    );
    expect((history['message_history'] as unknown[]).length).toBe(2);
    const deleted = await changes(() => hamlet.callEndpoint(`/messages/${id}`, 'DELETE', {}));
    expect(checked(ops.deleteMessage, deleted.result)).toEqual({ result: 'success', msg: '' });
    expect(getMessage(state().messages, id)).toBeUndefined();
    expect(types(deleted.events)).toContain('delete_message/');
  });

  it('published only valid events, each change persisted in order', () => {
    for (const e of published) expectValidEvent(e.event);
    expect(realm.version).toBeGreaterThan(0);
    // Every acknowledged change is in the store, in version order.
    const versions = [
      ...store.records.checkpoints.slice(-1).map((c) => c.version),
      ...store.records.changes.map((c) => c.version),
    ];
    expect(versions.at(-1)).toBe(realm.version);
  });
});
