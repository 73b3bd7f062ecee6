/**
 * Batches of forwarded writes (src/host/forward-batch.ts, issue 30): writes that pile up for a
 * holder while a forward to it is in flight go as one request, answered write by write, each
 * applied once; a batch without the holder's secret runs nothing; a batch whose answer was lost
 * is sent again and still applies each write once (request ids).
 */
import { describe, expect, it } from 'vitest';
import { allMessages } from '../../src/core/messages/store';
import { FORWARD_BATCH_PATH, FORWARD_SECRET_HEADER, type ForwardBatch } from '../../src/host/forward-batch';
import { ForwardError, leasedHandle, type Forward, type WriteLease } from '../../src/host/leased-handle';
import { openRealm, type RealmHandle } from '../../src/host/realm-handle';
import type { ApiRequest } from '../../src/wire/handle';
import { memoryStore } from '../../src/stores/memory/index';
import { devSnapshot } from '../support/realm';

const HAMLET = 'Basic ' + btoa('hamlet@zulip.com:hamletKKKKKKKKKKKKKKKKKKKKApiKey');
const send = (content: string): ApiRequest => ({
  method: 'POST',
  url: '/api/v1/messages',
  headers: { authorization: HAMLET, 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ type: 'stream', to: 'Denmark', topic: 'batch', content }).toString(),
});
const messages = (h: RealmHandle) => [...allMessages(h.state.messages)].filter((m) => m.topic === 'batch');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function pair(options: { loseFirstBatch?: boolean } = {}) {
  const holderInner = await openRealm({ store: memoryStore(), snapshot: devSnapshot() });
  const selfLease: WriteLease = { route: 'self', secret: 'sesame', tick: () => Promise.resolve() };
  const holder = leasedHandle(holderInner, {
    lease: selfLease,
    forward: () => Promise.reject(new Error('unused')),
  });
  const sizes: number[] = [];
  const single: Forward = async (_a, r) => {
    sizes.push(1);
    await sleep(20); // a round trip: what arrives meanwhile piles up
    const got = await holder.request(r);
    return { status: got.status, body: got.body };
  };
  let lose = options.loseFirstBatch ?? false;
  // In process, as src/server/forward.ts sends it over HTTP.
  const batch: ForwardBatch = async (_a, secret, requests) => {
    sizes.push(requests.length);
    const got = await holder.request({
      method: 'POST',
      url: FORWARD_BATCH_PATH,
      headers: { [FORWARD_SECRET_HEADER]: secret },
      body: new URLSearchParams({
        batch: JSON.stringify(
          requests.map((r) => ({ method: r.method, url: r.url, headers: r.headers, body: r.body })),
        ),
      }).toString(),
    });
    if (lose) {
      lose = false;
      throw new ForwardError(true, 'the answer was lost');
    }
    if (got.status !== 200) throw new ForwardError(false, `refused ${got.status}`);
    return (got.body as unknown as { answers: { status: number; body: { result: 'success'; msg: '' } }[] })
      .answers;
  };
  const follower = leasedHandle(await openRealm({ store: memoryStore(), snapshot: devSnapshot() }), {
    lease: { route: { address: 'http://holder', secret: 'sesame' }, tick: () => Promise.resolve() },
    forward: single,
    forwardBatch: batch,
    waitMs: 3000,
    retryMs: 1,
  });
  return { holder, holderInner, follower, sizes };
}

describe('batches of forwarded writes', () => {
  it('sends what piles up during a forward as one batch, each write answered and applied once', async () => {
    const { holderInner, follower, sizes } = await pair();
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => follower.request(send(`m${i}`))));
    expect(sizes).toEqual([1, 9]);
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    const stored = messages(holderInner);
    expect(stored.map((m) => m.content).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `m${i}`).sort());
    // Each client got its own write's answer.
    for (const [i, a] of answers.entries()) {
      const id = (a.body as { id?: number }).id;
      expect(stored.find((m) => m.id === id)?.content).toBe(`m${i}`);
    }
  });

  it('a batch whose answer was lost is sent again, and still applies each write once', async () => {
    const { holderInner, follower } = await pair({ loseFirstBatch: true });
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => follower.request(send(`r${i}`))));
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
    expect(messages(holderInner)).toHaveLength(6);
  });

  it('runs nothing of a batch without the holder’s secret', async () => {
    const { holder, holderInner } = await pair();
    const body = new URLSearchParams({
      batch: JSON.stringify([
        { method: 'POST', url: '/api/v1/messages', headers: send('x').headers, body: send('x').body },
      ]),
    }).toString();
    for (const headers of [{}, { [FORWARD_SECRET_HEADER]: 'guess' }]) {
      const got = await holder.request({ method: 'POST', url: FORWARD_BATCH_PATH, headers, body });
      expect(got.status).toBe(404);
    }
    expect(holderInner.version).toBe(0);
  });
});
