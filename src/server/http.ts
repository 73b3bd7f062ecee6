/**
 * The request handling shared by the servers (the Fetch handler and the direct `node:http`
 * listener): base path, HEAD, the bounded body read and its form decoding (as Django fills
 * `request.POST`), the realm's answer, and the JSON error answers (404, 413, 400, 500). Each
 * server only adapts its own request and response types to `HttpHead` / `HttpBody` / `HttpAnswer`,
 * so both answer every request the same way.
 */
import { bodyJson } from '../core/body-json';
import { FORWARD_BATCH_PATH } from '../host/forward-batch';
import { serverEmojiDataJson } from '../core/emoji/server-data';
import { EMOJI_DATA_PATH } from '../core/register/server-constants';
import type { OpResult } from '../core/result';
import { fairnessKey, FairScheduler, type FairnessOptions } from './fairness';
import { RateLimiter, rateLimitBody, type RateLimitOptions } from './rate-limit';
import type { ApiRequest, RequestHandler, ServerLogger } from './types';

export interface HttpOptions {
  /** The realm: a realm handle (`openRealm`) or anything that answers an `ApiRequest`. */
  readonly realm: RequestHandler;
  /** Largest request body read, in bytes; larger ones answer 413. Default 1 MiB. */
  readonly maxBodyBytes?: number;
  /**
   * Where the API is mounted, e.g. `/zulip` for `/zulip/api/v1/users/me`. Requests outside it
   * answer 404. Default: the root.
   */
  readonly basePath?: string;
  /** Receives unexpected exceptions (and, at `debug`, requests the client abandoned). Default: `console.error`. */
  readonly logger?: ServerLogger;
  /**
   * Per-user request rate limit (Zulip's api_by_user: `{}` gives its 200 requests per 60 s), or
   * a `RateLimiter` to share between servers. Default: none (the `serve` command turns it on).
   * Counted per credential (the Authorization header) for requests that authenticated; GET and
   * DELETE /events (long-polls, each answer bounded) are not counted.
   */
  readonly rateLimit?: RateLimitOptions | RateLimiter | false;
  /**
   * Fair scheduling between users (src/server/fairness.ts): one request per user in the realm at
   * a time, and a share of the event loop per user while others are active (`{}` for the
   * defaults), or a `FairScheduler` to share between servers. Default: none (the `serve` command
   * turns it on). GET and DELETE /events are not scheduled (they wait for events, not the realm).
   */
  readonly fairness?: FairnessOptions | FairScheduler | false;
}

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** A request's method, path and query (as received, already normalized), and headers (lower-case names). */
export interface HttpHead {
  readonly method: string;
  readonly path: string;
  /** `?…` or empty. */
  readonly search: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Aborted when the client goes away before its answer (a long-poll then stops waiting). */
  readonly signal?: AbortSignal;
}

/** A request body: absent (GET/HEAD), or readable once up to a limit. */
export interface HttpBody {
  /**
   * The bytes, `too_large` past `limit` (the rest is drained, so the answer still reaches the
   * client), or `aborted` when the client went away mid-body.
   */
  read(limit: number): Promise<Uint8Array<ArrayBuffer> | 'too_large' | 'aborted'>;
  /** Reads nothing more (drains what comes). */
  discard(): Promise<void>;
}

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON text (Zulip's shape), or null when the client is gone and nothing is to be sent. */
  readonly body: string | null;
}

type Json = Readonly<Record<string, unknown>>;

const consoleLogger: ServerLogger = {
  error: (message, error) => console.error(`chat-realm: ${message}`, error),
};

export const INTERNAL_ERROR: Json = {
  result: 'error',
  msg: 'Internal server error',
  code: 'INTERNAL_SERVER_ERROR',
};
const NOT_FOUND: Json = { result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' };
const ABORTED: HttpAnswer = { status: 400, headers: {}, body: null };

/**
 * The headers of nearly every answer: one object for all of them (an adapter that sees this one
 * knows there is nothing else to copy).
 */
export const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/json',
});

