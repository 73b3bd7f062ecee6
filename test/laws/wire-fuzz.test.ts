import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { handleApiRequest } from '../../src/wire/handle';
import { basicAuthHeader } from '../../src/wire/auth';
import { OPERATIONS } from '../../src/ops/index';
import { devRealm, testCtx } from '../support/realm';
import { fcParams } from './runs';
import { arbShapedWireParams } from './shapes';
import { loose } from '../support/loose';

/**
 * Wire fuzzing: random methods, paths, headers, credentials and bodies (malformed urlencoding,
 * invalid JSON in JSON fields, oversized values, repeated keys). Always a Zulip-shaped JSON answer,
 * never an exception, never a 5xx, and the state unchanged unless the request succeeded.
 */
const state = devRealm();
const users = [...state.users.values()];

const path = fc.oneof(
  fc
    .tuple(fc.constantFrom(...OPERATIONS.map((op) => op.def.path)), fc.integer({ min: 0, max: 20 }))
    .map(([template, id]) => template.replace(/\{\w+\}/g, String(id))),
  fc.string({ maxLength: 20 }).map((s) => `/${s}`),
  fc.constantFrom('/streams/abc', '/users/me/', '//users', '/users/me/subscriptions/properties/x', '/%zz'),
);
const auth = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom(...users).map((u) => basicAuthHeader(u.delivery_email, u.api_key)),
  fc.constantFrom(...users).map((u) => basicAuthHeader(u.email.toUpperCase(), u.api_key)),
  fc.string({ maxLength: 40 }),
  fc.string({ maxLength: 40 }).map((s) => `Basic ${s}`),
  fc.tuple(fc.string(), fc.string()).map(([a, b]) => basicAuthHeader(a, b)),
);
const bodyText = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.constantFrom(
    '%',
    '%zz=1',
    'a=%E0%A4%A',
    'narrow=[',
    'data=[{"id":1}',
    'order=[1,1]',
    'a=1&a=2',
    'x='.padEnd(5000, 'y'),
  ),
  fc
    .dictionary(fc.string({ maxLength: 12 }), fc.string({ maxLength: 30 }))
    .map((d) => new URLSearchParams(d).toString()),
);

