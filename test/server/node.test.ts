import { connect } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFetchHandler } from '../../src/server/fetch';
import { serveNode, type NodeServer } from '../../src/server/node';
import { pureRealm } from '../../src/server/pure';
import type { ApiRequest, RequestHandler, ServerLogger } from '../../src/server/types';
import { basicAuthHeader } from '../../src/wire/auth';
import { cast, devRealm, testCtx } from '../support/realm';

/**
 * The Node server answers everything in JSON (Zulip's error shape), including what Node's HTTP
 * parser refuses before any listener runs, on both the direct path (`realm`) and a Fetch handler.
 */

const hamlet = () => devRealm().users.get(cast.hamlet)!;
const auth = () => basicAuthHeader(hamlet().delivery_email, hamlet().api_key);

interface Raw {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Sends raw bytes and reads the first response (the server closes the connection after it). */
function raw(server: NodeServer, bytes: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      data += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', ...rest] = data.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of lines) {
        const i = l.indexOf(':');
        headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
    socket.end(bytes);
  });
}

function jsonError(r: Raw): Record<string, unknown> {
  expect(r.headers['content-type']).toBe('application/json');
  const body = JSON.parse(r.body) as Record<string, unknown>;
  expect(body['result']).toBe('error');
  expect(typeof body['msg']).toBe('string');
  return body;
}

function countingRealm(): RequestHandler & { calls: ApiRequest[] } {
  const inner = pureRealm(devRealm(), () => testCtx());
  const calls: ApiRequest[] = [];
  return {
    calls,
    request(request) {
      calls.push(request);
      return inner.request(request);
    },
  };
}

function quietLogger() {
  return {
    error: vi.fn<(message: string, error: unknown) => void>(),
    debug: vi.fn<(message: string) => void>(),
  };
}

const servers: NodeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close(100)));
});

const paths = {
  direct: (realm: RequestHandler, logger: ServerLogger) => serveNode({ realm, port: 0, logger }),
  fetch: (realm: RequestHandler, logger: ServerLogger) =>
    serveNode({ handler: createFetchHandler({ realm, logger }), port: 0, logger }),
};

