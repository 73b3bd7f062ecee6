import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { handleApiRequest } from '../../src/wire/handle';
import { basicAuthHeader } from '../../src/wire/auth';
import { OPERATIONS } from '../../src/ops/index';
import { devRealm, testCtx } from '../support/realm';
import { runs } from './runs';

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
  fc.constantFrom('%', '%zz=1', 'a=%E0%A4%A', 'narrow=[', 'data=[{"id":1}', 'order=[1,1]', 'a=1&a=2', 'x='.padEnd(5000, 'y')),
  fc.dictionary(fc.string({ maxLength: 12 }), fc.string({ maxLength: 30 })).map((d) => new URLSearchParams(d).toString()),
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
            { method, url: `/api/v1${p}?${query}`, headers: authorization === undefined ? {} : { authorization }, body },
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
      { numRuns: runs(500) },
    );
  });
});
