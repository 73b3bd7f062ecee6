import zulip, { type ZulipClient } from 'zulip-js';
import { afterAll, beforeAll } from 'vitest';
import { withEventQueues, type LiveRealm } from '../../src/host/live-realm';
import { openRealm, type OpenRealmOptions, type RealmHandle } from '../../src/host/realm-handle';
import { createFetchHandler } from '../../src/server/fetch';
import { serveNode, type NodeServer } from '../../src/server/node';
import { memoryStore, type MemoryStore } from '../../src/stores/memory/index';
import { cast, devSnapshot, type CastName } from './realm';

/** The dev realm served over loopback for one zulip-js test file: its handle, store and clients. */
export interface ZulipJsServer {
  readonly realm: RealmHandle;
  readonly store: MemoryStore;
  /** A zulip-js client logged in as one of the dev realm's cast. */
  as(who: CastName): Promise<ZulipClient>;
}

/**
 * Opens the dev realm on a memory store with event queues, serves it, and closes it all after the
 * file's tests (vitest hooks registered by the call). The fields are set before the first test.
 */
export function zulipJsServer(ctx?: OpenRealmOptions['ctx']): ZulipJsServer {
  let realm: RealmHandle | undefined;
  let live: LiveRealm | undefined;
  let server: NodeServer | undefined;
  const store = memoryStore();
  beforeAll(async () => {
    realm = await openRealm({ store, snapshot: devSnapshot(), ...(ctx !== undefined ? { ctx } : {}) });
    live = withEventQueues(realm, { gcIntervalMs: 0 });
    server = await serveNode({ handler: createFetchHandler({ realm: live }) });
  });
  afterAll(async () => {
    live?.close();
    await server?.close();
    await realm?.close();
  });
  return {
    get realm() {
      if (realm === undefined) throw new Error('zulipJsServer: the realm opens in beforeAll');
      return realm;
    },
    store,
    async as(who) {
      if (realm === undefined || server === undefined) throw new Error('zulipJsServer: not started');
      const user = realm.state.users.get(cast[who])!;
      return zulip({ realm: server.url, username: user.delivery_email, apiKey: user.api_key });
    },
  };
}