describe.each(Object.entries(paths))('serveNode (%s path)', (_name, start) => {
  async function server(realm: RequestHandler = countingRealm(), logger = quietLogger()) {
    const s = await start(realm, logger);
    servers.push(s);
    return s;
  }

  it('serves an authenticated GET as before', async () => {
    const s = await server();
    const r = await fetch(`${s.url}/api/v1/users/me`, { headers: { authorization: auth() } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(((await r.json()) as { user_id: number }).user_id).toBe(cast.hamlet);
    const head = await fetch(`${s.url}/api/v1/users/me`, {
      method: 'HEAD',
      headers: { authorization: auth() },
    });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('answers a method the parser does not know (FOO) with a JSON 405 and Allow, unauthenticated', async () => {
    const s = await server();
    const r = await raw(s, 'FOO /api/v1/users/me HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(r.status).toBe(405);
    expect(r.headers['allow']).toBe('GET');
    expect(jsonError(r)['msg']).toBe('Method Not Allowed');
  });

  it('answers a lower-case method with JSON, never an empty body', async () => {
    const s = await server();
    const r = await raw(s, `get /api/v1/users/me HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(r.status).toBeGreaterThanOrEqual(400);
    jsonError(r);
    const unknown = await raw(s, 'FOO /nowhere HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(unknown.status).toBe(404);
    jsonError(unknown);
  });

  it('answers malformed HTTP with a JSON 400', async () => {
    const s = await server();
    const r = await raw(s, 'this is not http\r\n\r\n');
    expect(r.status).toBe(400);
    jsonError(r);
    const badHeader = await raw(s, 'GET /api/v1/users/me HTTP/1.1\r\nHo st: x\r\n\r\n');
    expect(badHeader.status).toBe(400);
    jsonError(badHeader);
  });

  it('answers headers and URLs over the limit with a JSON 431', async () => {
    const s = await server();
    const big = await raw(
      s,
      `GET /api/v1/users/me HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(big.status).toBe(431);
    jsonError(big);
    const longUrl = await raw(s, `GET /api/v1/users/me?x=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(longUrl.status).toBe(431);
    jsonError(longUrl);
    // RFC 9110: no body in an answer to HEAD, whatever its status.
    const head = await raw(s, `HEAD /api/v1/users/me?x=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(head.status).toBe(431);
    expect(head.headers['content-type']).toBe('application/json');
    expect(head.body).toBe('');
  });

  it('logs a client that disconnects mid-body at debug level only, without authenticating it', async () => {
    const realm = countingRealm();
    const logger = quietLogger();
    const s = await server(realm, logger);
    await new Promise<void>((resolve) => {
      const socket = connect(s.port, '127.0.0.1', () => {
        socket.write(
          `POST /api/v1/saved_snippets HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth()}\r\n` +
            'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\ntitle=abc',
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 50);
      });
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(logger.error).not.toHaveBeenCalled();
    expect(realm.calls).toHaveLength(0);
  });
});

describe('the direct path answers exactly as the Fetch handler', () => {
  it('gives the same status, headers and body for the same requests', async () => {
    const logger = quietLogger();
    const direct = await serveNode({
      realm: pureRealm(devRealm(), () => testCtx()),
      port: 0,
      logger,
      maxBodyBytes: 2048,
      basePath: '/chat',
    });
    const viaFetch = await serveNode({
      handler: createFetchHandler({
        realm: pureRealm(devRealm(), () => testCtx()),
        logger,
        maxBodyBytes: 2048,
        basePath: '/chat',
      }),
      port: 0,
      logger,
    });
    servers.push(direct, viaFetch);
    const form = { authorization: auth(), 'content-type': 'application/x-www-form-urlencoded' };
    const multipart = new FormData();
    multipart.append('title', 'über');
    multipart.append('content', 'x');
    const requests: Array<[string, RequestInit]> = [
      ['/chat/api/v1/users/me', { headers: { authorization: auth() } }],
      ['/chat/api/v1/users/me', { method: 'HEAD', headers: { authorization: auth() } }],
      ['/chat/api/v1/users/me', {}],
      ['/chat/api/v1/users?user_ids=%5B4%5D&x=%C3%BC', { headers: { authorization: auth() } }],
      ['/chat/api/v1/../v1/users/me', { headers: { authorization: auth() } }],
      ['/chat/api/v1/users/me/', { headers: { authorization: auth() } }],
      ['/chat/api/v1/us%65rs/me', { headers: { authorization: auth() } }],
      ['/chat/api/v1/users/me?', { headers: { authorization: auth() } }],
      ['/elsewhere/api/v1/users/me', { headers: { authorization: auth() } }],
      ['/chat/api/v1/users/me', { method: 'PUT', headers: { authorization: auth() } }],
      ['/chat/api/v1/settings', { method: 'PATCH', headers: form, body: 'enter_sends=true' }],
      ['/chat/api/v1/settings', { method: 'PATCH', headers: form, body: 'enter_sends=true&bogus=1' }],
      [
        '/chat/api/v1/saved_snippets',
        { method: 'POST', headers: { authorization: auth() }, body: multipart },
      ],
      [
        '/chat/api/v1/saved_snippets',
        { method: 'POST', headers: form, body: `title=t&content=${'x'.repeat(5000)}` },
      ],
      [
        '/chat/api/v1/saved_snippets',
        {
          method: 'POST',
          headers: { authorization: auth(), 'content-type': 'multipart/form-data; boundary=zz' },
          body: '--zz\r\nbroken',
        },
      ],
    ];
    for (const [path, init] of requests) {
      const a = await fetch(`${direct.url}${path}`, init);
      const b = await fetch(`${viaFetch.url}${path}`, init);
      const label = `${init.method ?? 'GET'} ${path}`;
      expect(a.status, label).toBe(b.status);
      for (const h of ['content-type', 'allow', 'www-authenticate'])
        expect(a.headers.get(h), `${label} ${h}`).toBe(b.headers.get(h));
      expect(await a.text(), label).toBe(await b.text());
    }
    expect(logger.error).not.toHaveBeenCalled();
  });
});
