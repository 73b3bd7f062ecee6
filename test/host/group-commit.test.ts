/**
 * Group commit in the realm handle: requests that arrive while a batch is being committed are run
 * together and appended in one call; nobody is answered, and `handle.state` does not move, before
 * the batch is durable; a failed batch rejects all of its changes and leaves the realm as it was.
 */
import { describe, expect, it } from 'vitest';
import { openRealm, type HandleResult } from '../../src/host/realm-handle';
import { PersistError } from '../../src/host/errors';
import type { RealmStore, SealedChange } from '../../src/host/store';
import { memoryStore } from '../../src/stores/memory/index';
import { seededRandom } from '../../src/core/context';
import { basicAuthHeader } from '../../src/wire/auth';
import { cast, devRealm, devSnapshot } from '../support/realm';
import { ALL_OPS, appendMark } from '../support/host-ops';

const hamlet = { userId: cast.hamlet };
const ctx = { now: 1795219200, random: seededRandom(3) };

/** A memory store whose appends wait until the test lets each one finish (or fail). */
function gatedStore() {
  const inner = memoryStore();
  const calls: Array<{ changes: readonly SealedChange[]; finish: (error?: Error) => void }> = [];
  const waiters: Array<() => void> = [];
  const store: RealmStore = {
    ...inner,
    appendBatch: (changes, expected) =>
      new Promise<void>((resolve, reject) => {
        calls.push({
          changes,
          finish: (error) =>
            error ? reject(error) : inner.appendBatch(changes, expected).then(resolve, reject),
        });
        for (const w of waiters.splice(0)) w();
      }),
  };
  /** Resolves once `n` appends have been asked for. */
  const appends = (n: number) =>
    new Promise<void>((resolve) => {
      const check = () => (calls.length >= n ? resolve() : waiters.push(check));
      check();
    });
  return { store, inner, calls, appends };
}

/** A memory store that records the size of every batch appended to it. */
function sizedStore(): { store: RealmStore; sizes: number[] } {
  const inner = memoryStore();
  const sizes: number[] = [];
  const store: RealmStore = {
    ...inner,
    appendBatch: (changes, expected) => (sizes.push(changes.length), inner.appendBatch(changes, expected)),
  };
  return { store, sizes };
}

const me = () => {
  const u = devRealm().users.get(cast.hamlet)!;
  return {
    method: 'GET',
    url: '/api/v1/users/me',
    headers: { authorization: basicAuthHeader(u.delivery_email, u.api_key) },
  };
};

const nameIn = (r: HandleResult) => (r.body as { full_name?: string }).full_name ?? '';

/** Records when each promise settles. */
function track<T>(p: Promise<T>, log: string[], name: string): Promise<T> {
  return p.then(
    (v) => (log.push(name), v),
    (e: unknown) => {
      log.push(`${name} failed`);
      throw e;
    },
  );
}

