/**
 * Fair scheduling's lone-user window (`maxGroup`, what `serve` turns on): while nobody else is
 * active, a user's cheap requests go into the realm as they arrive, as many at once as its recent
 * cost per request fits in `groupMs`, in order; expensive requests still go one at a time, so
 * another user's request waits behind about `groupMs` of work beyond one request. Fake clocks only.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withEventQueues } from '../../src/host/live-realm';
import { openRealm } from '../../src/host/realm-handle';
import { FairScheduler } from '../../src/server/fairness';
import { createHttpCore } from '../../src/server/http';
import { pureRealm } from '../../src/server/pure';
import { memoryStore } from '../../src/stores/memory/index';
import { basicAuthHeader } from '../../src/wire/auth';
import { settleWithTime } from '../support/fair-clock';
import { cast, devRealm, testCtx } from '../support/realm';

const flush = () => new Promise((resolve) => setImmediate(resolve));

const authOf = (id: number) => {
  const u = devRealm().users.get(id)!;
  return basicAuthHeader(u.delivery_email, u.api_key);
};

/** A scheduler on a fake clock whose tasks cost `costMs` of busy time each (set per call). */
function fakeScheduler(options: { maxGroup: number; groupMs: number }) {
  const clock = { now: 0, busy: 0 };
  const scheduler = new FairScheduler({
    ...options,
    now: () => clock.now,
    busy: () => clock.busy,
    setTimer: () => undefined,
  });
  return { clock, scheduler };
}

