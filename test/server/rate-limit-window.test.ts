/**
 * The rate limiter keeps each key's window with a moving head instead of `shift` (which moves the
 * whole window on every request once it is large): it must answer exactly as the plain list of
 * times Zulip's Redis backend keeps, for any sequence of requests, clock steps and limits.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/server/rate-limit';

/** The reference: each key's times in the window, oldest first, dropped from the front. */
class Model {
  readonly log = new Map<string, number[]>();
  constructor(
    readonly max: number,
    readonly windowMs: number,
    readonly now: () => number,
  ) {}
  secsToFreedom(key: string): number {
    const times = this.log.get(key);
    if (times === undefined || times.length < this.max) return 0;
    const wait = times[0]! + this.windowMs - this.now();
    return wait > 0 ? wait / 1000 : 0;
  }
  record(key: string): void {
    const now = this.now();
    const times = this.log.get(key) ?? [];
    while (times.length > 0 && (times.length >= this.max || times[0]! <= now - this.windowMs)) times.shift();
    times.push(now);
    this.log.set(key, times);
  }
}

describe('RateLimiter window', () => {
  it('answers as the plain list of times for any sequence (law)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3000 }),
        fc.integer({ min: 1, max: 5 }),
        fc.array(
          fc.tuple(
            fc.constantFrom('a', 'b'),
            fc.integer({ min: 0, max: 40 }),
            fc.integer({ min: 1, max: 60 }),
          ),
          { maxLength: 60 },
        ),
        (max, windowSecs, steps) => {
          const clock = { t: 0 };
          const now = () => clock.t;
          const limiter = new RateLimiter({ maxRequests: max, windowSecs, now });
          const model = new Model(max, windowSecs * 1000, now);
          for (const [key, advanceMs, burst] of steps) {
            clock.t += advanceMs * 10;
            // Bursts long enough to move the head past the compaction threshold (1024).
            for (let i = 0; i < burst * 40; i++) {
              expect(limiter.secsToFreedom(key)).toBe(model.secsToFreedom(key));
              if (model.secsToFreedom(key) === 0) {
                limiter.record(key);
                model.record(key);
              }
              if (i % 7 === 0) clock.t += 1;
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
