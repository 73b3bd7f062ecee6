/**
 * One writer per realm: a realm handle whose wire writes run only in the process that holds the
 * realm's write lease (src/stores/postgres/lease.ts) and are forwarded to it from every other
 * process, so no change is run twice and no process loses a race. Reads stay local: the handle
 * catches up before answering them, so a read never misses a write acknowledged before it arrived
 * (through this process or the holder).
 *
 * A write that the holder's store refused because the lease moved on (`LeaseLostError`: nothing
 * was written) is sent again to the new holder. Every forwarded write carries a unique request id
 * (request-ids.ts), the same on each of its retries, which the holder records with the change: so
 * a write that reached the holder and got no answer (it died or stalled mid-request, or the answer
 * was lost) is sent again too, to whoever holds the lease then, and a retry of a write that was
 * committed gets the recorded answer instead of running it twice. Only when `waitMs` runs out
 * with the outcome still unknown is it answered 503. While no process holds the lease
 * (failover), writes wait, up to `waitMs`.
 *
 * Runtime-agnostic: the transport (`forward`) is injected (src/server/forward.ts over node:http).
 */
import type { AnyOperation } from '../core/operation';
import type { ZulipErrorBody, ZulipSuccess } from '../core/result';
import { headerValue, type ApiRequest } from '../wire/handle';
import { LeaseLostError, PersistError } from './errors';
import type { RealmHandle, HandleResult, RunArgs, RunResult } from './realm-handle';
import type { Actor } from '../core/operation';
import { REQUEST_ID_HEADER } from './request-ids';
import {
  FORWARD_BATCH_PATH,
  FORWARD_SECRET_HEADER,
  ForwardBatcher,
  readBatch,
  type ForwardBatch,
} from './forward-batch';

/** What the handle needs of the lease (`RealmLease`). */
export interface WriteLease {
  /**
   * Where writes go: this process, another's address (with its secret for batches of writes,
   * forward-batch.ts), or nobody (the lease is free or expired).
   */
  readonly route: 'self' | { readonly address: string; readonly secret?: string } | undefined;
  /** What batches forwarded to this process must carry (undefined: it accepts none). */
  readonly secret?: string;
  /** Reads the lease again (and takes it if it is free and this process may). */
  tick(): Promise<void>;
}

/** The holder's answer to a forwarded request. */
export interface ForwardedAnswer {
  readonly status: number;
  /** A Zulip answer body (the transport checks `result`). */
  readonly body: ZulipSuccess | ZulipErrorBody;
}

/**
 * Sends a request to the holder at `address`. Rejects with `ForwardError`: `delivered` false when
 * the request certainly never reached it (sending it again is safe), true when it may have.
 */
export type Forward = (address: string, request: ApiRequest) => Promise<ForwardedAnswer>;

