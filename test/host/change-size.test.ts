/**
 * The change log stores only what a replay needs, and one stored change has a size bound
 * (`maxChangeBytes`) with a clear error (docs/persistence.md, "Retention and size").
 */
import { describe, expect, it, vi } from 'vitest';
import { openChange } from '../../src/host/change';
import { ChangeTooLargeError, PersistError } from '../../src/host/errors';
import { withEventQueues } from '../../src/host/live-realm';
import { openRealm, type RealmHandle } from '../../src/host/realm-handle';
import { memoryStore } from '../../src/stores/memory/index';
import { seededRandom } from '../../src/core/context';
import { basicAuthHeader } from '../../src/wire/auth';
import { createFetchHandler } from '../../src/server/fetch';
import { ALL_OPS, appendMark } from '../support/host-ops';
import { cast, devRealm, devSnapshot } from '../support/realm';

const ctx = { now: 1795219200, random: seededRandom(5) };
const hamlet = { userId: cast.hamlet };

function auth(userId: number): Record<string, string> {
  const u = devRealm().users.get(userId)!;
  return { authorization: basicAuthHeader(u.delivery_email, u.api_key) };
}

describe('what a stored change holds', () => {
  it('stores a wire request padded to the body limit as its parameters and the names of the others', async () => {
    const store = memoryStore();
    const h = await openRealm({ store, snapshot: devSnapshot(), ctx, operations: ALL_OPS });
    const padding = 'p'.repeat(1_000_000);
    const r = await h.request({
      method: 'POST',
      url: `/api/v1/saved_snippets?junk=${'q'.repeat(1000)}`,
      headers: auth(cast.hamlet),
      body: `title=Hello&content=World&padding=${padding}&more=${padding}`,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ignored_parameters_unsupported: ['junk', 'more', 'padding'] });
    const [stored] = await store.changesSince(0);
    expect(stored!.payload.length).toBeLessThan(400);
    expect(openChange(stored!, 'test', 0).input).toMatchObject({
      url: '/api/v1/saved_snippets',
      body: { junk: '', title: 'Hello', content: 'World', padding: '', more: '' },
    });
    const before = h.state;
    await h.close();
    const again = await openRealm({ store, operations: ALL_OPS, checkpoints: false });
    expect([...again.state.savedSnippets.values()]).toEqual([...before.savedSnippets.values()]);
    await again.close();
  });

  it('refuses a change larger than maxChangeBytes: not stored, not applied, a clear error', async () => {
    const store = memoryStore();
    const h = await openRealm({
      store,
      snapshot: devSnapshot(),
      ctx,
      operations: ALL_OPS,
      maxChangeBytes: 1000,
    });
    await h.run(appendMark, hamlet, { mark: 'é'.repeat(100) });
    const error = await h.run(appendMark, hamlet, { mark: 'é'.repeat(500) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PersistError);
    const cause = (error as PersistError).cause;
    expect(cause).toBeInstanceOf(ChangeTooLargeError);
    expect((cause as Error).message).toMatch(
      /^Change 2 would store 1\d{3} bytes, more than the limit of 1000 \(maxChangeBytes\); it was not applied$/,
    );
    expect(h.version).toBe(1);
    expect((await store.changesSince(0)).map((c) => c.version)).toEqual([1]);
    await h.close();
  });

  it('answers an oversized change over HTTP with a 400 that says why, not a 500', async () => {
    const h = await openRealm({ store: memoryStore(), snapshot: devSnapshot(), ctx, maxChangeBytes: 300 });
    const errors: unknown[] = [];
    const handler = createFetchHandler({
      realm: h,
      logger: { error: (message: string) => errors.push(message) },
    });
    const response = await handler(
      new Request('http://localhost/api/v1/saved_snippets', {
        method: 'POST',
        headers: { ...auth(cast.hamlet), 'content-type': 'application/x-www-form-urlencoded' },
        body: `title=Hello&content=${'x'.repeat(400)}`,
      }),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      result: 'error',
      msg: expect.stringMatching(/^Change 1 would store \d+ bytes, more than the limit of 300/),
      code: 'BAD_REQUEST',
    });
    expect(errors).toEqual([]);
    expect(h.version).toBe(0);
    await h.close();
  });
});

