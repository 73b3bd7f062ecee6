import { describe, expect, it, vi } from 'vitest';
import { createFetchHandler } from '../../src/server/fetch';
import { serveNode } from '../../src/server/node';
import { pureRealm } from '../../src/server/pure';
import type { RequestHandler, ServerLogger } from '../../src/server/types';
import { openRealm } from '../../src/host/realm-handle';
import { memoryStore } from '../../src/stores/memory/index';
import { basicAuthHeader } from '../../src/wire/auth';
import { expectValidResponse } from '../support/openapi';
import { cast, devRealm, devSnapshot, testCtx } from '../support/realm';

const BASE = 'http://realm.test';
const hamlet = () => devRealm().users.get(cast.hamlet)!;
const auth = () => basicAuthHeader(hamlet().delivery_email, hamlet().api_key);

function setup(options: { maxBodyBytes?: number; basePath?: string; logger?: ServerLogger } = {}) {
  const realm = pureRealm(devRealm(), () => testCtx());
  const handler = createFetchHandler({ realm, ...options });
  return { realm, handler };
}

async function bodyOf(response: Response): Promise<Record<string, unknown>> {
  expect(response.headers.get('content-type')).toBe('application/json');
  const text = await response.text();
  expect(text).not.toMatch(/\bat .*\.ts:\d+/);
  return JSON.parse(text) as Record<string, unknown>;
}

