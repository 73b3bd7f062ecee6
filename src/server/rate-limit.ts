/**
 * Per-user request rate limits, as Zulip's `rate_limit_user` (zerver/lib/rate_limiter.py) with
 * its default rule for the API, `RATE_LIMITING_RULES["api_by_user"] = [(60, 200)]`: 200 requests
 * in any 60 seconds. Like Zulip's Redis backend it keeps each user's latest request times; a
 * request when the window already holds the maximum is refused with 429 RATE_LIMIT_HIT and the
 * seconds until the oldest leaves the window (`retry-after` in the body, `Retry-After` header).
 * Refused requests are not counted. Host layer only: time comes from `now` (the core has no clock).
 */

export interface RateLimitOptions {
  /** Requests a user may make in `windowSecs`. Default 200 (Zulip's api_by_user). */
  readonly maxRequests?: number;
  /** Default 60. */
  readonly windowSecs?: number;
  /** Milliseconds. Default `Date.now`. */
  readonly now?: () => number;
  /** Users tracked at once; past it the ones idle longest are forgotten. Default 10,000. */
  readonly maxUsers?: number;
}

/**
 * A key's request times in the window, oldest first, from `head` on: an index, not `shift` — with
 * a large limit (a bench raising it out of the way, an operator's generous rule) the window holds
 * hundreds of thousands of times, and `shift` on such an array moves all of them on every request.
 */
interface Window {
  times: number[];
  head: number;
}

export class RateLimiter {
  /** Per key, its request times in the window; Map order: least recently active first. */
  private readonly log = new Map<string, Window>();
  /** The key `record` put last in `log` (the most recently active). */
  private latest: string | undefined;
  private readonly max: number;
  private readonly windowMs: number;
  private readonly now: () => number;
  private readonly maxUsers: number;

  constructor(options: RateLimitOptions = {}) {
    this.max = options.maxRequests ?? 200;
    this.windowMs = (options.windowSecs ?? 60) * 1000;
    this.now = options.now ?? Date.now;
    this.maxUsers = options.maxUsers ?? 10_000;
    if (!(this.max >= 1) || !(this.windowMs > 0))
      throw new RangeError('rate limit: maxRequests ≥ 1 and windowSecs > 0');
  }

  /**
   * Seconds until `key` may make a request again, or 0 when it may now. Counts nothing.
   * `pending`: requests of `key` already let through and not yet counted (they will be, at about
   * now), which take places in the window too.
   */
  secsToFreedom(key: string, pending = 0): number {
    const window = this.log.get(key);
    const held = window === undefined ? 0 : window.times.length - window.head;
    if (held + pending < this.max) return 0;
    // The place comes free when the (held + pending - max + 1)-th oldest leaves the window; a
    // pending one is counted at about now, so it leaves a whole window from now.
    const at = (window?.head ?? 0) + held + pending - this.max;
    const oldest = window !== undefined && at < window.times.length ? window.times[at]! : this.now();
    const wait = oldest + this.windowMs - this.now();
    return wait > 0 ? wait / 1000 : 0;
  }

  /** Counts one request of `key` (one that was served: refused and unauthenticated ones are not). */
  record(key: string): void {
    const now = this.now();
    let window = this.log.get(key);
    // The key recorded last is already last in the Map's order: no re-insertion per request.
    const latest = window !== undefined && key === this.latest;
    if (window === undefined) window = { times: [], head: 0 };
    else if (!latest) this.log.delete(key); // re-inserted below: the most recent user last
    const { times } = window;
    let head = window.head;
    while (head < times.length && (times.length - head >= this.max || times[head]! <= now - this.windowMs))
      head++;
    if (head === times.length) {
      window.times = [];
      window.head = 0;
    } else if (head >= 1024 && head * 2 >= times.length) {
      // Amortized: the times left behind are dropped once they are at least half of the array.
      window.times = times.slice(head);
      window.head = 0;
    } else {
      window.head = head;
    }
    window.times.push(now);
    if (latest) return;
    this.log.set(key, window);
    this.latest = key;
    if (this.log.size > this.maxUsers) {
      // The least recently active user first; memory stays bounded by maxUsers × maxRequests.
      const oldest = this.log.keys().next().value;
      if (oldest !== undefined) this.log.delete(oldest);
    }
  }

  /** Users tracked now. */
  get size(): number {
    return this.log.size;
  }
}

/** Zulip's `RateLimitedError` body (`json_response_from_error`). */
export function rateLimitBody(secs: number): Readonly<Record<string, unknown>> {
  return {
    result: 'error',
    msg: 'API usage exceeded rate limit',
    code: 'RATE_LIMIT_HIT',
    'retry-after': secs,
  };
}