describe('group commit', () => {
  it('runs what arrives during a commit as one batch, answering nobody before it is durable', async () => {
    const { store, inner, calls, appends } = gatedStore();
    const h = await openRealm({ store, snapshot: devSnapshot(), ctx, operations: ALL_OPS });
    const initial = h.state;
    const log: string[] = [];
    const first = track(h.run(appendMark, hamlet, { mark: '1' }), log, '1');
    await appends(1);
    const later = [
      track(h.run(appendMark, hamlet, { mark: '2' }), log, '2'),
      track(h.request(me()), log, 'read'),
      track(h.run(appendMark, hamlet, { mark: '3' }), log, '3'),
    ];
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(log).toEqual([]);
    expect(h.version).toBe(0);
    expect(h.state).toBe(initial);
    calls[0]!.finish();
    expect((await first).version).toBe(1);
    await appends(2);
    // The second batch holds both changes; the read between them waits for it too.
    expect(calls[1]!.changes.map((c) => c.version)).toEqual([2, 3]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(log).toEqual(['1']);
    expect(h.version).toBe(1);
    expect(h.state.users.get(cast.hamlet)!.full_name).toMatch(/[^2]1$/);
    calls[1]!.finish();
    const [two, read, three] = (await Promise.all(later)) as [HandleResult, HandleResult, HandleResult];
    expect([two.version, read.version, three.version]).toEqual([2, 2, 3]);
    expect(nameIn(read)).toMatch(/12$/);
    expect(log).toEqual(['1', '2', 'read', '3']);
    expect(h.state.users.get(cast.hamlet)!.full_name).toMatch(/123$/);
    expect(inner.records.changes.map((c) => c.version)).toEqual([1, 2, 3]);
    await h.close();
  });

  it('rejects every change of a failed batch with PersistError, leaves the realm as before, and runs later reads again', async () => {
    const { store, inner, calls, appends } = gatedStore();
    const h = await openRealm({ store, snapshot: devSnapshot(), ctx, operations: ALL_OPS });
    const heard: number[] = [];
    h.subscribe((n) => heard.push(n.version));
    const first = h.run(appendMark, hamlet, { mark: '1' });
    await appends(1);
    const before = h.request(me());
    const x = h.run(appendMark, hamlet, { mark: 'x' }).catch((e: unknown) => e);
    const after = h.request(me());
    const y = h.run(appendMark, hamlet, { mark: 'y' }).catch((e: unknown) => e);
    calls[0]!.finish();
    await first;
    await appends(2);
    const durable = h.state;
    calls[1]!.finish(new Error('disk full'));
    const [ex, ey] = await Promise.all([x, y]);
    expect(ex).toBeInstanceOf(PersistError);
    expect(ey).toBeInstanceOf(PersistError);
    expect([(ex as PersistError).version, (ey as PersistError).version]).toEqual([2, 3]);
    expect((ex as PersistError).cause).toEqual(new Error('disk full'));
    // The read that came before the failed changes saw only durable state; the one after them
    // runs again, on the realm as it is.
    expect(nameIn(await before)).toMatch(/1$/);
    const reread = await after;
    expect(nameIn(reread)).toMatch(/1$/);
    expect(reread.version).toBe(1);
    expect(calls).toHaveLength(2);
    expect(h.state).toBe(durable);
    expect(h.version).toBe(1);
    expect(heard).toEqual([1]);
    expect(inner.records.changes.map((c) => c.version)).toEqual([1]);
    // The handle goes on from there.
    const next = h.run(appendMark, hamlet, { mark: 'z' });
    await appends(3);
    calls[2]!.finish();
    expect((await next).version).toBe(2);
    expect(h.state.users.get(cast.hamlet)!.full_name).toMatch(/1z$/);
    await h.close();
  });

  it("keeps each caller's order, and every batch's changes in arrival order", async () => {
    const store = memoryStore();
    const h = await openRealm({ store, snapshot: devSnapshot(), ctx, operations: ALL_OPS });
    const callers = ['a', 'b', 'c', 'd'];
    const issued: string[] = [];
    await Promise.all(
      callers.map(async (c) => {
        for (let i = 0; i < 10; i++) {
          // Two in flight per caller: the second is issued before the first is answered.
          const mark = `${c}${i}`;
          issued.push(mark);
          const pending = h.run(appendMark, hamlet, { mark });
          if (i % 2 === 1) await pending;
        }
      }),
    );
    await h.close();
    const name = h.state.users.get(cast.hamlet)!.full_name;
    const tail = name.slice(name.length - issued.join('').length);
    expect(tail).toBe(issued.join(''));
    for (const c of callers) {
      const mine = [...tail.matchAll(new RegExp(`${c}(\\d)`, 'g'))].map((m) => Number(m[1]));
      expect(mine).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    }
  });

  it('commits one change per transaction with maxBatch: 1', async () => {
    const { store, sizes } = sizedStore();
    const h = await openRealm({ store, snapshot: devSnapshot(), ctx, operations: ALL_OPS, maxBatch: 1 });
    await Promise.all('abcdef'.split('').map((mark) => h.run(appendMark, hamlet, { mark })));
    expect(sizes).toEqual([1, 1, 1, 1, 1, 1]);
    await expect(openRealm({ store: memoryStore(), snapshot: devSnapshot(), maxBatch: 0 })).rejects.toThrow(
      /maxBatch must be a positive integer/,
    );
  });

  it('batches up to maxBatch requests', async () => {
    const { store, sizes } = sizedStore();
    const h = await openRealm({ store, snapshot: devSnapshot(), ctx, operations: ALL_OPS, maxBatch: 4 });
    await Promise.all('abcdefghij'.split('').map((mark) => h.run(appendMark, hamlet, { mark })));
    expect(sizes).toEqual([4, 4, 2]);
    expect(h.state.users.get(cast.hamlet)!.full_name).toMatch(/abcdefghij$/);
  });

  it('on the memory store, requests read in one turn of the event loop go in together; one that comes alone waits for nothing', async () => {
    const { store, sizes } = sizedStore();
    const h = await openRealm({ store, snapshot: devSnapshot(), ctx, operations: ALL_OPS });
    // A lone request, then another a turn later: each its own batch.
    await h.run(appendMark, hamlet, { mark: 'a' });
    await new Promise((resolve) => setImmediate(resolve));
    await h.run(appendMark, hamlet, { mark: 'b' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(sizes).toEqual([1, 1]);
    // Eight requests as connections' requests are read: each in its own callback of one turn,
    // the microtasks of the one before run in between (so the first is answered before the second
    // is even made). The first goes alone; the second sees that they come together and waits a turn.
    const runs = await new Promise<Array<Promise<unknown>>>((resolve) => {
      const made: Array<Promise<unknown>> = [];
      for (const mark of 'cdefghij')
        setImmediate(() => {
          made.push(h.run(appendMark, hamlet, { mark }));
          if (made.length === 8) resolve(made);
        });
    });
    await Promise.all(runs);
    expect(sizes).toEqual([1, 1, 1, 7]);
    expect(h.state.users.get(cast.hamlet)!.full_name).toMatch(/abcdefghij$/);
  });

  it("with writeLock 'always', appends holding the store's write lock, never takes it for reads, and refuses the batch when it cannot be taken", async () => {
    const inner = memoryStore();
    const log: string[] = [];
    let broken = false;
    const store: RealmStore = {
      ...inner,
      appendBatch: (changes, expected) => (
        log.push(`append ${changes.length}`),
        inner.appendBatch(changes, expected)
      ),
      exclusive: async (work) => {
        if (broken) throw new Error('no lock');
        log.push('lock');
        try {
          return await work();
        } finally {
          log.push('unlock');
        }
      },
    };
    const h = await openRealm({
      store,
      snapshot: devSnapshot(),
      ctx,
      operations: ALL_OPS,
      writeLock: 'always',
    });
    await Promise.all([h.run(appendMark, hamlet, { mark: 'a' }), h.run(appendMark, hamlet, { mark: 'b' })]);
    expect((await h.request(me())).status).toBe(200);
    expect(log).toEqual(['lock', 'append 2', 'unlock']);
    broken = true;
    const error = await h.run(appendMark, hamlet, { mark: 'c' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PersistError);
    expect((error as PersistError).cause).toEqual(new Error('no lock'));
    expect(h.version).toBe(2);
    expect(nameIn(await h.request(me()))).toMatch(/ab$/);
  });

  it('appends without the lock until it loses a race, then runs again caught up under the lock, which it keeps taking while contended', async () => {
    const inner = memoryStore();
    const log: string[] = [];
    const store: RealmStore = {
      ...inner,
      // A store that tells the handle about other writers: it does not catch up before a write.
      watch: async () => async () => {},
      changesSince: (after) => (log.push(`catch up from ${after}`), inner.changesSince(after)),
      appendBatch: (changes, expected) =>
        inner.appendBatch(changes, expected).then(
          () => void log.push(`append ${changes.length} at ${expected}`),
          (error: unknown) => {
            log.push(`conflict at ${expected}`);
            throw error;
          },
        ),
      exclusive: async (work) => {
        log.push('lock');
        try {
          return await work();
        } finally {
          log.push('unlock');
        }
      },
    };
    const h = await openRealm({ store, snapshot: devSnapshot(), ctx, operations: ALL_OPS, maxRetries: 1 });
    await h.run(appendMark, hamlet, { mark: 'a' });
    expect(log).toEqual(['append 1 at 0']);
    // Another process appends version 2 behind the handle's back (and its notification is late).
    const peer = await openRealm({ store: inner, ctx, operations: ALL_OPS, checkpoints: false });
    await peer.run(appendMark, hamlet, { mark: 'x' });
    log.length = 0;
    // The handle runs on version 1, loses the race, then catches up under the lock and wins.
    const r = await h.run(appendMark, hamlet, { mark: 'b' });
    expect(r.version).toBe(3);
    expect(log).toEqual(['conflict at 1', 'lock', 'catch up from 1', 'append 1 at 2', 'unlock']);
    expect(h.state.users.get(cast.hamlet)!.full_name).toMatch(/axb$/);
    // Contended recently: the next write takes the lock first; a read never does.
    log.length = 0;
    await h.run(appendMark, hamlet, { mark: 'c' });
    expect((await h.request(me())).status).toBe(200);
    expect(log).toEqual(['lock', 'catch up from 3', 'append 1 at 3', 'unlock', 'catch up from 4']);
    await peer.close();
    await h.close();
  });

  it('lets requests that arrive while a batch waits for the write lock join it: one append for all', async () => {
    const inner = memoryStore();
    const log: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const store: RealmStore = {
      ...inner,
      appendBatch: (changes, expected) => (
        log.push(`append ${changes.length}`),
        inner.appendBatch(changes, expected)
      ),
      exclusive: async (work) => {
        log.push('waiting');
        await held;
        return work();
      },
    };
    const h = await openRealm({
      store,
      snapshot: devSnapshot(),
      ctx,
      operations: ALL_OPS,
      writeLock: 'always',
    });
    const first = h.run(appendMark, hamlet, { mark: 'a' });
    while (log.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    // The first batch waits for the lock; these form the next one, and join the first instead.
    const later = [
      h.run(appendMark, hamlet, { mark: 'b' }),
      h.request(me()),
      h.run(appendMark, hamlet, { mark: 'c' }),
    ];
    await new Promise((resolve) => setTimeout(resolve, 5));
    release();
    const [a, b, read, c] = await Promise.all([first, ...later]);
    expect([a!.version, b!.version, read!.version, c!.version]).toEqual([1, 2, 2, 3]);
    expect(nameIn(read!)).toMatch(/ab$/);
    expect(log).toEqual(['waiting', 'append 3']);
    await h.close();
  });
});
