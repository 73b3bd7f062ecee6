/**
 * Batches of forwarded writes (issue 30, throughput): a follower sends the writes for one holder
 * that arrive while its previous forward to it is in flight as one HTTP request, answered with
 * one answer per write, so the holder parses one request per follower round trip instead of one
 * per write (as group commit does for fsyncs). A lone write goes alone, as before: batching adds
 * no wait. Every write in a batch carries its own request id (request-ids.ts), so a batch that
 * got no answer is sent again write by write, each applied at most once.
 *
 * The batch is a POST to `FORWARD_BATCH_PATH` with one form field, `batch` (JSON: the requests as
 * the follower would have forwarded them one by one), and the holder's secret in
 * `FORWARD_SECRET_HEADER` (its random name in the lease row, which only processes that read the
 * database know): a client cannot send batches itself, so it cannot get past the per-request
 * checks (rate limits, fair scheduling) of the process it reaches.
 */
import type { ApiRequest } from '../wire/handle';
import type { ForwardedAnswer } from './leased-handle';

export const FORWARD_BATCH_PATH = '/api/v1/__chat_realm/forward_batch';
export const FORWARD_SECRET_HEADER = 'x-chat-realm-forward-secret';

/** Sends `requests` to the holder at `address` as one batch; rejects with `ForwardError`. */
export type ForwardBatch = (
  address: string,
  secret: string,
  requests: readonly ApiRequest[],
) => Promise<readonly ForwardedAnswer[]>;

/** One forwarded request as a batch carries it: the body as form text. */
export interface BatchedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** Most writes in one batch, and most bytes of their bodies (under the servers' 1 MiB limit). */
export const MAX_BATCH = 64;
export const MAX_BATCH_BYTES = 256 * 1024;

interface Waiting {
  readonly request: ApiRequest;
  readonly bytes: number;
  readonly resolve: (answer: ForwardedAnswer) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Per holder address: at most one forward in flight; what arrives meanwhile goes together in the
 * next one (one request alone goes through `single`, the plain forward).
 */
export class ForwardBatcher {
  private readonly lanes = new Map<string, { busy: boolean; queue: Waiting[] }>();

  constructor(
    private readonly single: (address: string, request: ApiRequest) => Promise<ForwardedAnswer>,
    private readonly batch: ForwardBatch,
    /** A `ForwardError` saying the request was never sent (its sender may send it elsewhere). */
    private readonly notSent: (message: string) => Error,
  ) {}

  send(address: string, secret: string, request: ApiRequest): Promise<ForwardedAnswer> {
    let lane = this.lanes.get(address);
    if (lane === undefined) {
      lane = { busy: false, queue: [] };
      this.lanes.set(address, lane);
    }
    const bytes = bodyText(request.body)?.length ?? 0;
    const answered = new Promise<ForwardedAnswer>((resolve, reject) =>
      lane.queue.push({ request, bytes, resolve, reject }),
    );
    if (!lane.busy) void this.pump(address, secret, lane);
    return answered;
  }

  private async pump(address: string, secret: string, lane: { busy: boolean; queue: Waiting[] }) {
    lane.busy = true;
    try {
      while (lane.queue.length > 0) {
        let n = 0;
        let bytes = 0;
        while (
          n < lane.queue.length &&
          n < MAX_BATCH &&
          (n === 0 || bytes + lane.queue[n]!.bytes <= MAX_BATCH_BYTES)
        )
          bytes += lane.queue[n++]!.bytes;
        const items = lane.queue.splice(0, n);
        try {
          if (items.length === 1) {
            items[0]!.resolve(await this.single(address, items[0]!.request));
            continue;
          }
          const answers = await this.batch(
            address,
            secret,
            items.map((i) => i.request),
          );
          items.forEach((item, i) => item.resolve(answers[i]!));
        } catch (error) {
          if (undelivered(error) && items.length > 1) {
            // Refused whole (nothing ran: e.g. a holder without batches): one by one instead.
            await Promise.all(
              items.map((item) => this.single(address, item.request).then(item.resolve, item.reject)),
            );
          } else {
            for (const item of items) item.reject(error);
            if (!undelivered(error)) {
              // The holder did not answer (it died or stalls): what waits here was never sent, and
              // goes back to its sender, which looks at the lease again instead of queueing
              // behind another timeout at the same address.
              const waiting = lane.queue.splice(0);
              const reason = this.notSent(`not sent: ${address} did not answer the forward before it`);
              for (const item of waiting) item.reject(reason);
            }
          }
        }
      }
    } finally {
      lane.busy = false;
      if (this.lanes.get(address) === lane && lane.queue.length === 0) this.lanes.delete(address);
    }
  }
}

/** A `ForwardError` that says the request certainly never ran (checked by shape: no import cycle). */
function undelivered(error: unknown): boolean {
  return (
    error instanceof Error &&
    error.name === 'ForwardError' &&
    (error as { delivered?: unknown }).delivered === false
  );
}

/** A request's body as form text (a host may have parsed it into fields already). */
export function bodyText(body: ApiRequest['body']): string | undefined {
  if (body === undefined || typeof body === 'string') return body;
  return new URLSearchParams(body as Record<string, string>).toString();
}

/** The requests of a batch as its holder received it; undefined when it is not one. */
export function readBatch(body: ApiRequest['body']): BatchedRequest[] | undefined {
  let text: string | undefined;
  if (typeof body === 'string') text = new URLSearchParams(body).get('batch') ?? undefined;
  else if (body !== undefined) text = (body as Record<string, string>)['batch'];
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length === 0 || parsed.length > MAX_BATCH) return undefined;
  const out: BatchedRequest[] = [];
  for (const item of parsed as unknown[]) {
    if (typeof item !== 'object' || item === null) return undefined;
    const r = item as Record<string, unknown>;
    if (typeof r['method'] !== 'string' || typeof r['url'] !== 'string') return undefined;
    if (r['body'] !== undefined && typeof r['body'] !== 'string') return undefined;
    const headers = r['headers'];
    if (typeof headers !== 'object' || headers === null) return undefined;
    const h: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) {
      if (typeof v !== 'string') return undefined;
      h[k.toLowerCase()] = v;
    }
    // Only API paths, and never a batch inside a batch.
    if (!r['url'].startsWith('/api/v1/') || r['url'].startsWith(FORWARD_BATCH_PATH)) return undefined;
    out.push({
      method: r['method'],
      url: r['url'],
      headers: h,
      ...(r['body'] === undefined ? {} : { body: r['body'] }),
    });
  }
  return out;
}