export class ForwardError extends Error {
  override readonly name = 'ForwardError';
  constructor(
    readonly delivered: boolean,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Counts the hops of a forwarded request, so two processes with stale views never ping-pong it. */
export const HOPS_HEADER = 'x-chat-realm-hops';
const MAX_HOPS = 3;
/** What a holder that was fenced answers a forwarded write (nothing applied; its sender retries). */
const LEASE_LOST_MSG = "This process lost the realm's write lease; nothing was applied";

export interface LeasedHandleOptions {
  readonly lease: WriteLease;
  readonly forward: Forward;
  /** How long a write waits for a lease holder (failover) before answering 503. Default 10 s. */
  readonly waitMs?: number;
  /** Pause between looks at the lease while waiting. Default 50 ms. */
  readonly retryMs?: number;
  /**
   * Sends the writes that pile up for a holder while a forward to it is in flight as one batch
   * (forward-batch.ts). Without it every write is forwarded alone.
   */
  readonly forwardBatch?: ForwardBatch;
  /** A new unique request id (default: a random per-process prefix and a counter). */
  readonly newRequestId?: () => string;
}

export function leasedHandle(inner: RealmHandle, options: LeasedHandleOptions): RealmHandle {
  const waitMs = options.waitMs ?? 10_000;
  const retryMs = options.retryMs ?? 50;
  const { lease, forward } = options;
  const newRequestId = options.newRequestId ?? randomRequestId;
  /**
   * Forwarded writes this process is running as the holder, by request id: a retry that arrives
   * while the first attempt still runs (its sender gave up waiting) shares its outcome.
   */
  const running = new Map<string, Promise<HandleResult>>();
  const batcher =
    options.forwardBatch &&
    new ForwardBatcher(forward, options.forwardBatch, (m) => new ForwardError(false, m));
  const send = (route: { readonly address: string; readonly secret?: string }, request: ApiRequest) =>
    batcher && route.secret !== undefined
      ? batcher.send(route.address, route.secret, request)
      : forward(route.address, request);

  /** A batch of writes another process forwarded: each runs as if it had come alone. */
  async function runBatch(req: ApiRequest): Promise<HandleResult> {
    const secret = lease.secret;
    const batch = readBatch(req.body);
    if (
      secret === undefined ||
      headerValue(req.headers, FORWARD_SECRET_HEADER) !== secret ||
      batch === undefined
    )
      return answer(404, { result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' });
    const answers = await Promise.all(
      batch.map(async (r) => {
        const got = await write({
          method: r.method,
          url: r.url,
          headers: r.headers,
          ...(r.body === undefined ? {} : { body: r.body }),
        });
        return { status: got.status, body: got.body };
      }),
    );
    return answer(200, { result: 'success', msg: '', answers });
  }

  const answer = (status: number, body: ZulipSuccess | ZulipErrorBody): HandleResult => ({
    state: inner.state,
    version: inner.version,
    status,
    body,
    events: [],
    effects: [],
  });
  // Zulip has no such answer (its proxy answers 502/503 without a JSON body while a server is
  // down): a Zulip error body without a code (docs/differences/lease.md).
  const unavailable = (msg: string) => answer(503, { result: 'error', msg });

  /** Runs a write here, once per request id at a time. */
  function runHere(req: ApiRequest): Promise<HandleResult> {
    const id = headerValue(req.headers, REQUEST_ID_HEADER);
    if (id === undefined) return inner.request(req);
    const already = running.get(id);
    if (already !== undefined) return already;
    const started = inner.request(req).finally(() => running.delete(id));
    running.set(id, started);
    return started;
  }

  async function write(req: ApiRequest): Promise<HandleResult> {
    const hops = Number(headerValue(req.headers, HOPS_HEADER) ?? 0) || 0;
    const deadline = performance.now() + waitMs;
    // One id for every attempt of this write (kept when it came forwarded with one).
    const requestId = headerValue(req.headers, REQUEST_ID_HEADER) ?? newRequestId();
    let unknown = false;
    /** Once forwarded, the write may be committed under its id: a run here must carry it too. */
    let tagged: ApiRequest | undefined;
    for (;;) {
      const route = lease.route;
      if (route === 'self') {
        try {
          return await runHere(tagged ?? req);
        } catch (error) {
          // Fenced: nothing was written, so the new holder may run it. Not a forwarded one: its
          // sender may have given up on it (this process stalled), and answered the client.
          if (!(error instanceof PersistError && error.cause instanceof LeaseLostError)) throw error;
          if (hops > 0) return unavailable(LEASE_LOST_MSG);
        }
      } else if (route !== undefined && hops < MAX_HOPS) {
        tagged ??= { ...req, headers: { ...req.headers, [REQUEST_ID_HEADER]: requestId } };
        const headers = { ...tagged.headers, [HOPS_HEADER]: String(hops + 1) };
        try {
          const got = await send(route, { ...req, headers });
          // The holder lost the lease before running it (nothing applied): the next holder runs it.
          if (!(got.status === 503 && got.body.msg === LEASE_LOST_MSG)) return answer(got.status, got.body);
        } catch (error) {
          if (!(error instanceof ForwardError)) throw error;
          // Delivered but unanswered: it may be committed. Sent again with the same id, the
          // holder (this one or the next) answers from the change if it is.
          if (error.delivered) unknown = true;
        }
      }
      if (performance.now() >= deadline)
        return unavailable(
          unknown
            ? "The realm's writer did not answer; the request may or may not have been applied"
            : "No process holds the realm's write lease",
        );
      await new Promise((r) => setTimeout(r, retryMs));
      await lease.tick().catch(() => undefined);
    }
  }

  return {
    get state() {
      return inner.state;
    },
    get version() {
      return inner.version;
    },
    get halted() {
      return inner.halted;
    },
    run<const O extends AnyOperation | string>(
      op: O,
      actor: Actor,
      ...args: RunArgs<O>
    ): Promise<RunResult<O>> {
      return inner.run(op, actor, ...args);
    },
    request(req: ApiRequest): Promise<HandleResult> {
      const method = req.method.toUpperCase();
      if (method === 'GET' || method === 'HEAD') return inner.request(req);
      if (method === 'POST' && pathOf(req.url) === FORWARD_BATCH_PATH) return runBatch(req);
      return write(req);
    },
    subscribe: (listener) => inner.subscribe(listener),
    catchUp: () => inner.catchUp(),
    checkpoint: () => inner.checkpoint(),
    close: () => inner.close(),
  };
}

/**
 * Request ids need to be unique, not secret (a retry is answered only to the user who sent it): 96
 * random bits drawn once per process, then a counter. (Drawing random bits per write cost ~13 µs
 * of CPU each with Node's getRandomValues, a tenth of a forwarded write's whole cost.)
 */
const ID_PREFIX = (() => {
  const words = new Uint32Array(3);
  crypto.getRandomValues(words);
  return Array.from(words, (w) => w.toString(36)).join('');
})();
let idCounter = 0;
function randomRequestId(): string {
  return `${ID_PREFIX}-${(idCounter++).toString(36)}`;
}

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}
