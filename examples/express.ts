/**
 * Mounting chat-realm in an Express 5 app through the Node adapter.
 * Run: `npx tsx examples/express.ts` (serves the dev organization from memory on port 9992).
 * Mount it before any body parser (express.json(), express.urlencoded()): it reads the body itself.
 * In your own code import from 'chat-realm/server', 'chat-realm/host' and 'chat-realm/stores/memory'.
 */
import express, { type Express } from 'express';
import type { AddressInfo } from 'node:net';
import { withEventQueues, type RealmHandle } from 'chat-realm/host';
import { createFetchHandler, createNodeHandler, type RequestHandler } from 'chat-realm/server';
import { startExample, type RunningExample } from './shared';

export function expressApp(realm: RequestHandler): Express {
  const zulip = createNodeHandler(createFetchHandler({ realm }));
  const app = express();
  app.get('/', (_req, res) => {
    res.type('text').send('A Zulip-compatible API lives under /api/v1');
  });
  // A mounted listener sees the full path: the adapter reads Express's req.originalUrl.
  app.use('/api', (req, res) => {
    void zulip(req, res);
  });
  return app;
}

export function startExpress(realm: RealmHandle, port = 0, host = '127.0.0.1'): Promise<RunningExample> {
  // Event queues beside the handle: without them POST /register answers queue_id null and
  // GET /events is a 404, so Zulip's clients cannot stay live.
  const live = withEventQueues(realm);
  const app = expressApp(live);
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, (error?: Error) => {
      if (error) {
        live.close();
        return reject(error);
      }
      const bound = (server.address() as AddressInfo).port;
      resolve({
        url: `http://${host}:${bound}`,
        close: () =>
          new Promise<void>((done, fail) => {
            live.close(); // answers waiting long-polls first
            server.close((e) => (e ? fail(e) : done()));
            server.closeIdleConnections();
          }),
      });
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) await startExample('Express', startExpress);
