/**
 * A long-poll whose client went away is released at once (issue 29), on the direct `node:http`
 * path and behind the Fetch handler: Zulip's Tornado calls the queue's `disconnect_handler` when
 * the connection closes (zerver/tornado/handlers.py `on_connection_close`), which clears the
 * waiting handler and leaves the queue's events for the client's next poll.
 */
import { request as httpRequest, type ClientRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/context';
import { withEventQueues, type LiveRealm } from '../../src/host/live-realm';
import { openRealm } from '../../src/host/realm-handle';
import { createFetchHandler } from '../../src/server/fetch';
import { serveNode, type NodeServer } from '../../src/server/node';
import { memoryStore } from '../../src/stores/memory/index';
import { basicAuthHeader } from '../../src/wire/auth';
import { cast, devRealm, devSnapshot } from '../support/realm';

const hamlet = () => devRealm().users.get(cast.hamlet)!;
const authorization = () => basicAuthHeader(hamlet().delivery_email, hamlet().api_key);

let server: NodeServer | undefined;
let live: LiveRealm | undefined;
afterEach(async () => {
  live?.close();
  await server?.close(100);
  await live?.handle.close();
  server = undefined;
  live = undefined;
});

async function start(path: 'direct' | 'fetch'): Promise<{ server: NodeServer; live: LiveRealm }> {
  const handle = await openRealm({
    store: memoryStore(),
    snapshot: devSnapshot(),
    ctx: { random: seededRandom(7) },
  });
  // A heartbeat far away: only the disconnect can release the polls within the test.
  live = withEventQueues(handle, { gcIntervalMs: 0, heartbeatSecs: () => 300 });
  const logger = { error: (m: string, e: unknown) => console.error(m, e) };
  server =
    path === 'direct'
      ? await serveNode({ realm: live, logger })
      : await serveNode({ handler: createFetchHandler({ realm: live, logger }), logger });
  return { server, live };
}

async function call(
  s: NodeServer,
  method: string,
  path: string,
  body?: string,
): Promise<Record<string, unknown>> {
  const r = await fetch(`${s.url}${path}`, {
    method,
    headers: { authorization: authorization(), 'content-type': 'application/x-www-form-urlencoded' },
    ...(body === undefined ? {} : { body }),
  });
  return (await r.json()) as Record<string, unknown>;
}

/** Starts a long-poll and returns the request, to be destroyed as a client that goes away. */
function poll(s: NodeServer, queueId: string): ClientRequest {
  const req = httpRequest(`${s.url}/api/v1/events?queue_id=${queueId}&last_event_id=-1`, {
    headers: { authorization: authorization() },
  });
  req.on('error', () => undefined);
  req.end();
  return req;
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const stop = performance.now() + ms;
  while (performance.now() < stop) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return check();
}

describe.each(['direct', 'fetch'] as const)('a disconnected long-poll (%s path)', (path) => {
  it('50 clients that go away are all released within a second', async () => {
    const { server: s, live: l } = await start(path);
    const queues: string[] = [];
    for (let i = 0; i < 50; i++) {
      const r = await call(s, 'POST', '/api/v1/register', 'event_types=["message"]');
      queues.push(r['queue_id'] as string);
    }
    const polls = queues.map((q) => poll(s, q));
    expect(await until(() => l.queues.waiting === 50, 2000)).toBe(true);
    const destroyedAt = performance.now();
    for (const p of polls) p.destroy();
    expect(await until(() => l.queues.waiting === 0, 1000)).toBe(true);
    expect(performance.now() - destroyedAt).toBeLessThan(1000);
    // The queues are still there (not dropped), ready for the clients' next poll.
    expect(l.queues.size).toBe(50);
  });

  it('the queue keeps the events that arrive after the disconnect for the next poll', async () => {
    const { server: s, live: l } = await start(path);
    const queueId = (await call(s, 'POST', '/api/v1/register', 'event_types=["message"]'))[
      'queue_id'
    ] as string;
    const p = poll(s, queueId);
    expect(await until(() => l.queues.waiting === 1, 2000)).toBe(true);
    p.destroy();
    expect(await until(() => l.queues.waiting === 0, 1000)).toBe(true);
    const sent = await call(s, 'POST', '/api/v1/messages', 'type=stream&to=Denmark&topic=t&content=after');
    expect(sent['result']).toBe('success');
    const got = await call(s, 'GET', `/api/v1/events?queue_id=${queueId}&last_event_id=-1`);
    const events = got['events'] as Array<{ type: string; message?: { id: number } }>;
    expect(events.map((e) => e.type)).toEqual(['message']);
    expect(events[0]!.message!.id).toBe(sent['id']);
  });

  it('a poll answered normally is unaffected by its connection closing afterwards', async () => {
    const { server: s, live: l } = await start(path);
    const queueId = (await call(s, 'POST', '/api/v1/register', 'event_types=["message"]'))[
      'queue_id'
    ] as string;
    const waiting = call(s, 'GET', `/api/v1/events?queue_id=${queueId}&last_event_id=-1`);
    expect(await until(() => l.queues.waiting === 1, 2000)).toBe(true);
    await call(s, 'POST', '/api/v1/messages', 'type=stream&to=Denmark&topic=t&content=live');
    const events = (await waiting)['events'] as Array<{ type: string }>;
    expect(events.map((e) => e.type)).toEqual(['message']);
  });
});
