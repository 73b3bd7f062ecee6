/**
 * Mounting chat-realm in an Express 5 app through the Node adapter.
 * Run: `npx tsx examples/express.ts` (serves the dev organization from memory on port 9992).
 * Mount it before any body parser (express.json(), express.urlencoded()): it reads the body itself.
 * In your own code import from 'chat-realm/server', 'chat-realm/host' and 'chat-realm/stores/memory'.
 */
import express, { type Express } from 'express';
import type { AddressInfo } from 'node:net';
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

export function startExpress(realm: RequestHandler, port = 0, host = '127.0.0.1'): Promise<RunningExample> {
  const app = expressApp(realm);
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, (error?: Error) => {
      if (error) return reject(error);
      const bound = (server.address() as AddressInfo).port;
      resolve({
        url: `http://${host}:${bound}`,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((e) => (e ? fail(e) : done()));
            server.closeIdleConnections();
          }),
      });
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) await startExample('Express', startExpress);
