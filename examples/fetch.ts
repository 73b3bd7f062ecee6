/**
 * The Fetch handler on its own: `createFetchHandler` is a `(Request) => Promise<Response>`, what
 * Bun (`Bun.serve({ fetch })`), Deno (`Deno.serve(fetch)`) and Cloudflare Workers
 * (`export default { fetch }`) serve directly. On Node any Fetch-style server does; this one uses
 * @hono/node-server's `serve`. The realm handle gets its event queues (`withEventQueues`), so
 * Zulip's clients register and long-poll GET /events through the same handler.
 * Run: `npx tsx examples/fetch.ts` (serves the dev organization from memory on port 9992).
 * In your own code import from 'chat-realm/server', 'chat-realm/host' and 'chat-realm/stores/memory'.
 */
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { withEventQueues, type RealmHandle } from 'chat-realm/host';
import { createFetchHandler } from 'chat-realm/server';
import { startExample, type RunningExample } from './shared';

export function startFetch(realm: RealmHandle, port = 0, host = '127.0.0.1'): Promise<RunningExample> {
  const live = withEventQueues(realm);
  const fetch = createFetchHandler({ realm: live });
  return new Promise((resolve) => {
    const server = serve({ fetch, port, hostname: host }, (info: AddressInfo) => {
      resolve({
        url: `http://${host}:${info.port}`,
        close: () => {
          live.close(); // answers waiting long-polls first
          return new Promise<void>((done, fail) => server.close((e) => (e ? fail(e) : done())));
        },
      });
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) await startExample('Fetch handler', startFetch);
