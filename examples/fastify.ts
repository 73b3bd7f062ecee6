/**
 * Mounting chat-realm in a Fastify 5 app. Fastify reads bodies through its content-type parsers;
 * inside the API's plugin one parser takes every content type and leaves the body unread, so the
 * Fetch handler reads it (and bounds it: a JSON 413), and Fastify sends the Fetch `Response` back.
 * Run: `npx tsx examples/fastify.ts` (serves the dev organization from memory on port 9992).
 * In your own code import from 'chat-realm/server', 'chat-realm/host' and 'chat-realm/stores/memory'.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { withEventQueues, type RealmHandle } from 'chat-realm/host';
import { createFetchHandler, toFetchRequest, type RequestHandler } from 'chat-realm/server';
import { startExample, type RunningExample } from './shared';

export function fastifyApp(realm: RequestHandler): FastifyInstance {
  const zulip = createFetchHandler({ realm });
  const app = Fastify();
  app.get('/', async () => 'A Zulip-compatible API lives under /api/v1');
  app.register(async (api) => {
    // Only inside this plugin: hand every body on as the unread stream.
    api.removeAllContentTypeParsers();
    api.addContentTypeParser('*', (_request, payload, done) => {
      done(null, payload);
    });
    api.all('/api/*', async (request, reply) => reply.send(await zulip(toFetchRequest(request.raw))));
  });
  return app;
}
export async function startFastify(
  realm: RealmHandle,
  port = 0,
  host = '127.0.0.1',
): Promise<RunningExample> {
  // Event queues beside the handle: POST /register, GET /events (long-poll), DELETE /events.
  const live = withEventQueues(realm);
  const app = fastifyApp(live);
  const url = await app.listen({ port, host }).catch((error: unknown) => {
    live.close();
    throw error;
  });
  return {
    url,
    close: () => {
      live.close(); // answers waiting long-polls first
      return app.close();
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) await startExample('Fastify', startFastify);
