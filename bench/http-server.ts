/**
 * A server for the HTTP benchmark (bench/http.ts), run as its own process so that the load
 * generator does not share its event loop. `hello`: a bare `node:http` hello-world (the ceiling);
 * `direct`: chat-realm's `serveNode` on the direct `node:http` path; `fetch`: the same realm behind
 * the Fetch handler and the Node adapter. Both chat-realm servers run a realm handle on the memory
 * store, loaded from the dev-realm fixture. Prints the port, then serves until killed.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RealmSnapshotInput } from '../src/core/snapshot/format';
import { openRealm } from '../src/host/realm-handle';
import { createFetchHandler } from '../src/server/fetch';
import { serveNode } from '../src/server/node';
import { memoryStore } from '../src/stores/memory/index';

const mode = process.argv[2];
if (mode === 'hello') {
  const body = '{"result":"success","msg":"","hello":"world"}';
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
  });
} else {
  const snapshot = JSON.parse(
    readFileSync(new URL('../test/fixtures/dev-realm.json', import.meta.url), 'utf8'),
  ) as RealmSnapshotInput;
  const realm = await openRealm({ store: memoryStore(), snapshot });
  const logger = { error: (m: string, e: unknown) => console.error(m, e) };
  const server =
    mode === 'fetch'
      ? await serveNode({ handler: createFetchHandler({ realm, logger }), port: 0, logger })
      : await serveNode({ realm, port: 0, logger });
  process.stdout.write(`${server.port}\n`);
}
