/**
 * The Node `http` adapters. `createNodeRealmHandler` answers Node's requests directly with the
 * request handling shared with the Fetch handler (src/server/http.ts), without building Fetch
 * `Request`/`Headers`/`Response` objects and streams per request (those conversions cost more
 * than the realm's own work on small requests). `createNodeHandler` turns any Fetch handler into
 * a `(req, res)` listener (for `http.createServer`, Express, Connect...). `serveNode` starts a
 * server for either, and makes every answer JSON, including what Node's HTTP parser refuses.
 * `node:http` is loaded only by `serveNode`, so importing chat-realm/server stays possible where
 * there is no Node (Workers, browsers) for the Fetch handler alone.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  concatChunks,
  createHttpCore,
  INTERNAL_ERROR as INTERNAL_ERROR_BODY,
  JSON_HEADERS,
  type HttpBody,
  type HttpHead,
  type HttpOptions,
} from './http';
import { FairScheduler } from './fairness';
import { RateLimiter } from './rate-limit';
import type { FetchHandler, ServerLogger } from './types';

export type NodeListener = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export interface NodeHandlerOptions {
  /** Receives failures the Fetch handler did not turn into a response. Default: `console.error`. */
  readonly logger?: ServerLogger;
}

const consoleLogger: ServerLogger = {
  error: (message, error) => console.error(`chat-realm: ${message}`, error),
};

const INTERNAL_ERROR = JSON.stringify(INTERNAL_ERROR_BODY);
const MALFORMED = JSON.stringify({ result: 'error', msg: 'Malformed request', code: 'BAD_REQUEST' });

/** A Node request listener that answers every request with the Fetch handler. */
export function createNodeHandler(handler: FetchHandler, options: NodeHandlerOptions = {}): NodeListener {
  const logger = options.logger ?? consoleLogger;
  return async (req, res) => {
    let request: Request;
    try {
      request = toFetchRequest(req, undefined, disconnectSignal(res));
    } catch {
      sendText(res, 400, MALFORMED);
      return;
    }
    try {
      await sendFetchResponse(res, await handler(request));
    } catch (error) {
      logger.error(`${req.method ?? '?'} ${req.url ?? '?'} failed`, error);
      if (!res.headersSent) sendText(res, 500, INTERNAL_ERROR);
      else res.destroy();
    }
  };
}

/**
 * A Fetch `Request` for a Node request. The URL is Express's `originalUrl` when there is one (so
 * a mounted router sees the full path). `body`, when given, replaces the stream (for frameworks
 * that already read it, e.g. Fastify's content-type parsers).
 */
export function toFetchRequest(
  req: IncomingMessage,
  body?: Uint8Array | string,
  signal?: AbortSignal,
): Request {
  const path = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '/';
  const url = new URL(path, `http://${hostOf(req)}`);
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const method = req.method ?? 'GET';
  const aborts = signal === undefined ? {} : { signal };
  if (method === 'GET' || method === 'HEAD') return new Request(url, { method, headers, ...aborts });
  if (body !== undefined) {
    headers.delete('content-length');
    return new Request(url, {
      method,
      headers,
      body: typeof body === 'string' ? body : new Uint8Array(body),
      ...aborts,
    });
  }
  const init = { method, headers, body: bodyStream(req), duplex: 'half' } as RequestInit;
  return new Request(url, signal === undefined ? init : { ...init, signal });
}

/**
 * A signal aborted when the connection closes before the answer was written: the client went
 * away (a long-poll's client closed its tab), so whatever waits for it can stop.
 */
export function disconnectSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** Whether a request path is the events long-poll (the only request that waits for the client). */
function isLongPoll(method: string, path: string): boolean {
  return method === 'GET' && (path.endsWith('/events') || path.endsWith('/events/'));
}

function hostOf(req: IncomingMessage): string {
  const host = req.headers.host;
  // A Host header that is not a host[:port] must not make the URL unparseable.
  return host !== undefined && /^[A-Za-z0-9.\-[\]:]+$/.test(host) ? host : 'localhost';
}

/**
 * The request body as a web stream. Cancelling it (a body over the limit) drains the rest instead
 * of destroying the socket, so the 413 still reaches the client.
 */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let cancelled = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      req.on('data', (chunk: Buffer) => {
        if (cancelled) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) req.pause();
      });
      req.on('end', () => {
        if (!cancelled) controller.close();
      });
      req.on('error', (error) => {
        if (!cancelled) controller.error(error);
      });
    },
    pull() {
      req.resume();
    },
    cancel() {
      cancelled = true;
      req.resume();
    },
  });
}

