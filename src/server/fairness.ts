/**
 * Fair scheduling of requests between users (issue 31), in front of the realm. The realm runs
 * one request at a time on one thread, so one member who sends many expensive requests (5,000
 * message flag flips, big fetches) delays everyone. Zulip spreads requests over many worker
 * processes; here one member's work is kept from crowding out the others' instead:
 *
 * - **One request in the realm per user** (`maxInFlight`, default 1): a user's further
 *   requests wait in that user's own queue, in order, so a second user's request joins the
 *   realm's next batch behind at most one request of a user who sent 200 at once. A user alone
 *   on the server may have more in at once (`maxGroup`, within `groupMs` of estimated work).
 * - **A share of the event loop per user** while other users are active: every request is
 *   charged the event loop's busy time while it was in the realm, shared equally among the
 *   requests in the realm at the same moment (waiting for a disk write costs nothing). Each user
 *   has a budget of `burstMs` that refills at `shareMsPerSec`; a user whose budget is spent
 *   waits until it is no longer negative before the next request enters the realm. Nothing is
 *   refused (unlike the rate limit, no 429): the heavy user's answers come later, the others'
 *   come as fast as alone. A user alone on the server (nobody else active in the last
 *   `activeWindowMs`) is never held back.
 *
 * Host layer: it reads a clock (`performance.now`) and the event loop's busy time
 * (`performance.eventLoopUtilization` where the runtime has it, wall time otherwise).
 */

export interface FairnessOptions {
  /** A user's requests in the realm at once while other users are active; the rest wait in the user's queue. Default 1. */
  readonly maxInFlight?: number;
  /**
   * Most of a user's requests in the realm at once while no other user is active
   * (`activeWindowMs`): each goes in as it arrives, without waiting for the user's earlier ones
   * to leave, so a burst joins the realm handle's open batch (one turn, one append) as it would
   * with no scheduling. Only as many as the user's recent cost per request says fit in
   * `groupMs`; a user who has not been measured yet, or whose requests are expensive, goes
   * `maxInFlight` at a time. Default 1 (none beyond `maxInFlight`).
   */
  readonly maxGroup?: number;
  /**
   * Event-loop milliseconds the requests a lone user has in the realm may be expected to take
   * (their number times the user's recent cost per request, an estimate that rises at once and
   * falls by half per request): what they make another user's request wait when it comes. Default 1.
   */
  readonly groupMs?: number;
  /**
   * Event-loop milliseconds a user may spend at once before being paced. Default 100. The debt is
   * bounded by it too: after one very expensive request (a register on a large realm) the user's
   * next one waits at most burstMs / shareMsPerSec seconds (1 s by default).
   */
  readonly burstMs?: number;
  /** Event-loop milliseconds per second a user's budget refills (its share). Default 100 (10%). */
  readonly shareMsPerSec?: number;
  /** How recently another user must have made a request for pacing to apply. Default 1000 ms. */
  readonly activeWindowMs?: number;
  /** Users tracked at once; past it idle ones are forgotten, least recently active first. Default 10,000. */
  readonly maxUsers?: number;
  /** Milliseconds, monotonic. Default `performance.now`. */
  readonly now?: () => number;
  /** Cumulative busy milliseconds of the event loop. Default: from `performance.eventLoopUtilization`, or `now`. */
  readonly busy?: () => number;
  /** Schedules a wake-up (pacing). Default `setTimeout`. */
  readonly setTimer?: (fn: () => void, ms: number) => void;
}

/**
 * A request waiting in its user's queue. Plain data, no closure per request: the functions that
 * start and finish it are the scheduler's own methods (a request costs a few microseconds here).
 */
interface Waiting {
  readonly task: () => Promise<unknown>;
  /** The caller's promise (typed by `run`, whose `T` the task's value is). */
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

interface UserState {
  /** Waiting requests from `head` on (an index, not `shift`: a burst of thousands stays linear). */
  pending: Waiting[];
  head: number;
  /** Requests in the realm. */
  inFlight: number;
  /** Event-loop milliseconds left; negative when overspent. */
  budget: number;
  /** When `budget` was last refilled. */
  refilledAt: number;
  timer: boolean;
  /**
   * Recent event-loop ms per request (undefined until one was measured): the cost of a request
   * that finished, or half the previous estimate if that is more (one expensive request keeps
   * the user's window small for the next few).
   */
  costMs: number | undefined;
}

/** A default busy-time source: the event loop's active time where the runtime reports it. */
function defaultBusy(now: () => number): () => number {
  const perf = globalThis.performance as
    | (Performance & {
        eventLoopUtilization?: () => { active: number };
        nodeTiming?: { readonly loopStart: number; readonly idleTime: number };
      })
    | undefined;
  const timing = perf?.nodeTiming;
  if (perf !== undefined && typeof timing?.idleTime === 'number' && typeof timing.loopStart === 'number') {
    // Node: what `eventLoopUtilization().active` computes (0 before the loop starts), without the
    // object it returns: read twice per request, that object is a measurable part of its cost.
    return () => {
      const start = timing.loopStart;
      return start <= 0 ? 0 : perf.now() - start - timing.idleTime;
    };
  }
  const elu = perf?.eventLoopUtilization;
  if (typeof elu === 'function') {
    return () => elu.call(perf).active;
  }
  return now;
}

export class FairScheduler {
  private readonly users = new Map<string, UserState>();
  private readonly maxInFlight: number;
  private readonly maxGroup: number;
  /** The most a user can ever have in the realm (`maxInFlight` or `maxGroup`). */
  private readonly mostInFlight: number;
  private readonly groupMs: number;
  private readonly burstMs: number;
  private readonly shareMsPerSec: number;
  private readonly activeWindowMs: number;
  private readonly maxUsers: number;
  private readonly now: () => number;
  private readonly busy: () => number;
  private readonly setTimer: (fn: () => void, ms: number) => void;
  /** Busy time each request in the realm has been charged so far (processor-sharing integral). */
  private share = 0;
  private lastBusy: number;
  private inRealm = 0;
  /** The user of the latest request and its time; the latest time of anybody else's. */
  private lastUser: string | undefined;
  private lastSeenAt = Number.NEGATIVE_INFINITY;
  private othersSeenAt = Number.NEGATIVE_INFINITY;

