import { describe, expect, it } from 'vitest';
import { handleApiRequest } from '../../src/wire/handle';
import { basicAuthHeader } from '../../src/wire/auth';
import { matchRoute } from '../../src/wire/routes';
import { devRealm, wire } from '../support/realm';

const state = devRealm();
const hamlet = state.users.get(4)!;

describe('handleApiRequest', () => {
  it('answers an unknown route with a JSON 404', () => {
    const r = handleApiRequest(state, { method: 'GET', url: '/api/v1/no/such/thing' });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' });
    expect(r.state).toBe(state);
  });

  it('answers a wrong method with 405 and the allowed methods, without code', () => {
    const r = handleApiRequest(state, { method: 'PUT', url: '/api/v1/settings' });
    expect(r.status).toBe(405);
    expect(r.body).toEqual({ result: 'error', msg: 'Method Not Allowed', allowed_methods: ['PATCH'] });
  });

  it('refuses a request without credentials', () => {
    const r = handleApiRequest(state, { method: 'PATCH', url: '/api/v1/settings' });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({
      result: 'error',
      msg: 'Not logged in: API authentication or user session required',
      code: 'UNAUTHORIZED',
    });
  });

  it('refuses a non-Basic scheme with 400', () => {
    const r = handleApiRequest(state, {
      method: 'GET',
      url: '/api/v1/users/me',
      headers: { Authorization: 'Bearer x' },
    });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      result: 'error',
      msg: 'This endpoint requires HTTP basic authentication.',
      code: 'BAD_REQUEST',
    });
  });

  it.each([
    ['Basic !!!', 'Invalid authorization header for basic auth'],
    ['Basic a b', 'Invalid authorization header for basic auth'],
    [basicAuthHeader('hamlet@zulip.com', 'short'), 'Malformed API key'],
    [basicAuthHeader('hamlet@zulip.com', 'x'.repeat(32)), 'Invalid API key'],
    [basicAuthHeader('iago@zulip.com', hamlet.api_key), 'Invalid API key'],
  ])('refuses %s with 401', (authorization, msg) => {
    const r = handleApiRequest(state, { method: 'GET', url: '/api/v1/users/me', headers: { authorization } });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ result: 'error', msg, code: 'UNAUTHORIZED' });
  });

  it('refuses a deactivated user with 401', () => {
    const ex = state.users.get(14)!;
    const r = handleApiRequest(state, {
      method: 'GET',
      url: '/api/v1/users/me',
      headers: { authorization: basicAuthHeader(ex.delivery_email, ex.api_key) },
    });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ result: 'error', msg: 'Account is deactivated', code: 'UNAUTHORIZED' });
  });

  it('matches the email case-insensitively', () => {
    const r = handleApiRequest(state, {
      method: 'GET',
      url: '/api/v1/users/me',
      headers: { authorization: basicAuthHeader('HAMLET@zulip.com', hamlet.api_key) },
    });
    expect(r.status).not.toBe(401);
  });

  it('treats non-digit path ids as unknown routes', () => {
    expect(wire(state, 'iago', 'PATCH', '/streams/abc').status).toBe(404);
  });
});

describe('matchRoute (remembered matches)', () => {
  it('gives the same answer again, frozen, for short and long paths', () => {
    for (const [method, path] of [
      ['GET', '/users/me'],
      ['POST', '/messages'],
      ['PATCH', '/messages/17'],
      ['DELETE', '/users/me'],
      ['GET', '/nothing/here'],
      ['GET', `/users/${'x'.repeat(300)}@example.com`],
    ] as const) {
      const first = matchRoute(method, path);
      const again = matchRoute(method, path);
      expect(again).toEqual(first);
      expect(Object.isFrozen(again)).toBe(true);
      if (again.kind === 'found') expect(Object.isFrozen(again.pathParams)).toBe(true);
      if (again.kind === 'wrong_method') expect(Object.isFrozen(again.allowed)).toBe(true);
    }
    expect(matchRoute('PATCH', '/messages/17')).toMatchObject({
      kind: 'found',
      pathParams: { message_id: '17' },
    });
  });
});