/** Writes a Fetch `Response` to a Node response (streaming its body). */
export async function sendFetchResponse(res: ServerResponse, response: Response): Promise<void> {
  res.statusCode = response.status;
  response.headers.forEach((value, name) => {
    res.setHeader(name, value);
  });
  if (response.body === null) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!res.write(value)) await new Promise<void>((resolve) => res.once('drain', resolve));
  }
  res.end();
}

function sendText(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': new TextEncoder().encode(body).byteLength,
  });
  res.end(body);
}

/**
 * A Node request listener answering with the shared request handling directly (no Fetch objects):
 * the fast path `serveNode` uses when given the realm options.
 */
export function createNodeRealmHandler(options: HttpOptions): NodeListener {
  const core = createHttpCore(options);
  return async (req, res) => {
    const method = req.method ?? 'GET';
    let head = nodeHead(req);
    // Only a long-poll waits long enough for its client to leave; other requests skip the listener.
    if (isLongPoll(method, head.path)) head = { ...head, signal: disconnectSignal(res) };
    const answer = await core(head, method === 'GET' || method === 'HEAD' ? null : nodeBody(req));
    if (answer.body === null) {
      // The client went away mid-body: nothing can be sent.
      res.destroy();
      return;
    }
    const length = Buffer.byteLength(answer.body);
    // The usual headers as a literal: no copy of the answer's object per request.
    res.writeHead(
      answer.status,
      answer.headers === JSON_HEADERS
        ? { 'content-type': 'application/json', 'content-length': length }
        : { ...answer.headers, 'content-length': length },
    );
    res.end(method === 'HEAD' ? undefined : answer.body);
  };
}

/** Request targets whose path and query `new URL` would leave unchanged (most API calls). */
const PLAIN_TARGET = /^\/[A-Za-z0-9_\-/]*(?:\?[A-Za-z0-9_\-.~%=&+*,:@!$;/?]+)?$/;

function nodeHead(req: IncomingMessage): HttpHead {
  const target = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '/';
  let path: string;
  let search: string;
  if (PLAIN_TARGET.test(target) && !target.includes('/.')) {
    const q = target.indexOf('?');
    path = q < 0 ? target : target.slice(0, q);
    search = q < 0 ? '' : target.slice(q);
  } else {
    // Anything else is normalized exactly as the Fetch path does (dot segments, percent-encoding).
    let url: URL;
    try {
      url = new URL(target, 'http://localhost');
    } catch {
      url = new URL('http://localhost/');
    }
    path = url.pathname;
    search = url.search;
  }
  return { method: req.method ?? 'GET', path, search, headers: stringHeaders(req.headers) };
}

/**
 * Node's headers as strings. Node already gives lower-case names and joins repeated headers, so
 * its own object is used as it is unless a value is an array (only `set-cookie`, which a client
 * does not send): no copy per request.
 */
function stringHeaders(h: IncomingMessage['headers']): Readonly<Record<string, string>> {
  for (const name in h) if (typeof h[name] !== 'string') return joinedHeaders(h);
  return h as Readonly<Record<string, string>>;
}

function joinedHeaders(h: IncomingMessage['headers']): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  for (const name in h) {
    const v = h[name];
    if (v !== undefined) headers[name] = typeof v === 'string' ? v : v.join(', ');
  }
  return headers;
}

function nodeBody(req: IncomingMessage): HttpBody {
  return new NodeBody(req);
}

/** Where a request's `NodeBody` hangs on the request, for the listeners below. */
const BODY = Symbol('chat-realm body');
type WithBody = IncomingMessage & { [BODY]?: NodeBody };

/*
 * The body's listeners are module functions, not closures: the request is `this` for them and
 * carries its body, so reading a body makes no function objects (every POST reads one).
 */
function onBodyData(this: WithBody, chunk: Buffer): void {
  this[BODY]!.data(chunk);
}
function onBodyEnd(this: WithBody): void {
  this[BODY]!.end();
}
function onBodyAbort(this: WithBody): void {
  this[BODY]!.settle('aborted');
}

/**
 * A Node request's body, read once up to a limit. A class rather than closures: one object per
 * request, its listeners added only when the body is read.
 */
class NodeBody implements HttpBody {
  /** The first chunk, and the others after it (a small body comes in one: no array, no copy). */
  private first: Buffer | undefined;
  private more: Buffer[] | undefined;
  private total = 0;
  private limit = 0;
  private settled = false;
  private resolve: ((v: Uint8Array<ArrayBuffer> | 'too_large' | 'aborted') => void) | undefined;

