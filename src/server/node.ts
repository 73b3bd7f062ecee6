/**
 * The Node `http` adapter: turns a Fetch handler into a `(req, res)` listener (for `http.createServer`,
 * Express, Connect, or anything else that hands out Node's request and response), and `serveNode`
 * starts a server for one. `node:http` is loaded only by `serveNode`, so importing chat-realm/server
 * stays possible where there is no Node (Workers, browsers) for the Fetch handler alone.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FetchHandler, ServerLogger } from './types';

export type NodeListener = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export interface NodeHandlerOptions {
  /** Receives failures the Fetch handler did not turn into a response. Default: `console.error`. */
  readonly logger?: ServerLogger;
}

const consoleLogger: ServerLogger = {
  error: (message, error) => console.error(`chat-realm: ${message}`, error),
};

const INTERNAL_ERROR = JSON.stringify({
  result: 'error',
  msg: 'Internal server error',
  code: 'INTERNAL_SERVER_ERROR',
});
const MALFORMED = JSON.stringify({ result: 'error', msg: 'Malformed request', code: 'BAD_REQUEST' });

/** A Node request listener that answers every request with the Fetch handler. */
export function createNodeHandler(handler: FetchHandler, options: NodeHandlerOptions = {}): NodeListener {
  const logger = options.logger ?? consoleLogger;
  return async (req, res) => {
    let request: Request;
    try {
      request = toFetchRequest(req);
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
export function toFetchRequest(req: IncomingMessage, body?: Uint8Array | string): Request {
  const path = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '/';
  const url = new URL(path, `http://${hostOf(req)}`);
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const method = req.method ?? 'GET';
  if (method === 'GET' || method === 'HEAD') return new Request(url, { method, headers });
  if (body !== undefined) {
    headers.delete('content-length');
    return new Request(url, {
      method,
      headers,
      body: typeof body === 'string' ? body : new Uint8Array(body),
    });
  }
  return new Request(url, { method, headers, body: bodyStream(req), duplex: 'half' } as RequestInit);
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

export interface ServeNodeOptions {
  readonly handler: FetchHandler;
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
  const listener = createNodeHandler(options.handler, options.logger ? { logger: options.logger } : {});
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => {
    void listener(req, res);
  });
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