describe("fair scheduling: a lone user's window", () => {
  it("lets a cheap user's requests in together, and an expensive user's one at a time", async () => {
    const { clock, scheduler } = fakeScheduler({ maxGroup: 8, groupMs: 1 });
    const started: string[] = [];
    const inRealm = new Set<string>();
    const peaks: number[] = [];
    const task = (name: string, costMs: number) => async () => {
      started.push(name);
      inRealm.add(name);
      peaks.push(inRealm.size);
      await Promise.resolve();
      clock.busy += costMs;
      clock.now += costMs;
      inRealm.delete(name);
      return name;
    };
    // First measured alone (0.1 ms), then 20 queued at once: groups of 1 / 0.1 = 10, capped at 8.
    await scheduler.run('cheap', task('c', 0.1));
    const burst = Array.from({ length: 20 }, (_, i) => scheduler.run('cheap', task(`c${i}`, 0.1)));
    expect(await Promise.all(burst)).toEqual(Array.from({ length: 20 }, (_, i) => `c${i}`));
    expect(started.slice(1)).toEqual(Array.from({ length: 20 }, (_, i) => `c${i}`));
    // In as they came, up to 8 at once.
    expect(Math.max(...peaks)).toBe(8);

    peaks.length = 0;
    await scheduler.run('costly', task('x', 5));
    const costly = Array.from({ length: 5 }, (_, i) => scheduler.run('costly', task(`x${i}`, 5)));
    await Promise.all(costly);
    expect(Math.max(...peaks)).toBe(1);
  });

  it('one expensive request keeps the window small (the estimate rises at once, falls by half)', async () => {
    const { clock, scheduler } = fakeScheduler({ maxGroup: 32, groupMs: 1 });
    let inRealm = 0;
    let peak = 0;
    const task = (costMs: number) => async () => {
      inRealm++;
      peak = Math.max(peak, inRealm);
      await Promise.resolve();
      clock.busy += costMs;
      inRealm--;
    };
    await scheduler.run('u', task(0.01));
    await scheduler.run('u', task(8));
    // Estimate 8 ms: the next request goes alone, and so on while 8 / 2^k > 1 ms.
    peak = 0;
    const next = Array.from({ length: 3 }, () => scheduler.run('u', task(0.01)));
    await Promise.all(next);
    expect(peak).toBe(1);
  });

  it("a second user's request never waits behind the rest of a burst, and closes the window while active", async () => {
    const { clock, scheduler } = fakeScheduler({ maxGroup: 4, groupMs: 10 });
    const log: string[] = [];
    const gates: (() => void)[] = [];
    const task = (name: string) => () => {
      log.push(name);
      return new Promise<string>((resolve) => {
        gates.push(() => {
          clock.busy += 0.5;
          resolve(name);
        });
      });
    };
    // Measured once.
    const first = scheduler.run('a', task('a'));
    gates.shift()!();
    await first;
    const burst = Array.from({ length: 12 }, (_, i) => scheduler.run('a', task(`a${i}`)));
    const b = scheduler.run('b', task('b'));
    await flush();
    // a's first four as they came (0.5 ms each fits 20 in 10 ms, capped at 4), b at once (its own place).
    expect(log).toEqual(['a', 'a0', 'a1', 'a2', 'a3', 'b']);
    for (const g of gates.splice(0)) g();
    await flush();
    // b is active: a's requests go one at a time again (the window is for a user alone).
    expect(log.slice(6)).toEqual(['a4']);
    while (gates.length > 0) {
      for (const g of gates.splice(0)) g();
      await flush();
    }
    await Promise.all([...burst, b]);
    expect(log.filter((l) => l.startsWith('a') && l !== 'a')).toEqual(
      Array.from({ length: 12 }, (_, i) => `a${i}`),
    );
    // b quiet for longer than the active window: a's requests go in together again.
    clock.now += 2000;
    const later = Array.from({ length: 6 }, (_, i) => scheduler.run('a', task(`l${i}`)));
    await flush();
    expect(log.slice(-4)).toEqual(['l0', 'l1', 'l2', 'l3']);
    gates.shift()!();
    await flush();
    expect(log.slice(-1)).toEqual(['l4']);
    while (gates.length > 0) {
      for (const g of gates.splice(0)) g();
      await flush();
    }
    await Promise.all(later);
  });

  it('a task that throws or rejects frees its place, whether it went straight in or waited', async () => {
    const { scheduler } = fakeScheduler({ maxGroup: 1, groupMs: 1 });
    const boom = () => {
      throw new Error('sync');
    };
    const order: string[] = [];
    // The first goes straight in and throws at once; the second waits behind it and rejects; the
    // third waits behind both and still runs.
    const first = scheduler.run('u', boom);
    const second = scheduler.run('u', () => Promise.reject(new Error('async')));
    const third = scheduler.run('u', () => {
      order.push('third');
      return Promise.resolve('ok');
    });
    await expect(first).rejects.toThrow('sync');
    await expect(second).rejects.toThrow('async');
    expect(await third).toBe('ok');
    expect(order).toEqual(['third']);
    expect(scheduler.waiting).toBe(0);
    // Nothing left in the realm: the next goes straight in.
    expect(await scheduler.run('u', () => Promise.resolve(1))).toBe(1);
  });

  it('property: every request answered, each user in order, at most maxGroup of a user in the realm', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            user: fc.integer({ min: 0, max: 3 }),
            ticks: fc.integer({ min: 0, max: 3 }),
            cost: fc.constantFrom(0, 0.05, 0.3, 4),
          }),
          { maxLength: 40 },
        ),
        fc.integer({ min: 1, max: 6 }),
        async (arrivals, maxGroup) => {
          const clock = { now: 0, busy: 0 };
          const timers: (() => void)[] = [];
          const scheduler = new FairScheduler({
            maxGroup,
            groupMs: 1,
            burstMs: 5,
            shareMsPerSec: 1,
            now: () => clock.now,
            busy: () => clock.busy,
            setTimer: (fn) => timers.push(fn),
          });
          const inFlight = new Map<number, number>();
          const started: Record<number, number[]> = {};
          const answers = arrivals.map(({ user, ticks, cost }, i) =>
            scheduler.run(`u${user}`, async () => {
              (started[user] ??= []).push(i);
              const n = (inFlight.get(user) ?? 0) + 1;
              expect(n).toBeLessThanOrEqual(maxGroup);
              inFlight.set(user, n);
              for (let t = 0; t < ticks; t++) await Promise.resolve();
              clock.busy += cost;
              inFlight.set(user, inFlight.get(user)! - 1);
              return i;
            }),
          );
          expect(await settleWithTime(answers, clock, timers)).toEqual(arrivals.map((_, i) => i));
          for (const [user, order] of Object.entries(started))
            expect(order).toEqual(arrivals.flatMap((a, i) => (a.user === Number(user) ? [i] : [])));
          expect(scheduler.waiting).toBe(0);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('with the rate limit: a burst let in together is still counted one by one, refused past the limit', async () => {
    const realm = pureRealm(devRealm(), () => testCtx());
    const fairness = new FairScheduler({ maxGroup: 32, groupMs: 1_000 });
    const answer = createHttpCore({ realm, rateLimit: { maxRequests: 5 }, fairness });
    const get = () =>
      answer(
        {
          method: 'GET',
          path: '/api/v1/users/me',
          search: '',
          headers: { authorization: authOf(cast.hamlet) },
        },
        null,
      );
    // Measured once, so the next ones go in together.
    expect((await get()).status).toBe(200);
    const statuses = (await Promise.all(Array.from({ length: 20 }, get))).map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(4);
    expect(statuses.filter((s) => s === 429)).toHaveLength(16);
  });

  it('over HTTP on a realm handle (memory store): a burst of sends lands in one append, answers in order', async () => {
    const inner = memoryStore({ watch: true });
    const sizes: number[] = [];
    const store = {
      ...inner,
      appendBatch: (changes: Parameters<typeof inner.appendBatch>[0], expected: number) => {
        sizes.push(changes.length);
        return inner.appendBatch(changes, expected);
      },
    };
    const handle = await openRealm({ store, initialState: devRealm(), checkpoints: false });
    const live = withEventQueues(handle, { gcIntervalMs: 0 });
    try {
      const answer = createHttpCore({ realm: live, fairness: { maxGroup: 16, groupMs: 1_000 } });
      const send = (i: number) =>
        answer(
          {
            method: 'POST',
            path: '/api/v1/messages',
            search: '',
            headers: {
              authorization: authOf(cast.hamlet),
              'content-type': 'application/x-www-form-urlencoded',
            },
          },
          {
            read: () => Promise.resolve(new TextEncoder().encode(`type=stream&to=2&topic=t&content=m${i}`)),
            discard: () => Promise.resolve(),
          },
        );
      expect((await send(-1)).status).toBe(200);
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => send(i)));
      const ids = answers.map((a) => (JSON.parse(a.body!) as { id: number }).id);
      expect(ids).toEqual([...ids].sort((x, y) => x - y));
      // The first alone, then the ten sent together in one batch (with groups that waited for the
      // user's earlier request to leave, the first of them went alone: [1, 1, 9]).
      expect(sizes).toEqual([1, 10]);
      // Stored in the order sent.
      const contents = inner.records.changes
        .slice(-10)
        .map((c) => (JSON.parse(c.payload) as { input: { body: { content: string } } }).input.body.content);
      expect(contents).toEqual(Array.from({ length: 10 }, (_, i) => `m${i}`));
    } finally {
      live.close();
      await handle.close();
    }
  });
});
