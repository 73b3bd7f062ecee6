/**
 * Issue 24 over loopback: the real zulip-js client (unmodified) against the Node server on a realm
 * handle (memory store), for the read endpoints, flags by id, the mark-as-read family and bot
 * storage — through zulip-js's own methods where it has them (messages.flags, messages.render,
 * streams.getStreamId, streams.topics) and `callEndpoint` otherwise. Every body is validated
 * against its endpoint's schema; the state changes are read back from the realm.
 *
 * A file of its own: zulip-js replaces the global FormData (see zulip-js.test.ts).
 */
import zulip, { type ZulipClient } from 'zulip-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLAG_BITS } from '../../src/core/messages/flags';
import { getRowFlags } from '../../src/core/messages/rows';
import type { DefinedOperation } from '../../src/core/operation';
import { openRealm, type RealmHandle } from '../../src/host/realm-handle';
import * as ops from '../../src/ops/index';
import { createFetchHandler } from '../../src/server/fetch';
import { serveNode, type NodeServer } from '../../src/server/node';
import { memoryStore } from '../../src/stores/memory/index';
import { expectValidResponse } from '../support/openapi';
import { cast, devSnapshot, type CastName } from '../support/realm';

let realm: RealmHandle;
let server: NodeServer;
const statuses: number[] = [];

beforeAll(async () => {
  realm = await openRealm({ store: memoryStore(), snapshot: devSnapshot(), ctx: { now: 1795219200 } });
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

async function as(who: CastName): Promise<ZulipClient> {
  const user = realm.state.users.get(cast[who])!;
  return zulip({ realm: server.url, username: user.delivery_email, apiKey: user.api_key });
}

function checked(op: DefinedOperation, body: Record<string, unknown>, status = 200): Record<string, unknown> {
  expect(statuses.at(-1), JSON.stringify(body)).toBe(status);
  expectValidResponse(op.def.operationId, status, body);
  return body;
}

const hamletFlags = (id: number) => getRowFlags(realm.state.messages.rows.get(cast.hamlet)!, id)!;

describe('zulip-js, issue 24 endpoints', () => {
  it('updateMessageFlags through messages.flags.add / remove', async () => {
    const hamlet = await as('hamlet');
    const added = checked(
      ops.updateMessageFlags,
      await hamlet.messages.flags.add({ flag: 'starred', messages: [112] }),
    );
    expect(added).toEqual({ result: 'success', msg: '', messages: [112] });
    expect(hamletFlags(112) & FLAG_BITS.starred).toBeTruthy();
    checked(ops.updateMessageFlags, await hamlet.messages.flags.remove({ flag: 'starred', messages: [112] }));
    expect(hamletFlags(112) & FLAG_BITS.starred).toBe(0);
    const refused = await hamlet.messages.flags.add({ flag: 'mentioned', messages: [112] });
    expect(checked(ops.updateMessageFlags, refused, 400)).toMatchObject({
      msg: "Flag not editable: 'mentioned'",
    });
  });

  it('markTopicAsRead, markStreamAsRead and markAllAsRead through callEndpoint', async () => {
    const hamlet = await as('hamlet');
    checked(
      ops.markTopicAsRead,
      await hamlet.callEndpoint('/mark_topic_as_read', 'POST', { stream_id: 1, topic_name: 'weather' }),
    );
    checked(
      ops.markStreamAsRead,
      await hamlet.callEndpoint('/mark_stream_as_read', 'POST', { stream_id: 1 }),
    );
    expect(hamletFlags(112) & FLAG_BITS.read).toBeTruthy();
    expect(checked(ops.markAllAsRead, await hamlet.callEndpoint('/mark_all_as_read', 'POST'))).toMatchObject({
      complete: true,
    });
    expect(hamletFlags(133) & FLAG_BITS.read).toBeTruthy();
  });

  it('getStreamId and getStreamTopics through streams.getStreamId / streams.topics.retrieve', async () => {
    const hamlet = await as('hamlet');
    expect(checked(ops.getStreamId, await hamlet.streams.getStreamId('Verona'))).toMatchObject({
      stream_id: 1,
    });
    const topics = checked(ops.getStreamTopics, await hamlet.streams.topics.retrieve({ stream_id: 1 }));
    expect(topics['topics']).toEqual(expect.arrayContaining([{ name: 'weather', max_id: 145 }]));
  });

  it('getStreamById, getSubscribers, getUser, getUserByEmail, groups and profile fields through callEndpoint', async () => {
    const hamlet = await as('hamlet');
    expect(checked(ops.getStreamById, await hamlet.callEndpoint('/streams/1'))).toMatchObject({
      stream: { name: 'Verona' },
    });
    expect(checked(ops.getSubscribers, await hamlet.callEndpoint('/streams/2/members'))).toMatchObject({
      subscribers: [1, 2, 4, 5, 6, 7, 9],
    });
    expect(checked(ops.getUser, await hamlet.callEndpoint('/users/2'))).toMatchObject({
      user: { full_name: 'Iago' },
    });
    expect(checked(ops.getUserByEmail, await hamlet.callEndpoint('/users/iago@zulip.com'))).toMatchObject({
      user: { user_id: 2 },
    });
    checked(ops.getUserGroups, await hamlet.callEndpoint('/user_groups'));
    expect(
      checked(ops.getUserGroupMembers, await hamlet.callEndpoint('/user_groups/103/members')),
    ).toMatchObject({
      members: [1, 2, 6],
    });
    checked(ops.getIsUserGroupMember, await hamlet.callEndpoint('/user_groups/103/members/6'));
    checked(ops.getCustomProfileFields, await hamlet.callEndpoint('/realm/profile_fields'));
  });

  it('renderMessage through messages.render', async () => {
    const hamlet = await as('hamlet');
    expect(checked(ops.renderMessage, await hamlet.messages.render('**hi**'))).toMatchObject({
      rendered: '<p><strong>hi</strong></p>',
    });
  });

  it('bot storage PUT then GET through callEndpoint, as a bot', async () => {
    const bot = await as('embeddedBot');
    checked(
      ops.updateBotStorage,
      await bot.callEndpoint('/bot_storage', 'PUT', { storage: JSON.stringify({ n: '1' }) }),
    );
    const got = checked(
      ops.getBotStorage,
      await bot.callEndpoint('/bot_storage', 'GET', { keys: JSON.stringify(['n']) }),
    );
    expect(got).toEqual({ result: 'success', msg: '', storage: { n: '1' } });
  });
});
