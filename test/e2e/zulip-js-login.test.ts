/**
 * Password login over loopback with the real zulip-js (unmodified): given a username and a password
 * instead of an API key, it POSTs /fetch_api_key and then works with the key it got. Its own file:
 * zulip-js replaces the global FormData.
 */
import zulip from 'zulip-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scryptPasswordHasher } from '../../src/core/passwords';
import { withEventQueues, type LiveRealm } from '../../src/host/live-realm';
import { openRealm, type RealmHandle } from '../../src/host/realm-handle';
import { createFetchHandler } from '../../src/server/fetch';
import { serveNode, type NodeServer } from '../../src/server/node';
import { memoryStore } from '../../src/stores/memory/index';
import { expectValidResponse } from '../support/openapi';
import { cast, devSnapshot } from '../support/realm';

let realm: RealmHandle;
let live: LiveRealm;
let server: NodeServer;

beforeAll(async () => {
  // A cheap hasher: the test is about the flow, not scrypt's cost.
  realm = await openRealm({
    store: memoryStore(),
    snapshot: devSnapshot(),
    ctx: { passwords: scryptPasswordHasher({ logN: 4 }) },
  });
  live = withEventQueues(realm);
  server = await serveNode({ handler: createFetchHandler({ realm: live }) });
});

afterAll(async () => {
  live?.close();
  await server?.close();
  await realm?.close();
});

describe('zulip-js password login (POST /fetch_api_key)', () => {
  it('logs in with email and password, then calls the API with the key it got', async () => {
    const client = await zulip({
      realm: server.url,
      username: 'hamlet@zulip.com',
      password: 'hamlet-password',
    });
    const me = (await client.users.me.getProfile()) as Record<string, unknown>;
    expect(me).toMatchObject({ result: 'success', user_id: cast.hamlet });
    const reg = (await client.queues.register({})) as Record<string, unknown>;
    expectValidResponse('register-queue', 200, reg);
    expect(reg['recent_private_conversations']).toBeInstanceOf(Array);
  });

  it("a wrong password: zulip-js gets Zulip's AUTHENTICATION_FAILED", async () => {
    const response = await fetch(`${server.url}/api/v1/fetch_api_key`, {
      method: 'POST',
      body: new URLSearchParams({ username: 'hamlet@zulip.com', password: 'wrong' }),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      result: 'error',
      msg: 'Your username or password is incorrect',
      code: 'AUTHENTICATION_FAILED',
    });
  });
});
