/**
 * A server for the HTTP benchmark (bench/http.ts), run as its own process so that the load
 * generator does not share its event loop. Prints the port, then serves until killed.
 *
 * - `serve`: what `chat-realm serve --memory` runs (src/cli/serve.ts): the realm handle on the
 *   memory store behind event queues, the direct `node:http` path, Zulip's per-user rate limit
 *   (raised so the bench is never refused, but counted) and fair scheduling (on, as by default).
 *   Seeded from the dev-realm fixture.
 * - `serve-unfair`: the same with fair scheduling off (`serve --fair-share off`), to show its cost.
 * - `fetch`: the same realm behind the Fetch handler and the Node adapter (what a Fetch host runs).
 * - `floor`: a bare `node:http` server answering the same bytes: `FLOOR_ME` for GET, and for POST
 *   (once the body is read) `FLOOR_SEND` with `{id}` replaced by a counter, so each answer has the
 *   length of chat-realm's. It does only the irreducible work of an HTTP server: parse, read the
 *   body, write the answer.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServe } from '../src/cli/serve';
import { withEventQueues } from '../src/host/live-realm';
import { openRealm } from '../src/host/realm-handle';
import { createFetchHandler } from '../src/server/fetch';
import { serveNode } from '../src/server/node';
import { memoryStore } from '../src/stores/memory/index';
import { readRealm } from '../src/cli/transfer';
import { seededRandom } from '../src/core/context';
import { handleApiRequest } from '../src/wire/handle';

const FIXTURE = new URL('../test/fixtures/dev-realm.json', import.meta.url).pathname;
const mode = process.argv[2];
if (mode === 'floor') {
  const me = process.env['FLOOR_ME'] ?? '';
  const [before, after] = (process.env['FLOOR_SEND'] ?? '{id}').split('{id}') as [string, string];
  let id = 1000;
  const server = createServer((req, res) => {
    const answer = (body: string) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    if (req.method === 'GET') {
      answer(me);
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      Buffer.concat(chunks);
      answer(`${before}${id++}${after}`);
    });
  });
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
  });
} else if (mode === 'op') {
  // The ceiling of any host: node:http plus the wire layer and the operation on a state held in a
  // variable. Nothing is recorded, no event queue is fed, no limit or scheduling applies.
  let state = await readRealm(FIXTURE);
  const random = seededRandom(1);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const authorization = req.headers.authorization;
      const r = handleApiRequest(
        state,
        {
          method: req.method ?? 'GET',
          url: req.url ?? '/',
          ...(authorization === undefined ? {} : { headers: { authorization } }),
          ...(req.method === 'GET' ? {} : { body: Buffer.concat(chunks).toString() }),
        },
        { now: Math.floor(Date.now() / 1000), random },
      );
      state = r.state;
      const body = JSON.stringify(r.body);
      res.writeHead(r.status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      });
      res.end(body);
    });
  });
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
  });
} else if (mode === 'serve' || mode === 'serve-unfair') {
  const io = { out: () => undefined, err: (t: string) => process.stderr.write(`${t}\n`) };
  const serving = await startServe(
    [
      '--memory',
      '--snapshot',
      FIXTURE,
      '--port',
      '0',
      '--rate-limit',
      '1000000000/60',
      ...(mode === 'serve-unfair' ? ['--fair-share', 'off'] : []),
    ],
    io,
  );
  if (serving === 'help') throw new Error('unexpected help');
  process.stdout.write(`${serving.server.port}\n`);
} else if (mode === 'fetch') {
  const realm = await openRealm({
    store: memoryStore({ watch: true }),
    initialState: await readRealm(FIXTURE),
  });
  const logger = { error: (m: string, e: unknown) => console.error(m, e) };
  const live = withEventQueues(realm);
  const server = await serveNode({ handler: createFetchHandler({ realm: live, logger }), port: 0, logger });
  process.stdout.write(`${server.port}\n`);
} else {
  throw new Error(`unknown mode ${String(mode)}`);
}