  constructor(private readonly req: WithBody) {}

  read(limit: number): Promise<Uint8Array<ArrayBuffer> | 'too_large' | 'aborted'> {
    this.limit = limit;
    return new Promise((resolve) => {
      this.resolve = resolve;
      const req = this.req;
      req[BODY] = this;
      req.on('data', onBodyData);
      req.on('end', onBodyEnd);
      req.on('error', onBodyAbort);
      req.on('aborted', onBodyAbort);
      if (req.readableEnded) this.end();
    });
  }

  discard(): Promise<void> {
    this.req.resume();
    return Promise.resolve();
  }

  data(chunk: Buffer): void {
    this.total += chunk.byteLength;
    if (this.total > this.limit) {
      // Drain the rest instead of destroying the socket, so the 413 still reaches the client.
      this.req.resume();
      this.settle('too_large');
      return;
    }
    if (this.first === undefined) this.first = chunk;
    else (this.more ??= []).push(chunk);
  }

  /** Not joined once settled: after a body over the limit was drained, `total` is its size. */
  end(): void {
    if (this.settled) return;
    const first = this.first;
    if (first === undefined) {
      this.settle(new Uint8Array(0));
    } else if (this.more === undefined && first.buffer instanceof ArrayBuffer) {
      // One chunk: a view of Node's own buffer (the parser gives each chunk its own bytes).
      this.settle(new Uint8Array(first.buffer, first.byteOffset, first.byteLength));
    } else {
      this.settle(concatChunks(this.more === undefined ? [first] : [first, ...this.more], this.total));
    }
  }

  /**
   * The listeners stay: the request object is the request's own and goes with it, and whatever
   * they hear after this is ignored (`settled`; past the limit, `data` only drains). Removing four
   * listeners cost every POST more than that.
   */
  settle(v: Uint8Array<ArrayBuffer> | 'too_large' | 'aborted'): void {
    if (this.settled) return;
    this.settled = true;
    this.resolve!(v);
  }
}

/**
 * What Node's HTTP parser refuses never reaches a listener: by default Node answers an empty 400
 * or 431. These answers are JSON in Zulip's error shape instead. A method the parser does not know
 * (`FOO`, a lower-case `get`) is routed like any method the API does not serve (404 or 405 with
 * `Allow`, before any authentication); the connection is closed after the answer.
 */
/** Answers a request that has only a method and a target (no headers, no body): routing only. */
type Route = (
  method: string,
  target: string,
) => Promise<{ status: number; headers: Readonly<Record<string, string>>; body: string }>;

function routeWithCore(core: ReturnType<typeof createHttpCore>): Route {
  return async (method, target) => {
    const [path, search] = splitTarget(target);
    const a = await core({ method, path, search, headers: {} }, null);
    return { status: a.status, headers: a.headers, body: a.body ?? '' };
  };
}

function routeWithFetch(handler: FetchHandler): Route {
  return async (method, target) => {
    const response = await handler(new Request(new URL(target, 'http://localhost'), { method }));
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      if (name !== 'content-length') headers[name] = value;
    });
    return { status: response.status, headers, body: await response.text() };
  };
}

export function answerClientError(
  route: Route,
  logger: ServerLogger,
): (error: Error & { code?: string; rawPacket?: Buffer }, socket: Socket) => void {
  return (error, socket) => {
    const code = error.code ?? '';
    if (code === 'ECONNRESET' || !socket.writable) {
      logger.debug?.(`client connection error: ${code || error.message}`);
      socket.destroy();
      return;
    }
    // RFC 9110 §9.3.2: a HEAD answer has the GET answer's headers and no body.
    const isHead = error.rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
    const send = (
      status: number,
      reason: string,
      headers: Readonly<Record<string, string>>,
      body: string,
    ) => {
      if (!socket.writable) return;
      let head = `HTTP/1.1 ${status} ${reason}\r\n`;
      for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
      head += `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n`;
      socket.end(isHead ? head : head + body);
    };
    const json = { 'content-type': 'application/json' };
    if (code === 'HPE_HEADER_OVERFLOW') {
      send(
        431,
        'Request Header Fields Too Large',
        json,
        JSON.stringify({ result: 'error', msg: 'Request header fields too large', code: 'BAD_REQUEST' }),
      );
      return;
    }
    if (code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'HPE_HEADER_TIMEOUT') {
      send(
        408,
        'Request Timeout',
        json,
        JSON.stringify({ result: 'error', msg: 'Request timeout', code: 'BAD_REQUEST' }),
      );
      return;
    }
    const line = requestLine(error.rawPacket);
    if (code === 'HPE_INVALID_METHOD' && line !== null) {
      route(line.method, line.target).then(
        (a) => send(a.status, STATUS_TEXT[a.status] ?? 'Error', a.headers, a.body),
        (routeError: unknown) => {
          logger.error(`${line.method} ${line.target} failed`, routeError);
          send(500, 'Internal Server Error', json, JSON.stringify(INTERNAL_ERROR_BODY));
        },
      );
      return;
    }
    send(
      400,
      'Bad Request',
      json,
      JSON.stringify({ result: 'error', msg: 'Malformed HTTP request', code: 'BAD_REQUEST' }),
    );
  };
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  405: 'Method Not Allowed',
  500: 'Internal Server Error',
};

