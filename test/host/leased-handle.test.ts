/**
 * Where a leased handle sends a wire request (src/host/leased-handle.ts, issue 30): reads stay
 * local, writes run here only while this process holds the lease and are forwarded otherwise; a
 * fenced write goes to the new holder; a forward that may have reached the holder is never sent
 * twice. A fake lease and transport: no database, no network.
 */
import { describe, expect, it } from 'vitest';
import { LeaseLostError } from '../../src/host/errors';
import {
  ForwardError,
  HOPS_HEADER,
  leasedHandle,
  type Forward,
  type WriteLease,
} from '../../src/host/leased-handle';
import { openRealm } from '../../src/host/realm-handle';
import { REQUEST_ID_HEADER } from '../../src/host/request-ids';
import type { RealmStore } from '../../src/host/store';
import type { ApiRequest } from '../../src/wire/handle';
import { memoryStore } from '../../src/stores/memory/index';
import { devSnapshot } from '../support/realm';

const HAMLET = 'Basic ' + btoa('hamlet@zulip.com:hamletKKKKKKKKKKKKKKKKKKKKApiKey');
const patch = (name: string, headers: Record<string, string> = {}): ApiRequest => ({
  method: 'PATCH',
  url: '/api/v1/settings',
  headers: { authorization: HAMLET, ...headers },
  body: `full_name=${name}`,
});
const read: ApiRequest = { method: 'GET', url: '/api/v1/users/me', headers: { authorization: HAMLET } };

class FakeLease implements WriteLease {
  route: WriteLease['route'];
  ticks = 0;
  onTick: (() => void) | undefined;
  constructor(route: WriteLease['route']) {
    this.route = route;
  }
  tick(): Promise<void> {
    this.ticks++;
    this.onTick?.();
    return Promise.resolve();
  }
}

async function setup(route: WriteLease['route'], forward: Forward, store: RealmStore = memoryStore()) {
  const inner = await openRealm({ store, snapshot: devSnapshot() });
  const lease = new FakeLease(route);
  const handle = leasedHandle(inner, { lease, forward, waitMs: 300, retryMs: 5 });
  return { inner, lease, handle };
}

const ok: Forward = () => Promise.resolve({ status: 200, body: { result: 'success', msg: '' } });

describe('leasedHandle', () => {
  it('answers reads locally and runs writes locally while it holds the lease', async () => {
    const sent: ApiRequest[] = [];
    const { inner, handle } = await setup('self', (a, r) => (sent.push(r), ok(a, r)));
    expect((await handle.request(read)).status).toBe(200);
    const w = await handle.request(patch('Here'));
    expect(w.status).toBe(200);
    expect(inner.version).toBe(1);
    expect(sent).toEqual([]);
  });

  it('forwards writes to the holder, counting the hop, and answers with its answer', async () => {
    const sent: { address: string; request: ApiRequest }[] = [];
    const { inner, handle } = await setup({ address: 'http://holder' }, (address, request) => {
      sent.push({ address, request });
      return Promise.resolve({ status: 400, body: { result: 'error', msg: 'nope', code: 'BAD_REQUEST' } });
    });
    const answer = await handle.request(patch('There'));
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ result: 'error', msg: 'nope', code: 'BAD_REQUEST' });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.address).toBe('http://holder');
    expect(sent[0]!.request.headers?.[HOPS_HEADER]).toBe('1');
    expect(sent[0]!.request.body).toBe('full_name=There');
    expect(inner.version).toBe(0);
    // Reads never leave the process.
    expect((await handle.request(read)).status).toBe(200);
    expect(sent).toHaveLength(1);
  });

  it('sends a write that never reached the holder again once the lease moved (here: to itself)', async () => {
    let calls = 0;
    const { inner, lease, handle } = await setup({ address: 'http://dead' }, () => {
      calls++;
      return Promise.reject(new ForwardError(false, 'ECONNREFUSED'));
    });
    lease.onTick = () => {
      if (lease.ticks >= 3) lease.route = 'self';
    };
    const answer = await handle.request(patch('Moved'));
    expect(answer.status).toBe(200);
    expect(calls).toBe(3);
    expect(inner.version).toBe(1);
  });

  it('sends a write that may have reached the holder again with the same request id, then answers 503', async () => {
    const ids: (string | undefined)[] = [];
    const { handle } = await setup({ address: 'http://stalled' }, (_a, r) => {
      ids.push(r.headers?.[REQUEST_ID_HEADER]);
      return Promise.reject(new ForwardError(true, 'timeout'));
    });
    const answer = await handle.request(patch('Unknown'));
    expect(answer.status).toBe(503);
    expect(answer.body.msg).toMatch(/may or may not have been applied/);
    expect(ids.length).toBeGreaterThan(1);
    expect(new Set(ids).size).toBe(1);
    expect(ids[0]).toMatch(/\S{8,}/);
  });

  it('a fenced write (nothing stored) goes to the new holder; a forwarded one is answered 503', async () => {
    const inner = memoryStore();
    let fenced = true;
    const store: RealmStore = {
      ...inner,
      appendBatch: (changes, expected) =>
        fenced ? Promise.reject(new LeaseLostError('test', 1, 2)) : inner.appendBatch(changes, expected),
    };
    const sent: ApiRequest[] = [];
    const { lease, handle, inner: h } = await setup('self', (a, r) => (sent.push(r), ok(a, r)), store);
    lease.onTick = () => (lease.route = { address: 'http://new' });
    const answer = await handle.request(patch('Fenced'));
    expect(answer.status).toBe(200);
    expect(sent).toHaveLength(1);
    expect(h.version).toBe(0);
    // Forwarded to us (hops 1) and fenced: the sender may have given up, so no second forward.
    lease.route = 'self';
    const again = await handle.request(patch('Twice', { [HOPS_HEADER]: '1' }));
    expect(again.status).toBe(503);
    expect(sent).toHaveLength(1);
    fenced = false;
  });

  it('waits for a holder during failover, up to waitMs, then answers 503', async () => {
    const { lease, handle } = await setup(undefined, ok);
    const t = performance.now();
    const answer = await handle.request(patch('Nobody'));
    expect(answer.status).toBe(503);
    expect(performance.now() - t).toBeGreaterThanOrEqual(250);
    expect(lease.ticks).toBeGreaterThan(1);
  });

  it('does not forward a request that already made three hops', async () => {
    let calls = 0;
    const { handle } = await setup({ address: 'http://elsewhere' }, (a, r) => (calls++, ok(a, r)));
    const answer = await handle.request(patch('Loop', { [HOPS_HEADER]: '3' }));
    expect(answer.status).toBe(503);
    expect(calls).toBe(0);
  });
});
