/**
 * The Fetch API server: `(Request) => Promise<Response>` around a realm. It serves Zulip's REST
 * paths (`/api/v1/...`) the way a Zulip server answers them over HTTP:
 *
 * - parameters from the query string and from `application/x-www-form-urlencoded` or
 *   `multipart/form-data` bodies (zulip-js posts multipart); like Django, a body of any other
 *   type is not read as parameters, and file parts are not parameters;
 * - every answer is JSON, including 404, 405 (with `Allow`), 401 (with
 *   `WWW-Authenticate: Basic realm="zulip"`), bodies it cannot parse (400) and bodies over the
 *   limit (413);
 * - an unexpected exception (a store that fails, a bug) is logged and answers a 500 without
 *   details, never a stack trace.
 *
 * The realm does the rest: a realm handle runs `handleApiRequest`, persists the change and
 * publishes its events before the response is sent.
 */
import type { OpResult } from '../core/result';
import type { ApiRequest, FetchHandler, RequestHandler, ServerLogger } from './types';

export interface FetchHandlerOptions {
  /** The realm: a realm handle (`openRealm`) or anything that answers an `ApiRequest`. */
  readonly realm: RequestHandler;
  /** Largest request body read, in bytes; larger ones answer 413. Default 1 MiB. */
  readonly maxBodyBytes?: number;
  /**
   * Where the API is mounted, e.g. `/zulip` for `/zulip/api/v1/users/me`. Requests outside it
   * answer 404. Default: the root.
   */
  readonly basePath?: string;
  /** Receives unexpected exceptions. Default: `console.error`. */
  readonly logger?: ServerLogger;
}

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

const consoleLogger: ServerLogger = {
  error: (message, error) => console.error(`chat-realm: ${message}`, error),
};

type Json = Readonly<Record<string, unknown>>;

/** Builds the Fetch handler for a realm. */
export function createFetchHandler(options: FetchHandlerOptions): FetchHandler {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 0) {
    throw new RangeError(`maxBodyBytes must be a non-negative integer, got ${String(options.maxBodyBytes)}`);
  }
  const basePath = normalizeBasePath(options.basePath);
  const logger = options.logger ?? consoleLogger;

  return async function handle(request: Request): Promise<Response> {
    const head = request.method.toUpperCase() === 'HEAD';
    try {
      const response = await answer(request);
      return head ? new Response(null, { status: response.status, headers: response.headers }) : response;
    } catch (error) {
      logger.error(`${request.method} ${safePath(request.url)} failed`, error);
      return json(500, { result: 'error', msg: 'Internal server error', code: 'INTERNAL_SERVER_ERROR' });
    }
  };

  async function answer(request: Request): Promise<Response> {
    const url = new URL(request.url);
    let path = url.pathname;
    if (basePath !== '') {
      if (path !== basePath && !path.startsWith(`${basePath}/`)) {
        await discard(request);
        return json(404, NOT_FOUND);
      }
      path = path.slice(basePath.length) || '/';
    }
    // Zulip answers HEAD as GET without the body (the caller drops it).
    const method = request.method.toUpperCase() === 'HEAD' ? 'GET' : request.method.toUpperCase();

    const body = await readForm(request, maxBodyBytes);
    if (body.kind === 'too_large') {
      return json(413, {
        result: 'error',
        msg: `Request body too large (the limit is ${maxBodyBytes} bytes)`,
        code: 'BAD_REQUEST',
      });
    }
    if (body.kind === 'malformed') {
      return json(400, {
        result: 'error',
        msg: `Malformed request body: ${body.reason}`,
        code: 'BAD_REQUEST',
      });
    }

    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const apiRequest: ApiRequest = {
      method,
      url: `${path}${url.search}`,
      headers,
      ...(body.kind === 'form' ? { body: body.value } : {}),
    };
    const result: OpResult = await options.realm.request(apiRequest);
    return toResponse(result);
  }
}

const NOT_FOUND: Json = { result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' };

/** The HTTP response for an operation's result, with the headers Zulip sends with it. */
export function toResponse(result: Pick<OpResult, 'status' | 'body'>): Response {
  const extra: Record<string, string> = {};
  if (result.status === 401) extra['www-authenticate'] = 'Basic realm="zulip"';
  const allowed = result.body['allowed_methods'];
  if (result.status === 405 && Array.isArray(allowed)) extra['allow'] = allowed.map(String).join(', ');
  return json(result.status, result.body, extra);
}

function json(status: number, body: Json, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

type Form =
  | { readonly kind: 'none' }
  | { readonly kind: 'form'; readonly value: string | Readonly<Record<string, string>> }
  | { readonly kind: 'too_large' }
  | { readonly kind: 'malformed'; readonly reason: string };

/** Reads the body (bounded) and decodes it as form fields, as Django fills `request.POST`. */
async function readForm(request: Request, limit: number): Promise<Form> {
  if (request.body === null) return { kind: 'none' };
  const bytes = await readBounded(request, limit);
  if (bytes === undefined) return { kind: 'too_large' };
  const contentType = request.headers.get('content-type') ?? '';
  const mediaType = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  if (mediaType === 'application/x-www-form-urlencoded') {
    return { kind: 'form', value: new TextDecoder().decode(bytes) };
  }
  if (mediaType === 'multipart/form-data') {
    // zulip-js (form-data) streams nothing at all, not even the closing boundary, for no fields.
    if (bytes.byteLength === 0) return { kind: 'none' };
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
  return { kind: 'none' };
}

/** The body's bytes, or undefined when it is longer than `limit` (reading stops there). */
async function readBounded(request: Request, limit: number): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) {
    await discard(request);
    return undefined;
  }
  const reader = request.body!.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

async function discard(request: Request): Promise<void> {
  await request.body?.cancel().catch(() => undefined);
}

function normalizeBasePath(basePath: string | undefined): string {
  if (basePath === undefined || basePath === '' || basePath === '/') return '';
  const trimmed = basePath.replace(/\/+$/, '');
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

function safePath(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '?';
  }
}