describe('handleApiRequest under fuzzing', () => {
  it('always answers Zulip-shaped JSON without throwing or a 5xx', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'HEAD', 'get', 'BREW'),
        path,
        fc.string({ maxLength: 30 }),
        auth,
        bodyText,
        (method, p, query, authorization, body) => {
          const r = handleApiRequest(
            state,
            {
              method,
              url: `/api/v1${p}?${query}`,
              headers: authorization === undefined ? {} : { authorization },
              body,
            },
            testCtx(),
          );
          expect(r.status).toBeLessThan(500);
          expect(['success', 'error']).toContain(r.body.result);
          expect(typeof r.body.msg).toBe('string');
          if (r.body.result === 'error') {
            expect(r.state).toBe(state);
            expect(r.events).toEqual([]);
          }
        },
      ),
      fcParams(500),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Deeper wire fuzzing: real routes with shaped parameters, repeated keys, parameters in both the
// query string and the body, pre-parsed bodies, odd header spellings, oversized values.

const routed = fc.constantFrom(...OPERATIONS).chain((op) =>
  fc.record({
    op: fc.constant(op),
    params: arbShapedWireParams(op),
    pathIds: fc.array(
      fc.oneof(
        fc.integer({ min: 0, max: 20 }),
        fc.constantFrom('-1', 'abc', '1e3', '%20', '99999999999999999999'),
      ),
      { minLength: 1, maxLength: 2 },
    ),
    who: fc.option(fc.constantFrom(...users), { nil: undefined }),
    headerName: fc.constantFrom('authorization', 'Authorization', 'AUTHORIZATION'),
    where: fc.constantFrom('body', 'query', 'both', 'record'),
    repeat: fc.option(fc.constantFrom(...op.def.params.map((p) => p.name), 'extra'), { nil: undefined }),
    huge: fc.option(fc.constantFrom(...op.def.params.map((p) => p.name), 'extra'), { nil: undefined }),
  }),
);

describe('handleApiRequest on real routes with shaped parameters', () => {
  it('answers Zulip-shaped JSON; errors change nothing', () => {
    fc.assert(
      fc.property(routed, ({ op, params, pathIds, who, headerName, where, repeat, huge }) => {
        let i = 0;
        const p = op.def.path.replace(/\{\w+\}/g, () =>
          encodeURIComponent(String(pathIds[i++ % pathIds.length])),
        );
        const fields: Record<string, string> = { ...params };
        if (huge !== undefined) fields[huge] = 'x'.repeat(200_000);
        let qs = new URLSearchParams(fields).toString();
        if (repeat !== undefined)
          qs += `&${encodeURIComponent(repeat)}=1&${encodeURIComponent(repeat)}=%5B%5D`;
        const headers =
          who === undefined ? {} : { [headerName]: basicAuthHeader(who.delivery_email, who.api_key) };
        const query = where === 'query' || where === 'both' ? `?${qs}` : '';
        const body = where === 'record' ? fields : where === 'body' || where === 'both' ? qs : undefined;
        const r = handleApiRequest(
          state,
          {
            method: op.def.method,
            url: `/api/v1${p}${query}`,
            headers,
            ...(body === undefined ? {} : { body }),
          },
          testCtx(),
        );
        expect(r.status === 200 || (r.status >= 400 && r.status < 500)).toBe(true);
        expect(['success', 'error']).toContain(r.body.result);
        expect(typeof r.body.msg).toBe('string');
        expect(JSON.parse(JSON.stringify(r.body))).toEqual(r.body);
        if (r.body.result === 'error') {
          expect(r.state).toBe(state);
          expect(r.events).toEqual([]);
          expect(r.effects).toEqual([]);
          if ('code' in r.body) expect(typeof r.body.code).toBe('string');
        }
        // Routing (404) comes before authentication, as in Zulip's rest_dispatch.
        if (who === undefined && !op.def.allowAnonymous && r.status !== 404) expect(r.status).toBe(401);
      }),
      fcParams(250),
    );
  });

  it('the wire and the library agree on the same request', () => {
    // The wire layer only decodes: a request whose JSON parameters are valid JSON gives the same
    // status, body and events as the library call with the decoded values.
    // GET /users/{email}: a digits-only segment is routed to GET /users/{user_id} (as Zulip's URL
    // patterns do), so the path of a fuzzed email is not this operation's; its own tests cover it.
    // DELETE /realm/emoji/{emoji_name} takes a name, not an id: its own tests cover it too.
    const routable = OPERATIONS.filter(
      (o) => !(o.def.pathParams ?? []).some((p) => p === 'email' || p === 'emoji_name'),
    );
    const arbCall = fc.constantFrom(...routable.map((o) => o.def.name)).chain((name) => {
      const op = OPERATIONS.find((o) => o.def.name === name)!;
      const ids = users.filter((u) => u.is_active).map((u) => u.user_id);
      return fc.tuple(fc.constant(name), arbShapedWireParams(op), fc.constantFrom(...ids));
    });
    fc.assert(
      fc.property(arbCall, ([name, wireParams, whoId]) => {
        const op = OPERATIONS.find((o) => o.def.name === name)!;
        const who = state.users.get(whoId)!;
        const json = new Set(op.def.params.filter((x) => x.json).map((x) => x.name));
        const pathNames = op.def.pathParams ?? [];
        const decoded: Record<string, unknown> = {};
        let path = op.def.path;
        const fields: Record<string, string> = {};
        for (const [k, text] of Object.entries(wireParams)) {
          if (k === '__proto__') return;
          // A form body cannot carry a lone surrogate (it is sent as U+FFFD): not the same request.
          try {
            encodeURIComponent(text);
          } catch {
            return;
          }
          if (json.has(k) || pathNames.includes(k)) {
            try {
              decoded[k] = JSON.parse(text);
            } catch {
              return; // Not JSON: the wire answers "is not valid JSON", which the library never sees.
            }
          } else decoded[k] = text;
          if (pathNames.includes(k)) {
            if (!/^\d{1,9}$/.test(text)) return; // The router only matches plain ids.
            path = path.replace(`{${k}}`, text);
          } else fields[k] = text;
        }
        for (const name of pathNames) {
          if (path.includes(`{${name}}`)) {
            path = path.replace(`{${name}}`, '1');
            decoded[name] = 1;
          }
        }
        const qs = new URLSearchParams(fields).toString();
        const isGet = op.def.method === 'GET';
        const headers = { authorization: basicAuthHeader(who.delivery_email, who.api_key) };
        const viaWire = handleApiRequest(
          state,
          {
            method: op.def.method,
            url: `/api/v1${path}${isGet && qs ? `?${qs}` : ''}`,
            headers,
            ...(isGet ? {} : { body: qs }),
          },
          testCtx(),
        );
        const viaLibrary = loose(op)(state, { userId: who.user_id }, decoded, testCtx());
        expect({ status: viaWire.status, body: viaWire.body }).toEqual({
          status: viaLibrary.status,
          body: viaLibrary.body,
        });
        expect(viaWire.events).toEqual(viaLibrary.events);
      }),
      fcParams(300),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// The Fetch handler (src/server/fetch.ts): bytes on the wire, content types, sizes.

const contentType = fc.constantFrom(
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=utf-8',
  'multipart/form-data; boundary=XyZ',
  'multipart/form-data',
  'application/json',
  'text/plain',
  '',
  'garbage/;;;',
);
const rawBody = fc.oneof(
  bodyText,
  fc.constantFrom(
    '--XyZ\r\nContent-Disposition: form-data; name="is_pinned"\r\n\r\ntrue\r\n--XyZ\r\nContent-Disposition: form-data; name="fragment"\r\n\r\nrecent\r\n--XyZ--\r\n',
    '--XyZ\r\nContent-Disposition: form-data; name="x"\r\n\r\n',
    '{"narrow": []}',
  ),
  fc.uint8Array({ maxLength: 64 }),
);

describe('the Fetch handler under fuzzing', () => {
  it('always answers JSON, never a 5xx, never throws', async () => {
    const { createFetchHandler } = await import('../../src/server/fetch');
    const { pureRealm } = await import('../../src/server/pure');
    const errorsLogged: unknown[] = [];
    const handler = createFetchHandler({
      realm: pureRealm(state, () => testCtx()),
      maxBodyBytes: 4096,
      logger: { error: (_m, e) => errorsLogged.push(e) },
    });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'HEAD', 'OPTIONS', 'get'),
        path,
        fc.string({ maxLength: 30 }),
        auth,
        contentType,
        fc.option(rawBody, { nil: undefined }),
        async (method, p, query, authorization, type, body) => {
          const headers: Record<string, string> = {};
          if (authorization !== undefined) headers['authorization'] = authorization;
          if (type !== '') headers['content-type'] = type;
          const canHaveBody = method.toUpperCase() !== 'GET' && method.toUpperCase() !== 'HEAD';
          let request: Request;
          try {
            request = new Request(`http://localhost/api/v1${p}?${encodeURI(query)}`, {
              method,
              headers,
              ...(canHaveBody && body !== undefined ? { body } : {}),
            });
          } catch {
            return; // Not a request a client could send (e.g. a header value with a newline).
          }
          const response = await handler(request);
          expect(response.status).toBeLessThan(500);
          if (method.toUpperCase() === 'HEAD') return;
          expect(response.headers.get('content-type')).toBe('application/json');
          const json = (await response.json()) as { result?: unknown; msg?: unknown };
          expect(['success', 'error']).toContain(json.result);
          expect(typeof json.msg).toBe('string');
        },
      ),
      fcParams(200),
    );
    expect(errorsLogged).toEqual([]);
  });
});
