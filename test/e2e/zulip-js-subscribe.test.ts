/**
 * zulip-js (unmodified) over loopback: `users.me.subscriptions.add` joins a channel and creates
 * one, the events reach other users' queues, and the change is recorded so a reopened realm has it.
 * Its own file: zulip-js replaces the global FormData.
 */
import zulip, { type ZulipClient } from 'zulip-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withEventQueues, type LiveRealm } from '../../src/host/live-realm';
import { openRealm, type RealmHandle } from '../../src/host/realm-handle';
import { createFetchHandler } from '../../src/server/fetch';
import { serveNode, type NodeServer } from '../../src/server/node';
import { memoryStore, type MemoryStore } from '../../src/stores/memory/index';
import { expectValidEvent, expectValidResponse } from '../support/openapi';
import { cast, devSnapshot, type CastName } from '../support/realm';

let realm: RealmHandle;
let live: LiveRealm;
let server: NodeServer;
let store: MemoryStore;

beforeAll(async () => {
  store = memoryStore();
  realm = await openRealm({ store, snapshot: devSnapshot() });
  live = withEventQueues(realm, { gcIntervalMs: 0 });
  server = await serveNode({ handler: createFetchHandler({ realm: live }) });
});

afterAll(async () => {
  live?.close();
  await server?.close();
  await realm?.close();
});

async function as(who: CastName): Promise<ZulipClient> {
  const user = realm.state.users.get(cast[who])!;
  return zulip({ realm: server.url, username: user.delivery_email, apiKey: user.api_key });
}

describe('zulip-js: users.me.subscriptions.add', () => {
  it('joins an existing channel; peers learn it through their queues', async () => {
    const hamlet = await as('hamlet');
    const reg = await hamlet.queues.register({ event_types: ['subscription'] });
    const cordelia = await as('cordelia');
    const r = await cordelia.users.me.subscriptions.add({
      subscriptions: JSON.stringify([{ name: 'Venice' }]),
    });
    expectValidResponse('subscribe', 200, r);
    expect(r).toMatchObject({ subscribed: { [String(cast.cordelia)]: ['Venice'] }, already_subscribed: {} });
    const got = await hamlet.events.retrieve({
      queue_id: reg['queue_id'],
      last_event_id: -1,
      dont_block: true,
    });
    const events = got['events'] as Array<Record<string, unknown>>;
    for (const e of events) expectValidEvent(e);
    expect(events).toEqual([
      expect.objectContaining({
        type: 'subscription',
        op: 'peer_add',
        stream_ids: [5],
        user_ids: [cast.cordelia],
      }),
    ]);
  });

  it('creates a channel; it survives reopening the store', async () => {
    const hamlet = await as('hamlet');
    const r = await hamlet.users.me.subscriptions.add({
      subscriptions: JSON.stringify([{ name: 'zulip-js made', description: 'From a client' }]),
    });
    expectValidResponse('subscribe', 200, r);
    const reopened = await openRealm({ store, snapshot: devSnapshot() });
    const channel = [...reopened.state.channels.values()].find((c) => c.name === 'zulip-js made');
    expect(channel).toMatchObject({ description: 'From a client', creator_id: cast.hamlet });
    expect(reopened.state.subscriptions.get(channel!.stream_id)?.get(cast.hamlet)?.active).toBe(true);
    await reopened.close();
  });
});