  constructor(options: FairnessOptions = {}) {
    this.maxInFlight = options.maxInFlight ?? 1;
    this.maxGroup = options.maxGroup ?? 1;
    this.mostInFlight = Math.max(this.maxInFlight, this.maxGroup);
    this.groupMs = options.groupMs ?? 1;
    this.burstMs = options.burstMs ?? 100;
    this.shareMsPerSec = options.shareMsPerSec ?? 100;
    this.activeWindowMs = options.activeWindowMs ?? 1000;
    this.maxUsers = options.maxUsers ?? 10_000;
    this.now = options.now ?? (() => performance.now());
    this.busy = options.busy ?? defaultBusy(this.now);
    this.setTimer = options.setTimer ?? ((fn, ms) => void setTimeout(fn, ms));
    if (
      !(this.maxInFlight >= 1) ||
      !(this.maxGroup >= 1) ||
      !(this.groupMs > 0) ||
      !(this.burstMs > 0) ||
      !(this.shareMsPerSec > 0)
    )
      throw new RangeError(
        'fairness: maxInFlight ≥ 1, maxGroup ≥ 1, groupMs > 0, burstMs > 0 and shareMsPerSec > 0',
      );
    this.lastBusy = this.busy();
  }

  /**
   * Runs `task` for `key` (a user) when the user's turn comes: after the user's earlier
   * requests, within `maxInFlight`, and once the user's budget allows it.
   */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const at = this.now();
    const user = this.userOf(key, at);
    if (this.lastUser !== key) {
      this.othersSeenAt = this.lastSeenAt;
      this.lastUser = key;
    }
    this.lastSeenAt = at;
    // Nothing of the user's waiting and a place free: in at once, without a queue entry (most
    // requests, and the cheapest way: no promise of our own around the task's).
    if (user.head === user.pending.length && user.inFlight < this.mostInFlight) {
      const alone = !this.othersActive(key, at);
      if (user.inFlight < this.limitOf(user, alone) && this.paid(user, alone, at))
        return this.start(key, user, task);
    }
    return new Promise<T>((resolve, reject) => {
      user.pending.push({ task, resolve: resolve as (value: unknown) => void, reject });
      this.admit(key, user, at);
    });
  }

  /** Starts a request of `user` in the realm; settles as the task does, once the user has left. */
  private start<T>(key: string, user: UserState, task: () => Promise<T>): Promise<T> {
    user.inFlight++;
    const started = this.enter();
    let ran: Promise<T>;
    try {
      ran = task();
    } catch (error) {
      ran = Promise.reject(error as Error);
    }
    // The user leaves the realm before its caller goes on, so a request the caller makes next is
    // charged nothing of this one's time.
    return ran.then(
      (value) => {
        this.finish(key, user, started);
        return value;
      },
      (error: unknown) => {
        this.finish(key, user, started);
        throw error;
      },
    );
  }

  /** A request left the realm: charged to its user, whose next one may take its place. */
  private finish(key: string, user: UserState, started: number): void {
    const at = this.now();
    this.leave(user, started, at);
    user.inFlight--;
    this.admit(key, user, at);
  }

  /** Users tracked now. */
  get size(): number {
    return this.users.size;
  }

  /** Requests waiting in users' queues (not yet in the realm). */
  get waiting(): number {
    let n = 0;
    for (const u of this.users.values()) n += u.pending.length - u.head;
    return n;
  }

  private userOf(key: string, at: number): UserState {
    let user = this.users.get(key);
    if (user === undefined) {
      user = {
        pending: [],
        head: 0,
        inFlight: 0,
        budget: this.burstMs,
        refilledAt: at,
        timer: false,
        costMs: undefined,
      };
      this.forgetIdle();
    } else if (key === this.lastUser) {
      // Already the most recently active (only `run` inserts, and it records the user as the
      // latest): its place in the Map's order is right, so no re-insertion per request.
      return user;
    } else {
      // Re-inserted: the Map's order is least recently active first.
      this.users.delete(key);
    }
    this.users.set(key, user);
    return user;
  }