describe('the change log stays bounded', () => {
  it('prunes as checkpoints are written, so a load replays at most `everyChanges` changes', async () => {
    const store = memoryStore();
    const h = await openRealm({
      store,
      snapshot: devSnapshot(),
      ctx,
      operations: ALL_OPS,
      checkpoints: { everyChanges: 10, onClose: false },
    });
    for (let i = 0; i < 95; i++) {
      await h.run(appendMark, hamlet, { mark: String(i % 10) });
      // Requests arrive in turns of their own, which is when background checkpoints progress.
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Checkpoints are written in the background: wait for the one that covers version 90.
    await vi.waitFor(async () => expect((await store.load()).checkpoint?.version).toBeGreaterThanOrEqual(90));
    await h.close();
    const loaded = await store.load();
    expect(loaded.changes.length).toBeLessThanOrEqual(10);
    // A caller that never yields to the event loop still gets its checkpoints: the handle waits
    // for a background checkpoint that fell two policy counts behind.
    const busy = await openRealm({
      store,
      ctx,
      operations: ALL_OPS,
      checkpoints: { everyChanges: 10, onClose: false },
    });
    for (let i = 0; i < 95; i++) await busy.run(appendMark, hamlet, { mark: 'b' });
    expect(busy.version - (await store.load()).checkpoint!.version).toBeLessThanOrEqual(20);
    await busy.close();
    // Two checkpoints kept, and the changes from the older one on: never the whole log.
    expect(store.records.checkpoints).toHaveLength(2);
    expect(store.records.changes.length).toBeLessThanOrEqual(2 * 10 + 1);
    expect(store.records.changes[0]!.version).toBe(store.records.checkpoints[0]!.version);
  });
});

describe('a handle that fell behind the pruning', () => {
  /** Two handles on one store; `a` writes, `b` stays idle. */
  async function twoHandles() {
    const store = memoryStore();
    const a = await openRealm({
      store,
      snapshot: devSnapshot(),
      ctx,
      operations: ALL_OPS,
      checkpoints: false,
    });
    const b = await openRealm({ store, ctx, operations: ALL_OPS, checkpoints: false });
    return { store, a, b };
  }
  /** Six changes and three checkpoints by `a`: versions 1–3 are pruned. */
  async function writeAndPrune(a: RealmHandle) {
    for (let round = 0; round < 3; round++) {
      for (const mark of 'xy') await a.run(appendMark, hamlet, { mark });
      await a.checkpoint();
    }
  }

  it('catches up from the latest checkpoint when the changes it needed were pruned', async () => {
    const { store, a, b } = await twoHandles();
    await writeAndPrune(a);
    expect(store.records.changes[0]!.version).toBe(4); // 1–3 pruned; b is at 0
    const heard: string[] = [];
    b.subscribe((n) =>
      heard.push(
        n.missed ? `missed ${n.missed.from}–${n.missed.to} (${n.events.length} events)` : `${n.version}`,
      ),
    );
    const r = await b.run(appendMark, hamlet, { mark: 'z' });
    expect(r.version).toBe(7);
    expect(b.state.users.get(cast.hamlet)?.full_name).toMatch(/xyxyxyz$/);
    // Told what it will never hear about, before what follows.
    expect(heard).toEqual(['missed 1–6 (0 events)', '7']);
    await a.catchUp();
    expect(a.state).not.toBe(b.state);
    expect(a.state.users.get(cast.hamlet)).toEqual(b.state.users.get(cast.hamlet));
    await a.close();
    await b.close();
  });

  it('drops the event queues it serves, whose clients then re-register', async () => {
    const { a, b } = await twoHandles();
    const live = withEventQueues(b, { gcIntervalMs: 0 });
    const auth = {
      authorization: basicAuthHeader(
        b.state.users.get(cast.hamlet)!.email,
        b.state.users.get(cast.hamlet)!.api_key,
      ),
    };
    const reg = await live.request({ method: 'POST', url: '/api/v1/register', headers: auth, body: {} });
    const queueId = String(reg.body['queue_id']);
    await writeAndPrune(a);
    await b.catchUp();
    expect(live.queues.size).toBe(0);
    const poll = await live.request({
      method: 'GET',
      url: `/api/v1/events?queue_id=${queueId}&last_event_id=-1&dont_block=true`,
      headers: auth,
    });
    expect(poll.body).toMatchObject({ result: 'error', code: 'BAD_EVENT_QUEUE_ID' });
    // A new registration starts from the caught-up state and hears what follows.
    const again = await live.request({ method: 'POST', url: '/api/v1/register', headers: auth, body: {} });
    await a.run(appendMark, hamlet, { mark: 'z' });
    await b.catchUp();
    const next = await live.request({
      method: 'GET',
      url: `/api/v1/events?queue_id=${String(again.body['queue_id'])}&last_event_id=-1&dont_block=true`,
      headers: auth,
    });
    expect((next.body['events'] as unknown[]).length).toBeGreaterThan(0);
    live.close();
    await a.close();
    await b.close();
  });
});
