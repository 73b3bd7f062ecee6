/**
 * Mounting chat-realm in a Hono app: the Fetch handler takes Hono's raw `Request`.
 * Run: `npx tsx examples/hono.ts` (serves the dev organization from memory on port 9992).
 * In your own code import from 'chat-realm/server', 'chat-realm/host' and 'chat-realm/stores/memory'.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import { withEventQueues, type RealmHandle } from 'chat-realm/host';
import { createFetchHandler, type RequestHandler } from 'chat-realm/server';
import { startExample, type RunningExample } from './shared';

export function honoApp(realm: RequestHandler): Hono {
  const zulip = createFetchHandler({ realm });
  const app = new Hono();
  app.get('/', (c) => c.text('A Zulip-compatible API lives under /api/v1'));
  // Everything under /api goes to the realm; Hono leaves the request body unread.
  app.all('/api/*', (c) => zulip(c.req.raw));
  return app;
}

export function startHono(realm: RealmHandle, port = 0, host = '127.0.0.1'): Promise<RunningExample> {
  // Event queues beside the handle: POST /register, GET /events (long-poll), DELETE /events.
  const live = withEventQueues(realm);
  const app = honoApp(live);
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, port, hostname: host }, (info: AddressInfo) => {
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

if (import.meta.url === `file://${process.argv[1]}`) await startExample('Hono', startHono);