/** The answer for a result or an error body: JSON, with the headers Zulip sends with it. */
export function jsonAnswer(status: number, body: Json): HttpAnswer {
  if (status !== 401 && status !== 405) return { status, headers: JSON_HEADERS, body: bodyJson(body) };
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (status === 401) headers['www-authenticate'] = 'Basic realm="zulip"';
  const allowed = body['allowed_methods'];
  if (status === 405 && Array.isArray(allowed)) headers['allow'] = allowed.map(String).join(', ');
  return { status, headers, body: bodyJson(body) };
}

export function resultAnswer(result: Pick<OpResult, 'status' | 'body'>): HttpAnswer {
  return jsonAnswer(result.status, result.body);
}

/** A function answering one request; it never rejects (failures are logged and answer 500). */
export type HttpCore = (head: HttpHead, body: HttpBody | null) => Promise<HttpAnswer>;

export function createHttpCore(options: HttpOptions): HttpCore {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 0) {
    throw new RangeError(`maxBodyBytes must be a non-negative integer, got ${String(options.maxBodyBytes)}`);
  }
  const basePath = normalizeBasePath(options.basePath);
  const logger = options.logger ?? consoleLogger;
  const realm = options.realm;
  const limiter =
    options.rateLimit === undefined || options.rateLimit === false
      ? undefined
      : options.rateLimit instanceof RateLimiter
        ? options.rateLimit
        : new RateLimiter(options.rateLimit);
  const fairness =
    options.fairness === undefined || options.fairness === false
      ? undefined
      : options.fairness instanceof FairScheduler
        ? options.fairness
        : new FairScheduler(options.fairness);

  /**
   * Per credential, requests let through the in-turn check below and not yet counted: with fair
   * scheduling's lone-user window several of a user's requests are in the realm at once, and
   * each must see the others' places in the window (one at a time, this is always 0).
   */
  const admitted = new Map<string, number>();

  /** The realm's answer to a request (in its user's turn, with fair scheduling). */
  async function respond(apiRequest: ApiRequest, credential: string | undefined): Promise<HttpAnswer> {
    if (credential === undefined) return resultAnswer(await realm.request(apiRequest));
    // Checked again in the user's turn: with fair scheduling a user's requests run one at a time
    // (or a few at once while alone), so a burst sent at once is counted one by one and refused
    // past the limit.
    const inTurn = fairness === undefined ? 0 : (admitted.get(credential) ?? 0);
    const secs = limiter!.secsToFreedom(credential, inTurn);
    if (secs > 0) return rateLimited(secs);
    if (fairness !== undefined) admitted.set(credential, inTurn + 1);
    let result: OpResult;
    try {
      result = await realm.request(apiRequest);
    } finally {
      if (fairness !== undefined) {
        const n = admitted.get(credential)! - 1;
        if (n === 0) admitted.delete(credential);
        else admitted.set(credential, n);
      }
    }
    // Only authenticated requests count (Zulip limits the user, after authentication).
    if (result.status !== 401) limiter!.record(credential);
    // Serialized in the user's turn: a large answer is that user's cost.
    return resultAnswer(result);
  }

  return async function answer(head, body) {
    try {
      let path = head.path;
      if (basePath !== '') {
        if (path !== basePath && !path.startsWith(`${basePath}/`)) {
          await body?.discard();
          return jsonAnswer(404, NOT_FOUND);
        }
        path = path.slice(basePath.length) || '/';
      }
      // Zulip answers HEAD as GET without the body (the adapter drops it).
      const upper = head.method.toUpperCase();
      const method = upper === 'HEAD' ? 'GET' : upper;
      // register's `server_emoji_data_url`: a static file for Zulip, public and cacheable.
      if (method === 'GET' && path === EMOJI_DATA_PATH) {
        await body?.discard();
        return {
          status: 200,
          headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=86400' },
          body: serverEmojiDataJson(),
        };
      }
      const isCounted = (limiter !== undefined || fairness !== undefined) && counted(method, path);
      const credential = limiter !== undefined && isCounted ? head.headers['authorization'] : undefined;
      if (credential !== undefined) {
        const secs = limiter!.secsToFreedom(credential);
        if (secs > 0) {
          await body?.discard();
          return rateLimited(secs);
        }
      }
      let form: Form | Promise<Form> = NO_FORM;
      if (body !== null) {
        if (declaredTooLarge(head.headers, maxBodyBytes)) {
          await body.discard();
          form = TOO_LARGE;
        } else {
          // Awaited here rather than in a helper of its own: one promise and one hop fewer per POST.
          const bytes = await body.read(maxBodyBytes);
          form =
            bytes === 'too_large'
              ? TOO_LARGE
              : bytes === 'aborted'
                ? ABORTED_FORM
                : formOf(bytes, head.headers);
          if (form instanceof Promise) form = await form;
        }
      }
      if (form.kind === 'aborted') {
        // The client went away mid-body: nothing to answer, nothing authenticated, not an error.
        logger.debug?.(`${head.method} ${path}: client disconnected before the end of the body`);
        return ABORTED;
      }
      if (form.kind === 'too_large') {
        return jsonAnswer(413, {
          result: 'error',
          msg: `Request body too large (the limit is ${maxBodyBytes} bytes)`,
          code: 'BAD_REQUEST',
        });
      }
      if (form.kind === 'malformed') {
        return jsonAnswer(400, {
          result: 'error',
          msg: `Malformed request body: ${form.reason}`,
          code: 'BAD_REQUEST',
        });
      }
      const apiRequest = apiRequestOf(method, `${path}${head.search}`, head, form);
      // May be asynchronous (a realm handle persisting, or a handler that waits for events).
      return fairness !== undefined && isCounted
        ? await fairness.run(schedulingKey(head.headers['authorization']), () =>
            respond(apiRequest, credential),
          )
        : await respond(apiRequest, credential);
    } catch (error) {
      const tooLarge = changeTooLarge(error);
      if (tooLarge !== undefined) {
        // The request was valid but its change is beyond the store's bound: the caller's doing,
        // nothing was applied, so a 4xx with the reason rather than an internal error.
        return jsonAnswer(400, { result: 'error', msg: tooLarge, code: 'BAD_REQUEST' });
      }
      logger.error(`${head.method} ${head.path} failed`, error);
      return jsonAnswer(500, INTERNAL_ERROR);
    }
  };
}

