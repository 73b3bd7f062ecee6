/**
 * Hostile load on the event queues (issue 31): one member's never-read queue, an unbounded GET
 * /events answer, oversized register options. Each figure is asserted as a bound on serialized
 * bytes (never a timing).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/context';
import { createRealm } from '../../src/core/snapshot/create';
import { EventQueues } from '../../src/host/event-queues';
import { withEventQueues, type LiveRealm } from '../../src/host/live-realm';
import { sendMessage } from '../../src/ops/index';
import { openRealm } from '../../src/host/realm-handle';
import { memoryStore } from '../../src/stores/memory/index';
import { basicAuthHeader } from '../../src/wire/auth';
import { cast, devSnapshot, testCtx } from '../support/realm';

const MESSAGES = 1500;

/** The dev realm with `MESSAGES` more messages in Verona, read by Hamlet. */
function bigSnapshot() {
  const snap = devSnapshot();
  const first = Math.max(...snap.messages.map((m) => m.id)) + 1;
  for (let i = 0; i < MESSAGES; i++)
    snap.messages.push({
      id: first + i,
      sender_id: cast.iago,
      stream_id: 1,
      topic: `topic ${i % 40}`,
      content: `message ${i}`,
      timestamp: 1735700000 + i,
      flags: { [cast.hamlet]: ['read'] },
    });
  return snap;
}

let live: LiveRealm | undefined;
afterEach(async () => {
  live?.close();
  await live?.handle.close();
  live = undefined;
});

async function start(options: Parameters<typeof withEventQueues>[1]) {
  const snap = bigSnapshot();
  const handle = await openRealm({ store: memoryStore(), snapshot: snap, checkpoints: false });
  live = withEventQueues(handle, { gcIntervalMs: 0, heartbeatSecs: () => 1, ...options });
  const hamlet = snap.users.find((u) => u.user_id === cast.hamlet)!;
  const authorization = basicAuthHeader(hamlet.email, hamlet.api_key!);
  const call = async (method: string, path: string, params: Record<string, string> = {}) => {
    const qs = new URLSearchParams(params).toString();
    const isGet = method === 'GET';
    const r = await live!.request({
      method,
      url: `/api/v1${path}${isGet && qs ? `?${qs}` : ''}`,
      headers: { authorization },
      ...(isGet ? {} : { body: qs }),
    });
    return r;
  };
  return { live, call };
}

const flip = (op: 'add' | 'remove') => ({
  op,
  flag: 'read',
  anchor: 'oldest',
  num_before: '0',
  num_after: String(MESSAGES + 100),
  narrow: JSON.stringify([{ operator: 'channel', operand: 'Verona' }]),
});

describe('a never-read queue under mark-unread/read flooding', () => {
  it('is dropped at its byte budget (BAD_EVENT_QUEUE_ID), the process never holding more than the budget', async () => {
    const maxQueueBytes = 512 * 1024;
    const { live, call } = await start({ maxQueueBytes });
    const reg = await call('POST', '/register', {
      queue_lifespan_secs: '604800',
      event_types: '["update_message_flags"]',
    });
    const queueId = reg.body['queue_id'] as string;
    let most = 0;
    for (let i = 0; i < 40; i++) {
      expect(
        (await call('POST', '/messages/flags/narrow', flip(i % 2 === 0 ? 'remove' : 'add'))).status,
      ).toBe(200);
      most = Math.max(most, live.queues.bytes);
    }
    // Each mark-unread event names ~1,500 messages with their details (~60 KB): 40 of them
    // would be ~1.5 MB. One queue may hold its budget plus the event that crossed it, never more.
    expect(most).toBeLessThanOrEqual(maxQueueBytes + 128 * 1024);
    expect(live.queues.size).toBe(0);
    const poll = await call('GET', '/events', { queue_id: queueId, last_event_id: '-1', dont_block: 'true' });
    expect(poll.status).toBe(400);
    expect(poll.body).toMatchObject({ code: 'BAD_EVENT_QUEUE_ID', queue_id: queueId });
  });

  it('counts a mark-unread event at its serialized size, measured without serializing it', async () => {
    const { live, call } = await start({});
    // No `empty_topic_name`: the client's form renames the dev realm's empty topics in Verona.
    const reg = await call('POST', '/register', { event_types: '["update_message_flags"]' });
    const queueId = reg.body['queue_id'] as string;
    await call('POST', '/messages/flags/narrow', flip('add'));
    const before = live.queues.bytes;
    const marked = (await call('POST', '/messages/flags/narrow', flip('remove'))).body;
    expect(marked['updated_count']).toBeGreaterThan(MESSAGES);
    const poll = await call('GET', '/events', { queue_id: queueId, last_event_id: '-1', dont_block: 'true' });
    const events = poll.body['events'] as Record<string, unknown>[];
    const { id: _id, ...unread } = events.at(-1)!;
    const details = unread['message_details'] as Record<string, { topic?: string }>;
    expect(Object.keys(details)).toHaveLength(marked['updated_count'] as number);
    expect(Object.values(details).filter((d) => d.topic === 'general chat')).toHaveLength(2);
    // What the queue counted for it: exactly the JSON the client received (id included).
    expect(live.queues.bytes - before).toBe(Buffer.byteLength(JSON.stringify(events.at(-1))));
    expect(Buffer.byteLength(JSON.stringify(unread))).toBeGreaterThan(100_000);
  });

  it('merges consecutive flag events into one, as Zulip’s queue does (flags/add/starred)', async () => {
    const { live, call } = await start({});
    const reg = await call('POST', '/register', { event_types: '["update_message_flags"]' });
    const queue = reg.body['queue_id'] as string;
    for (let i = 0; i < 3; i++) {
      const r = await call('POST', '/messages/flags/narrow', {
        op: 'add',
        flag: 'starred',
        anchor: String(101 + i),
        num_before: '0',
        num_after: '0',
        narrow: '[]',
      });
      expect(r.body).toMatchObject({ result: 'success', updated_count: 1 });
    }
    const got = await call('GET', '/events', { queue_id: queue, last_event_id: '-1', dont_block: 'true' });
    expect(got.body['events']).toEqual([
      {
        type: 'update_message_flags',
        op: 'add',
        operation: 'add',
        flag: 'starred',
        messages: [101, 102, 103],
        all: false,
        id: 2,
      },
    ]);
    expect(live.queues.bytes).toBeLessThan(200);
  });

  it('keeps every queue of the process within the total budget: the largest (the never-read ones) go first', async () => {
    const maxTotalBytes = 768 * 1024;
    const { live, call } = await start({ maxTotalBytes });
    for (let i = 0; i < 5; i++) await call('POST', '/register', { event_types: '["update_message_flags"]' });
    let most = 0;
    for (let i = 0; i < 10; i++) {
      await call('POST', '/messages/flags/narrow', flip(i % 2 === 0 ? 'remove' : 'add'));
      most = Math.max(most, live.queues.bytes);
    }
    expect(most).toBeLessThanOrEqual(maxTotalBytes);
    expect(live.queues.size).toBeLessThan(5);
  });
});

