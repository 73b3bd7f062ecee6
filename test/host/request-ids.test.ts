/**
 * Idempotent forwarded writes (issue 30; src/host/request-ids.ts): a write forwarded to the lease
 * holder whose answer was lost (the holder committed it, then the connection broke, or the holder
 * died) is sent again with the same request id, and is applied once: the holder that gets the
 * retry, the same one or the next after failover, answers it from the recorded change. Before
 * request ids the follower answered 503 and the client could not know whether it was applied.
 */
import { describe, expect, it } from 'vitest';
import { allMessages } from '../../src/core/messages/store';
import { openChange } from '../../src/host/change';
import { ForwardError, leasedHandle, type Forward, type WriteLease } from '../../src/host/leased-handle';
import { openRealm, type RealmHandle } from '../../src/host/realm-handle';
import { REQUEST_ID_HEADER } from '../../src/host/request-ids';
import type { ApiRequest } from '../../src/wire/handle';
import { memoryStore } from '../../src/stores/memory/index';
import { devSnapshot } from '../support/realm';

const HAMLET = 'Basic ' + btoa('hamlet@zulip.com:hamletKKKKKKKKKKKKKKKKKKKKApiKey');
const OTHELLO = 'Basic ' + btoa('othello@zulip.com:othelloKKKKKKKKKKKKKKKKKKKApiKey');
const send = (content: string, auth = HAMLET, headers: Record<string, string> = {}): ApiRequest => ({
  method: 'POST',
  url: '/api/v1/messages',
  headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded', ...headers },
  body: new URLSearchParams({ type: 'stream', to: 'Denmark', topic: 'ids', content }).toString(),
});

const lease = (route: WriteLease['route']): WriteLease => ({ route, tick: () => Promise.resolve() });
/** A holder as the server runs it: a leased handle that holds the lease. */
const holderOf = (inner: RealmHandle) =>
  leasedHandle(inner, { lease: lease('self'), forward: () => Promise.reject(new Error('unused')) });

/** A forward that delivers to `to()`, but loses the answers of the first `lose` calls. */
function lossy(to: () => RealmHandle, lose: number): Forward & { ids: (string | undefined)[] } {
  const ids: (string | undefined)[] = [];
  const f: Forward = async (_address, request) => {
    ids.push(request.headers?.[REQUEST_ID_HEADER]);
    const got = await to().request(request);
    if (ids.length <= lose) throw new ForwardError(true, 'the answer was lost');
    return { status: got.status, body: got.body };
  };
  return Object.assign(f, { ids });
}

const messages = (h: RealmHandle) => [...allMessages(h.state.messages)].filter((m) => m.topic === 'ids');

describe('request ids: forwarded writes apply once', () => {
  it('a retry after a delivered but unanswered forward gets the first answer, applied once', async () => {
    const holder = holderOf(await openRealm({ store: memoryStore(), snapshot: devSnapshot() }));
    const forward = lossy(() => holder, 1);
    const follower = leasedHandle(await openRealm({ store: memoryStore(), snapshot: devSnapshot() }), {
      lease: lease({ address: 'http://holder' }),
      forward,
      waitMs: 2000,
      retryMs: 1,
    });
    const answer = await follower.request(send('once'));
    expect(answer.status).toBe(200);
    expect(forward.ids).toHaveLength(2);
    expect(forward.ids[0]).toBeDefined();
    expect(forward.ids[1]).toBe(forward.ids[0]);
    expect(messages(holder)).toHaveLength(1);
    expect(answer.body).toMatchObject({ result: 'success', id: messages(holder)[0]!.id });
  });

  it('a retry after failover finds the change the old holder committed, and its answer', async () => {
    const store = memoryStore();
    const first = await openRealm({ store, snapshot: devSnapshot() });
    // The next holder opened before the change: it learns of it only by catching up.
    const second = await openRealm({ store });
    const holders = [holderOf(first), holderOf(second)];
    let current = 0;
    const forward = lossy(() => holders[current]!, 1);
    const route = lease({ address: 'http://a' });
    const follower = leasedHandle(await openRealm({ store: memoryStore(), snapshot: devSnapshot() }), {
      lease: {
        get route() {
          return route.route;
        },
        tick: () => {
          current = 1; // the first holder died with the answer; the second took the lease
          return Promise.resolve();
        },
      },
      forward,
      waitMs: 2000,
      retryMs: 1,
    });
    const answer = await follower.request(send('failover'));
    expect(answer.status).toBe(200);
    expect(forward.ids).toHaveLength(2);
    expect(forward.ids[1]).toBe(forward.ids[0]);
    await second.catchUp();
    expect(second.version).toBe(1);
    expect(messages(second)).toHaveLength(1);
    expect(answer.body).toMatchObject({ result: 'success', id: messages(second)[0]!.id });
    // The change records the id and the answer (format 4); the next write is a plain format 3 one.
    const [stored] = await store.changesSince(0);
    const change = openChange(stored!, 'test', 0);
    expect(JSON.parse(stored!.payload)).toMatchObject({ format: 4 });
    expect(change.requestId).toBe(forward.ids[0]);
    expect(change.answer).toEqual(answer.body);
    await second.request(send('plain'));
    const [, plain] = await store.changesSince(0);
    expect(JSON.parse(plain!.payload)).toMatchObject({ format: 3 });
    expect(JSON.parse(plain!.payload)).not.toHaveProperty('requestId');
  });

  it('a follower that forwarded a write and then took the lease itself does not run it again', async () => {
    const store = memoryStore();
    const holder = holderOf(await openRealm({ store, snapshot: devSnapshot() }));
    const mine = await openRealm({ store });
    const route: { route: WriteLease['route'] } = { route: { address: 'http://holder' } };
    const forward = lossy(() => holder, 1);
    const follower = leasedHandle(mine, {
      lease: {
        get route() {
          return route.route;
        },
        tick: () => {
          route.route = 'self'; // the holder died after committing; this process took the lease
          return Promise.resolve();
        },
      },
      forward,
      waitMs: 2000,
      retryMs: 1,
    });
    const answer = await follower.request(send('took over'));
    expect(answer.status).toBe(200);
    expect(forward.ids).toHaveLength(1);
    expect(mine.version).toBe(1);
    expect(messages(mine)).toHaveLength(1);
    expect(answer.body).toMatchObject({ result: 'success', id: messages(mine)[0]!.id });
  });

  it('a retry that arrives while the first attempt still runs shares its outcome', async () => {
    const holder = holderOf(await openRealm({ store: memoryStore(), snapshot: devSnapshot() }));
    const tagged = send('concurrent', HAMLET, { [REQUEST_ID_HEADER]: 'same-id', 'x-chat-realm-hops': '1' });
    const [a, b] = await Promise.all([holder.request(tagged), holder.request(tagged)]);
    expect(a.body).toEqual(b.body);
    expect(messages(holder)).toHaveLength(1);
    // And once it is done, a retry is answered from the record.
    const c = await holder.request(tagged);
    expect(c.body).toEqual(a.body);
    expect(c.version).toBe(1);
    expect(messages(holder)).toHaveLength(1);
  });

  it("an id never answers another user's request", async () => {
    const holder = holderOf(await openRealm({ store: memoryStore(), snapshot: devSnapshot() }));
    const h = { [REQUEST_ID_HEADER]: 'shared-id' };
    await holder.request(send('hamlet', HAMLET, h));
    const other = await holder.request(send('othello', OTHELLO, h));
    expect(other.status).toBe(200);
    expect(messages(holder)).toHaveLength(2);
  });
});