/**
 * The realm's request: literals rather than spreads of optional fields (every request builds one;
 * a spread after the first field is copied property by property at run time). Fields in the same
 * order either way.
 */
function apiRequestOf(method: string, url: string, head: HttpHead, form: Form): ApiRequest {
  const headers = head.headers;
  const signal = head.signal;
  if (form.kind === 'form') {
    const body = form.value;
    return signal === undefined ? { method, url, headers, body } : { method, url, headers, body, signal };
  }
  return signal === undefined ? { method, url, headers } : { method, url, headers, signal };
}

/** `fairnessKey` by header: a client sends the same header on every request. Bounded. */
const keys = new Map<string | undefined, string>();
function schedulingKey(authorization: string | undefined): string {
  let key = keys.get(authorization);
  if (key === undefined) {
    key = fairnessKey(authorization);
    if (keys.size >= 4096) keys.clear();
    keys.set(authorization, key);
  }
  return key;
}

/** Zulip's 429 answer, with `Retry-After`. */
function rateLimited(secs: number): HttpAnswer {
  const answer = jsonAnswer(429, rateLimitBody(secs));
  return { ...answer, headers: { ...answer.headers, 'retry-after': String(secs) } };
}

const EVENTS_PATH = '/api/v1/events';

/**
 * Whether a request counts against the rate limit (and is scheduled): every one but the event
 * long-polls, and batches of writes forwarded by another process (src/host/forward-batch.ts):
 * each write in one was counted and scheduled by the process its client reached, and a batch
 * carries many users' writes (scheduled under one key, they would wait for each other).
 */
