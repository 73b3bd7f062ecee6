/**
 * Fair scheduling between users (issue 31, src/server/fairness.ts): one member's burst of
 * expensive requests never sits ahead of another member's request, and a member who used more
 * than a share of the event loop waits (is paced, not refused) while others are active. Orders
 * and fake clocks only: no timing assertions.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withEventQueues } from '../../src/host/live-realm';
import { openRealm } from '../../src/host/realm-handle';
import { fairnessKey, FairScheduler } from '../../src/server/fairness';
import { createHttpCore } from '../../src/server/http';
import { pureRealm } from '../../src/server/pure';
import { memoryStore } from '../../src/stores/memory/index';
import { basicAuthHeader } from '../../src/wire/auth';
import { settleWithTime } from '../support/fair-clock';
import { cast, devRealm, testCtx } from '../support/realm';

const authOf = (id: number) => {
  const u = devRealm().users.get(id)!;
  return basicAuthHeader(u.delivery_email, u.api_key);
};

/** A task that starts when the scheduler lets it in, and ends when the test says so. */
function gate(log: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const task = () => {
    log.push(`start ${name}`);
    return done.then(() => name);
  };
  return { task, finish };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('fair scheduling', () => {
  it("serves a second user's request before the rest of a first user's burst", async () => {
    const scheduler = new FairScheduler();
    const log: string[] = [];
    const burst = Array.from({ length: 5 }, (_, i) => gate(log, `a${i}`));
    const answers = burst.map((g) => scheduler.run('a', g.task));
    const b = gate(log, 'b');
    const answerB = scheduler.run('b', b.task);
    await flush();
    // One request per user in the realm: b's is in at once, a's others wait in a's queue.
    expect(log).toEqual(['start a0', 'start b']);
    expect(scheduler.waiting).toBe(4);
    burst[0]!.finish();
    b.finish();
    expect(await answerB).toBe('b');
    await flush();
    expect(log).toEqual(['start a0', 'start b', 'start a1']);
    for (const g of burst) g.finish();
    expect(await Promise.all(answers)).toEqual(['a0', 'a1', 'a2', 'a3', 'a4']);
    // In order, one at a time.
    expect(log.filter((l) => l.startsWith('start a'))).toEqual([
      'start a0',
      'start a1',
      'start a2',
      'start a3',
      'start a4',
    ]);
  });

  it('over HTTP on a realm handle: Iago is answered before the rest of a burst of 30 flag updates by Hamlet', async () => {
    const handle = await openRealm({ store: memoryStore(), initialState: devRealm(), checkpoints: false });
    const live = withEventQueues(handle, { gcIntervalMs: 0 });
    try {
      const answer = createHttpCore({ realm: live, fairness: {} });
      const order: string[] = [];
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      const body = (text: string) => ({
        read: () => Promise.resolve(new TextEncoder().encode(text)),
        discard: () => Promise.resolve(),
      });
      const flips = Array.from({ length: 30 }, (_, i) =>
        answer(
          {
            method: 'POST',
            path: '/api/v1/messages/flags/narrow',
            search: '',
            headers: { ...form, authorization: authOf(cast.hamlet) },
          },
          body(
            new URLSearchParams({
              op: i % 2 === 0 ? 'remove' : 'add',
              flag: 'read',
              anchor: 'oldest',
              num_before: '0',
              num_after: '1000',
              narrow: '[]',
            }).toString(),
          ),
        ).then((a) => {
          order.push(`hamlet ${i} ${a.status}`);
        }),
      );
      // Hamlet's burst is in (read and handed on) before Iago asks.
      await flush();
      const iago = answer(
        {
          method: 'GET',
          path: '/api/v1/users/me',
          search: '',
          headers: { authorization: authOf(cast.iago) },
        },
        null,
      ).then((a) => {
        order.push(`iago ${a.status}`);
      });
      await Promise.all([...flips, iago]);
      // Without fair scheduling Iago's request would be answered after all 30.
      expect(order.indexOf('iago 200')).toBeLessThanOrEqual(2);
      expect(order.filter((o) => o.startsWith('hamlet'))).toEqual(
        Array.from({ length: 30 }, (_, i) => `hamlet ${i} 200`),
      );
    } finally {
      live.close();
      await handle.close();
    }
  });

  it('paces a user who spent its share of the event loop while others are active, never refusing', async () => {
    const clock = { now: 0, busy: 0 };
    const timers: { fn: () => void; ms: number }[] = [];
    const scheduler = new FairScheduler({
      burstMs: 100,
      shareMsPerSec: 100,
      now: () => clock.now,
      busy: () => clock.busy,
      setTimer: (fn, ms) => timers.push({ fn, ms }),
    });
    const log: string[] = [];
    // Iago is active too.
    await scheduler.run('iago', () => Promise.resolve('i'));
    // Hamlet's request keeps the event loop busy for 150 ms (alone in the realm meanwhile).
    await scheduler.run('hamlet', async () => {
      clock.busy += 150;
      clock.now += 150;
    });
    // Budget: 100 (full) - 150 = -50 ms: at 100 ms a second, the next request waits 0.5 s.
    const next = scheduler.run('hamlet', () => {
      log.push('hamlet again');
      return Promise.resolve('h');
    });
    await flush();
    expect(log).toEqual([]);
    expect(timers).toHaveLength(1);
    expect(timers[0]!.ms).toBeCloseTo(500);
    // Iago is not held back meanwhile.
    expect(await scheduler.run('iago', () => Promise.resolve('i2'))).toBe('i2');
    clock.now += 500;
    timers[0]!.fn();
    expect(await next).toBe('h');
    expect(log).toEqual(['hamlet again']);
    // One very expensive request (10 s of the thread): the debt is bounded by burstMs, so the
    // next request waits 1 s, not 100 s.
    await scheduler.run('iago', () => Promise.resolve());
    await scheduler.run('hamlet', async () => {
      clock.busy += 10_000;
      clock.now += 10_000;
    });
    await scheduler.run('iago', () => Promise.resolve());
    const after = scheduler.run('hamlet', () => Promise.resolve('late'));
    await flush();
    expect(timers).toHaveLength(2);
    expect(timers[1]!.ms).toBeCloseTo(1000);
    clock.now += 1000;
    timers[1]!.fn();
    expect(await after).toBe('late');
  });

  it('never paces a user alone on the server, and shares busy time among the requests in the realm', async () => {
    const clock = { now: 0, busy: 0 };
    const timers: (() => void)[] = [];
    const scheduler = new FairScheduler({
      now: () => clock.now,
      busy: () => clock.busy,
      setTimer: (fn) => timers.push(fn),
    });
    for (let i = 0; i < 5; i++)
      await scheduler.run('hamlet', async () => {
        clock.busy += 300;
        clock.now += 300;
      });
    expect(timers).toHaveLength(0);
    // Once another user is active, the overspent user waits.
    clock.now += 10;
    await scheduler.run('iago', () => Promise.resolve());
    const waiting = scheduler.run('hamlet', () => Promise.resolve());
    await flush();
    expect(timers).toHaveLength(1);
    expect(scheduler.waiting).toBe(1);
    clock.now += 100_000;
    timers[0]!();
    await waiting;
    expect(scheduler.waiting).toBe(0);
  });

  it('keys users by API key however the user name is spelled, and bounds the users tracked', async () => {
    const u = devRealm().users.get(cast.hamlet)!;
    const byEmail = fairnessKey(basicAuthHeader(u.delivery_email, u.api_key));
    const byUpper = fairnessKey(basicAuthHeader(u.delivery_email.toUpperCase(), u.api_key));
    const byId = fairnessKey(basicAuthHeader(String(u.user_id), u.api_key));
    expect(byUpper).toBe(byEmail);
    expect(byId).toBe(byEmail);
    expect(fairnessKey(undefined)).toBe('');
    expect(fairnessKey('Bearer x')).not.toBe(byEmail);
    const scheduler = new FairScheduler({ maxUsers: 10 });
    for (let i = 0; i < 100; i++) await scheduler.run(`user ${i}`, () => Promise.resolve());
    expect(scheduler.size).toBeLessThanOrEqual(10);
  });

  it('property: every request answered, each user in order and within maxInFlight, whatever the arrivals', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ user: fc.integer({ min: 0, max: 3 }), ticks: fc.integer({ min: 0, max: 3 }) }), {
          maxLength: 40,
        }),
        fc.integer({ min: 1, max: 3 }),
        async (arrivals, maxInFlight) => {
          const clock = { now: 0, busy: 0 };
          const timers: (() => void)[] = [];
          const scheduler = new FairScheduler({
            maxInFlight,
            burstMs: 5,
            shareMsPerSec: 1,
            now: () => clock.now,
            busy: () => clock.busy,
            setTimer: (fn) => timers.push(fn),
          });
          const inFlight = new Map<number, number>();
          const started: Record<number, number[]> = {};
          const answers = arrivals.map(({ user, ticks }, i) =>
            scheduler.run(`u${user}`, async () => {
              (started[user] ??= []).push(i);
              const n = (inFlight.get(user) ?? 0) + 1;
              expect(n).toBeLessThanOrEqual(maxInFlight);
              inFlight.set(user, n);
              for (let t = 0; t < ticks; t++) await Promise.resolve();
              clock.busy += ticks * 3;
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

  it('with the rate limit: a burst sent all at once is counted one by one, refused past the limit', async () => {
    const realm = pureRealm(devRealm(), () => testCtx());
    const get = (answer: ReturnType<typeof createHttpCore>) => () =>
      answer(
        {
          method: 'GET',
          path: '/api/v1/users/me',
          search: '',
          headers: { authorization: authOf(cast.hamlet) },
        },
        null,
      );
    const fair = get(createHttpCore({ realm, rateLimit: { maxRequests: 5 }, fairness: {} }));
    const statuses = (await Promise.all(Array.from({ length: 20 }, fair))).map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    // Without fair scheduling all 20 pass the check before any is counted.
    const unfair = get(createHttpCore({ realm, rateLimit: { maxRequests: 5 } }));
    const loose = (await Promise.all(Array.from({ length: 20 }, unfair))).map((a) => a.status);
    expect(loose.filter((s) => s === 200).length).toBeGreaterThan(5);
  });

  it('serves a burst of 5,000 requests from one user in order', async () => {
    const scheduler = new FairScheduler();
    const order: number[] = [];
    const all = Array.from({ length: 5000 }, (_, i) =>
      scheduler.run('a', () => {
        order.push(i);
        return Promise.resolve(i);
      }),
    );
    expect(await Promise.all(all)).toEqual(order);
    expect(order).toEqual(Array.from({ length: 5000 }, (_, i) => i));
    expect(scheduler.waiting).toBe(0);
  });
});