/** The method and target of a raw request's first line, when it has the usual shape. */
function requestLine(raw: Buffer | undefined): { method: string; target: string } | null {
  if (raw === undefined) return null;
  const text = raw.subarray(0, 8192).toString('latin1');
  const m = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]{1,32}) (\/[^\s]*) HTTP\/1\.[01]\r?\n/.exec(text);
  return m ? { method: m[1]!, target: m[2]! } : null;
}

function splitTarget(target: string): [string, string] {
  try {
    const url = new URL(target, 'http://localhost');
    return [url.pathname, url.search];
  } catch {
    return ['/', ''];
  }
}

export interface ServeNodeOptions {
  /** A Fetch handler to serve; or give the realm options (`realm`, …) for the direct path. */
  readonly handler?: FetchHandler;
  /** The realm to serve through the direct `node:http` path (used when `handler` is absent). */
  readonly realm?: HttpOptions['realm'];
  readonly maxBodyBytes?: number;
  readonly basePath?: string;
  /** Per-user rate limit on the direct path (`HttpOptions.rateLimit`). Default: none. */
  readonly rateLimit?: HttpOptions['rateLimit'];
  /** Fair scheduling between users on the direct path (`HttpOptions.fairness`). Default: none. */
  readonly fairness?: HttpOptions['fairness'];
  /** Default 0: a free port chosen by the system. */
  readonly port?: number;
  /** Default `127.0.0.1` (only this machine). Use `0.0.0.0` or `::` to listen on every interface. */
  readonly host?: string;
  readonly logger?: ServerLogger;
}

export interface NodeServer {
  readonly server: Server;
  /** The port actually bound (useful with port 0). */
  readonly port: number;
  readonly host: string;
  /** `http://host:port` (a loopback address when listening on every interface). */
  readonly url: string;
  /** Stops accepting connections, lets requests in flight finish (up to `graceMs`), then closes. */
  close(graceMs?: number): Promise<void>;
}

/** Starts a Node HTTP server for a Fetch handler. Rejects if the port cannot be bound. */
export async function serveNode(options: ServeNodeOptions): Promise<NodeServer> {
  const host = options.host ?? '127.0.0.1';
  const logger = options.logger ?? consoleLogger;
  if (options.handler === undefined && options.realm === undefined)
    throw new TypeError('serveNode needs a handler or a realm');
  let listener: NodeListener;
  let route: Route;
  if (options.handler !== undefined) {
    listener = createNodeHandler(options.handler, { logger });
    route = routeWithFetch(options.handler);
  } else {
    const realmOptions: HttpOptions = {
      realm: options.realm!,
      logger,
      ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
      ...(options.basePath === undefined ? {} : { basePath: options.basePath }),
      // One limiter for both cores below.
      ...(options.rateLimit === undefined || options.rateLimit === false
        ? {}
        : {
            rateLimit:
              options.rateLimit instanceof RateLimiter
                ? options.rateLimit
                : new RateLimiter(options.rateLimit),
          }),
      ...(options.fairness === undefined || options.fairness === false
        ? {}
        : {
            fairness:
              options.fairness instanceof FairScheduler
                ? options.fairness
                : new FairScheduler(options.fairness),
          }),
    };
    listener = createNodeRealmHandler(realmOptions);
    route = routeWithCore(createHttpCore(realmOptions));
  }
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => {
    void listener(req, res);
  });
  server.on('clientError', answerClientError(route, logger));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    server,
    port,
    host,
    url: `http://${urlHost(host)}:${port}`,
    close(graceMs = 5000) {
      closing ??= new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        timer.unref();
        server.close((error) => {
          clearTimeout(timer);
          if (error) reject(error);
          else resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}

/** The host to put in a URL for a listening address. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