describe('createFetchHandler', () => {
  it('answers an unknown path with a JSON 404', async () => {
    const { handler } = setup();
    for (const path of ['/api/v1/nope', '/', '/favicon.ico', '/api/v1/streams/abc']) {
      const response = await handler(new Request(`${BASE}${path}`, { headers: { authorization: auth() } }));
      expect(response.status).toBe(404);
      const body = await bodyOf(response);
      expect(body).toEqual({ result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' });
      expectValidResponse('rest-error-handling', 404, body);
    }
  });

  it('answers a known path with the wrong method with a JSON 405 and an Allow header', async () => {
    const { handler } = setup();
    const response = await handler(new Request(`${BASE}/api/v1/users/me`, { method: 'PUT' }));
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
    expect(await bodyOf(response)).toEqual({
      result: 'error',
      msg: 'Method Not Allowed',
      allowed_methods: ['GET'],
    });
  });

  it('answers 401 with WWW-Authenticate when credentials are missing or wrong', async () => {
    const { handler } = setup();
    const missing = await handler(new Request(`${BASE}/api/v1/users/me`));
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Basic realm="zulip"');
    const body = await bodyOf(missing);
    expect(body).toEqual({
      result: 'error',
      msg: 'Not logged in: API authentication or user session required',
      code: 'UNAUTHORIZED',
    });
    expectValidResponse('get-own-user', 401, body);

    const wrong = await handler(
      new Request(`${BASE}/api/v1/users/me`, {
        headers: { authorization: basicAuthHeader(hamlet().delivery_email, 'x'.repeat(32)) },
      }),
    );
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Basic realm="zulip"');
    expect(await bodyOf(wrong)).toEqual({ result: 'error', msg: 'Invalid API key', code: 'UNAUTHORIZED' });
  });

  it('reads GET parameters from the query string', async () => {
    const { handler } = setup();
    const response = await handler(
      new Request(`${BASE}/api/v1/users?user_ids=${encodeURIComponent('[4]')}`, {
        headers: { authorization: auth() },
      }),
    );
    expect(response.status).toBe(200);
    const body = await bodyOf(response);
    expectValidResponse('get-users', 200, body);
    expect((body['members'] as Array<{ user_id: number }>).map((u) => u.user_id)).toEqual([cast.hamlet]);
  });

  it('reads urlencoded bodies', async () => {
    const { handler, realm } = setup();
    const response = await handler(
      new Request(`${BASE}/api/v1/saved_snippets`, {
        method: 'POST',
        headers: { authorization: auth(), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ title: 'From a form', content: 'ça va?' }).toString(),
      }),
    );
    const body = await bodyOf(response);
    expect(response.status).toBe(200);
    expectValidResponse('create-saved-snippet', 200, body);
    const id = body['saved_snippet_id'] as number;
    expect(realm.state.savedSnippets.get(id)).toMatchObject({ title: 'From a form', content: 'ça va?' });
  });

  it('reads multipart/form-data bodies (what zulip-js posts), last value wins, files are not parameters', async () => {
    const { handler, realm } = setup();
    const form = new FormData();
    form.append('title', 'first');
    form.append('title', 'Multipart ✓');
    form.append('content', 'line 1\r\nline 2');
    form.append('upload', new Blob(['not a parameter']), 'a.txt');
    const response = await handler(
      new Request(`${BASE}/api/v1/saved_snippets`, {
        method: 'POST',
        headers: { authorization: auth() },
        body: form,
      }),
    );
    const body = await bodyOf(response);
    expect(response.status).toBe(200);
    expectValidResponse('create-saved-snippet', 200, body);
    expect(body['ignored_parameters_unsupported']).toBeUndefined();
    const id = body['saved_snippet_id'] as number;
    expect(realm.state.savedSnippets.get(id)).toMatchObject({
      title: 'Multipart ✓',
      content: 'line 1\r\nline 2',
    });
  });

  it('reads the body of PATCH and DELETE requests too', async () => {
    const { handler, realm } = setup();
    const response = await handler(
      new Request(`${BASE}/api/v1/settings`, {
        method: 'PATCH',
        headers: { authorization: auth(), 'content-type': 'application/x-www-form-urlencoded' },
        body: 'twenty_four_hour_time=true',
      }),
    );
    const body = await bodyOf(response);
    expect(response.status).toBe(200);
    expectValidResponse('update-settings', 200, body);
    expect(realm.state.users.get(cast.hamlet)?.settings.twenty_four_hour_time).toBe(true);
  });

  it('does not read bodies of other types as parameters (as Django)', async () => {
    const { handler } = setup();
    const response = await handler(
      new Request(`${BASE}/api/v1/saved_snippets`, {
        method: 'POST',
        headers: { authorization: auth(), 'content-type': 'application/json' },
        body: JSON.stringify({ title: 't', content: 'c' }),
      }),
    );
    expect(response.status).toBe(400);
    const body = await bodyOf(response);
    expect(body).toEqual({
      result: 'error',
      msg: "Missing 'content' argument",
      code: 'REQUEST_VARIABLE_MISSING',
      var_name: 'content',
    });
    expectValidResponse('create-saved-snippet', 400, body);
  });

  it('answers a multipart body it cannot parse with a JSON 400', async () => {
    const { handler } = setup();
    for (const contentType of ['multipart/form-data', 'multipart/form-data; boundary=xyz']) {
      const response = await handler(
        new Request(`${BASE}/api/v1/saved_snippets`, {
          method: 'POST',
          headers: { authorization: auth(), 'content-type': contentType },
          body: 'this is not multipart at all',
        }),
      );
      expect(response.status).toBe(400);
      const body = await bodyOf(response);
      expect(body).toEqual({
        result: 'error',
        msg: 'Malformed request body: the multipart/form-data body could not be parsed',
        code: 'BAD_REQUEST',
      });
      expectValidResponse('create-saved-snippet', 400, body);
    }
  });

  it('answers a body over the limit with a JSON 413, by Content-Length or while reading', async () => {
    const { handler, realm } = setup({ maxBodyBytes: 64 });
    const declared = await handler(
      new Request(`${BASE}/api/v1/saved_snippets`, {
        method: 'POST',
        headers: { authorization: auth(), 'content-type': 'application/x-www-form-urlencoded' },
        body: `title=t&content=${'x'.repeat(100)}`,
      }),
    );
    expect(declared.status).toBe(413);
    const body = await bodyOf(declared);
    expect(body).toEqual({
      result: 'error',
      msg: 'Request body too large (the limit is 64 bytes)',
      code: 'BAD_REQUEST',
    });
    expectValidResponse('create-saved-snippet', 413, body);

    // A streamed body has no Content-Length: the limit applies while reading.
    const chunks = ['title=t&', `content=${'y'.repeat(40)}`, 'z'.repeat(40)];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    const streamed = await handler(
      new Request(`${BASE}/api/v1/saved_snippets`, {
        method: 'POST',
        headers: { authorization: auth(), 'content-type': 'application/x-www-form-urlencoded' },
        body: stream,
        duplex: 'half',
      } as RequestInit),
    );
    expect(streamed.status).toBe(413);
    expect(realm.state).toBe(devRealm());
  });

  it('answers an unexpected exception with a JSON 500 without details, and logs it', async () => {
    const logger = { error: vi.fn() };
    const failing: RequestHandler = {
      request() {
        throw new Error('disk on fire at /secret/path.ts:12');
      },
    };
    const handler = createFetchHandler({ realm: failing, logger });
    const response = await handler(
      new Request(`${BASE}/api/v1/users/me`, { headers: { authorization: auth() } }),
    );
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).not.toContain('disk on fire');
    expect(JSON.parse(text)).toEqual({
      result: 'error',
      msg: 'Internal server error',
      code: 'INTERNAL_SERVER_ERROR',
    });
    expectValidResponse('get-own-user', 500, JSON.parse(text));
    expect(logger.error).toHaveBeenCalledTimes(1);
    expect(logger.error.mock.calls[0]?.[0]).toBe('GET /api/v1/users/me failed');
    expect((logger.error.mock.calls[0]?.[1] as Error).message).toContain('disk on fire');

    const rejecting = createFetchHandler({
      realm: { request: () => Promise.reject(new Error('nope')) },
      logger,
    });
    expect((await rejecting(new Request(`${BASE}/api/v1/users/me`))).status).toBe(500);
  });

  it('answers 500 when the store cannot persist a change, and the change is not applied', async () => {
    const store = memoryStore();
    const realm = await openRealm({ store, snapshot: devSnapshot() });
    store.appendBatch = () => Promise.reject(new Error('disk full'));
    const logger = { error: vi.fn() };
    const handler = createFetchHandler({ realm, logger });
    const response = await handler(
      new Request(`${BASE}/api/v1/settings?twenty_four_hour_time=true`, {
        method: 'PATCH',
        headers: { authorization: auth() },
      }),
    );
    expect(response.status).toBe(500);
    expect(await bodyOf(response)).toEqual({
      result: 'error',
      msg: 'Internal server error',
      code: 'INTERNAL_SERVER_ERROR',
    });
    expect(logger.error).toHaveBeenCalledTimes(1);
    expect(realm.version).toBe(0);
    expect(realm.state.users.get(cast.hamlet)?.settings.twenty_four_hour_time).toBe(false);
    await realm.close();
  });

  it('answers HEAD as GET without a body', async () => {
    const { handler } = setup();
    const response = await handler(
      new Request(`${BASE}/api/v1/users/me`, { method: 'HEAD', headers: { authorization: auth() } }),
    );
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
  });

  it('serves under a base path and answers 404 outside it', async () => {
    const { handler } = setup({ basePath: '/zulip/' });
    const inside = await handler(
      new Request(`${BASE}/zulip/api/v1/users/me`, { headers: { authorization: auth() } }),
    );
    expect(inside.status).toBe(200);
    const outside = await handler(
      new Request(`${BASE}/api/v1/users/me`, { headers: { authorization: auth() } }),
    );
    expect(outside.status).toBe(404);
    expect(await bodyOf(outside)).toEqual({ result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' });
    expect((await handler(new Request(`${BASE}/zulipx/api/v1/users/me`))).status).toBe(404);
  });

  it('persists through a realm handle and publishes the change’s events', async () => {
    const store = memoryStore();
    const realm = await openRealm({ store, snapshot: devSnapshot(), ctx: { now: 1795219200 } });
    const notices: number[] = [];
    realm.subscribe((n) => notices.push(n.version, n.events.length));
    const handler = createFetchHandler({ realm });
    const response = await handler(
      new Request(`${BASE}/api/v1/settings?twenty_four_hour_time=true`, {
        method: 'PATCH',
        headers: { authorization: auth() },
      }),
    );
    expect(response.status).toBe(200);
    expect(store.records.changes).toHaveLength(1);
    expect(notices[0]).toBe(1);
    expect(notices[1]).toBeGreaterThan(0);
    await realm.close();
  });
});

describe('serveNode', () => {
  it('serves the Fetch handler over HTTP, including 413 on a large upload, and closes', async () => {
    const { handler } = setup({ maxBodyBytes: 1024 });
    const server = await serveNode({ handler, port: 0 });
    try {
      const ok = await fetch(`${server.url}/api/v1/users/me`, { headers: { authorization: auth() } });
      expect(ok.status).toBe(200);
      expect(((await ok.json()) as { user_id: number }).user_id).toBe(cast.hamlet);

      const form = new FormData();
      form.append('title', 'over http');
      form.append('content', 'multipart');
      const posted = await fetch(`${server.url}/api/v1/saved_snippets`, {
        method: 'POST',
        headers: { authorization: auth() },
        body: form,
      });
      expect(posted.status).toBe(200);

      const big = await fetch(`${server.url}/api/v1/saved_snippets`, {
        method: 'POST',
        headers: { authorization: auth(), 'content-type': 'application/x-www-form-urlencoded' },
        body: `title=t&content=${'x'.repeat(100_000)}`,
      });
      expect(big.status).toBe(413);
      expect(((await big.json()) as { code: string }).code).toBe('BAD_REQUEST');

      const missing = await fetch(`${server.url}/nothing/here`);
      expect(missing.status).toBe(404);
      expect(missing.headers.get('content-type')).toBe('application/json');
    } finally {
      await server.close();
    }
    await expect(fetch(`${server.url}/api/v1/users/me`)).rejects.toThrow();
  });

  it('rejects when the port is taken', async () => {
    const { handler } = setup();
    const first = await serveNode({ handler, port: 0 });
    try {
      await expect(serveNode({ handler, port: first.port })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await first.close();
    }
  });
});
