/**
 * zulip-js (unmodified) over loopback against `withEventQueues`: typing notifications reach the
 * recipients' queues, presence pings answer and never touch the change log, custom emoji answer.
 * Its own file: zulip-js replaces the global FormData.
 */
import zulip, { type ZulipClient } from 'zulip-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withEventQueues, type LiveRealm } from '../../src/host/live-realm';
import { openRealm, type RealmHandle } from '../../src/host/realm-handle';
import { createFetchHandler } from '../../src/server/fetch';
import { serveNode, type NodeServer } from '../../src/server/node';
import { memoryStore, type MemoryStore } from '../../src/stores/memory/index';
import { expectValidResponse } from '../support/openapi';
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

describe('zulip-js: typing, presence, emoji', () => {
  it('typing.send reaches the recipients through their queues', async () => {
    const cordelia = await as('cordelia');
    const reg = await cordelia.queues.register({ event_types: ['typing'] });
    const hamlet = await as('hamlet');
    const sent = await hamlet.typing.send({ to: [cast.cordelia, cast.othello], op: 'start' });
    expectValidResponse('set-typing-status', 200, sent);
    const got = await cordelia.events.retrieve({
      queue_id: reg['queue_id'],
      last_event_id: -1,
      dont_block: true,
    });
    expect(got['events']).toEqual([
      expect.objectContaining({
        type: 'typing',
        op: 'start',
        sender: expect.objectContaining({ user_id: cast.hamlet }),
      }),
    ]);
  });

  it('presence pings answer every presence, and the change log stays empty', async () => {
    const hamlet = await as('hamlet');
    const r = await hamlet.callEndpoint('/users/me/presence', 'POST', { status: 'active' });
    expectValidResponse('update-presence', 200, r);
    expect(Object.keys(r['presences'] as object)).toEqual([realm.state.users.get(cast.hamlet)!.email]);
    const all = await (await as('iago')).callEndpoint('/realm/presence', 'GET', {});
    expectValidResponse('get-presence', 200, all);
    expect(await store.changesSince(0)).toEqual([]);
  });

  it('emojis.retrieve answers the realm emoji', async () => {
    const r = await (await as('hamlet')).emojis.retrieve();
    expect(r).toMatchObject({ result: 'success', emoji: {} });
  });
});
