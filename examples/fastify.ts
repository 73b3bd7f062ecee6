/**
 * Mounting chat-realm in a Fastify 5 app. Fastify reads bodies through its content-type parsers,
 * so the API's routes take every body as raw bytes and hand them to the Fetch handler, and
 * Fastify sends the Fetch `Response` it gets back.
 * Run: `npx tsx examples/fastify.ts` (serves the dev organization from memory on port 9992).
 * In your own code import from 'chat-realm/server', 'chat-realm/host' and 'chat-realm/stores/memory'.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { createFetchHandler, toFetchRequest, type RequestHandler } from '../src/server/index';
import { startExample, type RunningExample } from './shared';

const MAX_BODY_BYTES = 1024 * 1024;

export function fastifyApp(realm: RequestHandler): FastifyInstance {
  const zulip = createFetchHandler({ realm, maxBodyBytes: MAX_BODY_BYTES });
  const app = Fastify();
  app.get('/', async () => 'A Zulip-compatible API lives under /api/v1');
  app.register(async (api) => {
    // Inside this plugin only: every content type arrives as a Buffer, parsed by chat-realm.
    // Fastify's own limit is one byte more, so chat-realm answers a too-large body (JSON 413).
    api.removeAllContentTypeParsers();
    api.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES + 1 }, (_req, body, done) => {
      done(null, body);
    });
    api.all('/api/*', async (request, reply) => {
      const body = request.body instanceof Buffer ? new Uint8Array(request.body) : undefined;
      return reply.send(await zulip(toFetchRequest(request.raw, body)));
    });
  });
  return app;
}

export async function startFastify(realm: RequestHandler, port = 0, host = '127.0.0.1'): Promise<RunningExample> {
  const app = fastifyApp(realm);
  const url = await app.listen({ port, host });
  return { url, close: () => app.close() };
}

if (import.meta.url === `file://${process.argv[1]}`) await startExample('Fastify', startFastify);