describe('GET /events on a large queue', () => {
  it('answers 200 with at most maxPollBytes (plus one event) per poll, every event reaching the client in order', async () => {
    const maxPollBytes = 100 * 1024;
    const { call } = await start({ maxPollBytes });
    const reg = await call('POST', '/register', { event_types: '["update_message_flags"]' });
    const queue = reg.body['queue_id'] as string;
    for (let i = 0; i < 12; i++)
      await call('POST', '/messages/flags/narrow', flip(i % 2 === 0 ? 'remove' : 'add'));
    let last = -1;
    const ids: number[] = [];
    for (let polls = 0; polls < 50; polls++) {
      const r = await call('GET', '/events', {
        queue_id: queue,
        last_event_id: String(last),
        dont_block: 'true',
      });
      expect(r.status).toBe(200);
      const events = r.body['events'] as { id: number }[];
      if (events.length === 0) break;
      expect(events.length === 1 || JSON.stringify(events).length <= maxPollBytes).toBe(true);
      ids.push(...events.map((e) => e.id));
      last = events.at(-1)!.id;
    }
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(ids).toHaveLength(12);
  });
});

describe('oversized register options', () => {
  const narrow = (terms: number) => JSON.stringify(Array.from({ length: terms }, () => ['stream', 'Verona']));

  it('refuses a 90,000-term narrow and 90,000 event types, keeping no queue', async () => {
    const { live, call } = await start({});
    const big = await call('POST', '/register', { narrow: narrow(90_000) });
    expect(big.status).toBe(400);
    expect(big.body).toMatchObject({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'Too many narrow terms (the limit is 100)',
    });
    const types = JSON.stringify(Array.from({ length: 90_000 }, (_, i) => `t${i}`));
    const many = await call('POST', '/register', { event_types: types });
    expect(many.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Too many event_types (the limit is 200)' });
    const fetch = await call('POST', '/register', { fetch_event_types: types });
    expect(fetch.body).toMatchObject({ msg: 'Too many fetch_event_types (the limit is 200)' });
    const viaEvents = await call('GET', '/events', { dont_block: 'true', narrow: narrow(101) });
    expect(viaEvents.status).toBe(400);
    const long = await call('POST', '/register', { narrow: JSON.stringify([['topic', 'x'.repeat(1001)]]) });
    expect(long.body).toMatchObject({ msg: 'narrow operand is too long (limit: 1000 characters)' });
    expect(live.queues.size).toBe(0);
    expect((await call('POST', '/register', { narrow: narrow(100) })).status).toBe(200);
    expect(live.queues.size).toBe(1);
  });
});

describe('all_public_streams queues', () => {
  it('get messages to a public channel without subscribers (Tornado offers them every such message)', () => {
    const snap = devSnapshot();
    snap.subscriptions = snap.subscriptions.filter((s) => s.stream_id !== 5);
    const state = createRealm(snap, { random: seededRandom(1) });
    const queues = new EventQueues({ gcIntervalMs: 0 });
    const watcher = queues.create(cast.cordelia, { eventTypes: ['message'], allPublicStreams: true });
    const r = sendMessage(
      state,
      { userId: cast.iago },
      { type: 'stream', to: 5, topic: 't', content: 'anyone?' },
      testCtx(),
    );
    expect(r.status).toBe(200);
    queues.deliver(r.events);
    expect(watcher.events).toMatchObject([
      { type: 'message', flags: [], message: { stream_id: 5, content: 'anyone?' } },
    ]);
    queues.close();
  });
});