  /** Keeps the table bounded: forgets the least recently active users that have nothing queued. */
  private forgetIdle(): void {
    if (this.users.size < this.maxUsers) return;
    // Only the few least recently active are looked at: constant work per new user, even when
    // many users have requests in the realm (the table then grows past the bound for a while).
    let looked = 0;
    for (const [key, user] of this.users) {
      if (this.users.size < this.maxUsers || ++looked > 16) break;
      if (user.pending.length === user.head && user.inFlight === 0 && !user.timer) this.users.delete(key);
    }
  }

  /** Charges the busy time since the last change to the requests in the realm, equally. */
  private account(): void {
    const busy = this.busy();
    if (this.inRealm > 0) this.share += (busy - this.lastBusy) / this.inRealm;
    this.lastBusy = busy;
  }

  private enter(): number {
    this.account();
    this.inRealm++;
    return this.share;
  }

  /** Charges a request that left the realm to its user. */
  private leave(user: UserState, started: number, at: number): void {
    this.account();
    this.inRealm--;
    this.refill(user, at);
    const cost = this.share - started;
    // Bounded debt: one huge request delays the user's next by a bounded time; sustained heavy
    // use is paced all the same (each request's debt is added after the previous one is paid).
    user.budget = Math.max(-this.burstMs, user.budget - cost);
    user.costMs = user.costMs === undefined ? cost : Math.max(cost, user.costMs / 2);
  }

  /**
   * How many of the user's requests may be in the realm at once: `maxInFlight`, or while nobody
   * else is active what fits in `groupMs` at its recent cost, up to `maxGroup` (like pacing, this
   * is for a user alone: the estimate comes from past requests, and a user who mixes cheap ones
   * before expensive ones could have several expensive ones in at once; with others active,
   * `maxInFlight` at a time bounds that).
   */
  private limitOf(user: UserState, alone: boolean): number {
    if (!alone || this.maxGroup <= this.maxInFlight || user.costMs === undefined) return this.maxInFlight;
    const fit = Math.floor(this.groupMs / Math.max(user.costMs, 1e-3));
    return Math.max(this.maxInFlight, Math.min(this.maxGroup, fit));
  }

  /** Whether the user may go in now as far as its budget goes (refilled first; a user alone is never paced). */
  private paid(user: UserState, alone: boolean, at: number): boolean {
    this.refill(user, at);
    return alone || user.budget >= 0;
  }

  private refill(user: UserState, at: number): void {
    user.budget = Math.min(this.burstMs, user.budget + ((at - user.refilledAt) * this.shareMsPerSec) / 1000);
    user.refilledAt = at;
  }

  /** Lets the user's next requests into the realm, as far as its limits allow (`at`: now). */
  private admit(key: string, user: UserState, at: number): void {
    if (user.head === user.pending.length || user.inFlight >= this.mostInFlight) return;
    const alone = !this.othersActive(key, at);
    const limit = this.limitOf(user, alone);
    while (user.head < user.pending.length && user.inFlight < limit) {
      if (!this.paid(user, alone, at)) {
        this.wakeLater(key, user);
        return;
      }
      // Started in this same turn as the user's others: a realm handle puts them in one batch.
      const waiting = user.pending[user.head++]!;
      this.start(key, user, waiting.task).then(waiting.resolve, waiting.reject);
    }
    if (user.head === user.pending.length) {
      user.pending = [];
      user.head = 0;
    } else if (user.head >= 1024 && user.head * 2 >= user.pending.length) {
      user.pending = user.pending.slice(user.head);
      user.head = 0;
    }
  }

  /** Whether a user other than `key` made a request recently (pacing a lone user helps nobody). */
  private othersActive(key: string, at: number): boolean {
    return at - (this.lastUser === key ? this.othersSeenAt : this.lastSeenAt) < this.activeWindowMs;
  }

  private wakeLater(key: string, user: UserState): void {
    if (user.timer) return;
    user.timer = true;
    const ms = Math.max(1, Math.ceil((-user.budget * 1000) / this.shareMsPerSec));
    this.setTimer(() => {
      user.timer = false;
      this.admit(key, user, this.now());
    }, ms);
  }
}

/**
 * The user a request is scheduled as: the API key of its HTTP Basic credential (one per user,
 * however the user name is spelled), else the whole header; requests without one share a key.
 */
export function fairnessKey(authorization: string | undefined): string {
  if (authorization === undefined) return '';
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization);
  if (m !== null) {
    try {
      const decoded = atob(m[1]!);
      const colon = decoded.indexOf(':');
      if (colon >= 0) return `key:${decoded.slice(colon + 1)}`;
    } catch {
      // Not base64: scheduled by the header as sent.
    }
  }
  return `header:${authorization}`;
}