function counted(method: string, path: string): boolean {
  if (path === FORWARD_BATCH_PATH) return false;
  if (method !== 'GET' && method !== 'DELETE') return true;
  // Only a path that starts like the events path can be it: no regular expression for the rest.
  if (path.length < EVENTS_PATH.length || !path.startsWith(EVENTS_PATH)) return true;
  return path.replace(/\/+$/, '') !== EVENTS_PATH;
}

/**
 * The message of a `ChangeTooLargeError` behind a `PersistError` (by name: the server may be
 * loaded from the other module format than the host, so `instanceof` could miss it).
 */
function changeTooLarge(error: unknown): string | undefined {
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof Error && cause.name === 'ChangeTooLargeError') return cause.message;
  return undefined;
}

type Form =
  | { readonly kind: 'none' }
  | { readonly kind: 'form'; readonly value: string | Readonly<Record<string, string>> }
  | { readonly kind: 'too_large' }
  | { readonly kind: 'aborted' }
  | { readonly kind: 'malformed'; readonly reason: string };

/** One decoder for every form body: `decode` without `stream` keeps no state between calls. */
const FORM_TEXT = new TextDecoder();
const NO_FORM: Form = { kind: 'none' };
const FORM_TYPE = 'application/x-www-form-urlencoded';

const TOO_LARGE: Form = { kind: 'too_large' };
const ABORTED_FORM: Form = { kind: 'aborted' };

/** Whether the body's declared length is over the limit (it is then not read at all). */
function declaredTooLarge(headers: Readonly<Record<string, string>>, limit: number): boolean {
  const declared = Number(headers['content-length'] ?? Number.NaN);
  return Number.isFinite(declared) && declared > limit;
}

/**
 * Decodes a body as form fields, as Django fills `request.POST`. Synchronous but for multipart
 * (the runtime's parser is asynchronous), so the usual form body costs no promise of its own.
 */
function formOf(
  bytes: Uint8Array<ArrayBuffer>,
  headers: Readonly<Record<string, string>>,
): Form | Promise<Form> {
  const contentType = headers['content-type'] ?? '';
  // What clients nearly always send, recognized without splitting and lower-casing it first.
  if (contentType === FORM_TYPE) return { kind: 'form', value: FORM_TEXT.decode(bytes) };
  const mediaType = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  if (mediaType === FORM_TYPE) {
    return { kind: 'form', value: FORM_TEXT.decode(bytes) };
  }
  if (mediaType === 'multipart/form-data') return multipartForm(bytes, contentType);
  return NO_FORM;
}

async function multipartForm(bytes: Uint8Array<ArrayBuffer>, contentType: string): Promise<Form> {
  // zulip-js (form-data) streams nothing at all, not even the closing boundary, for no fields.
  if (bytes.byteLength === 0) return NO_FORM;
  let data: FormData;
  try {
    // The runtime's own multipart parser (undici in Node); it needs the boundary parameter.
    data = await new Response(bytes, { headers: { 'content-type': contentType } }).formData();
  } catch {
    return { kind: 'malformed', reason: 'the multipart/form-data body could not be parsed' };
  }
  const fields: Record<string, string> = Object.create(null) as Record<string, string>;
  // Django's QueryDict.get gives the last value of a repeated field; uploads are not parameters.
  data.forEach((value, name) => {
    if (typeof value === 'string') fields[name] = value;
  });
  return { kind: 'form', value: fields };
}

/** Joins chunks read from a stream into one array. */
export function concatChunks(chunks: readonly Uint8Array[], total: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

function normalizeBasePath(basePath: string | undefined): string {
  if (basePath === undefined || basePath === '' || basePath === '/') return '';
  const trimmed = basePath.replace(/\/+$/, '');
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}
