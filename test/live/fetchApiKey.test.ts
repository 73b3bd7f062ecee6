import { describe, expect, it } from 'vitest';
import { scryptPasswordHasher } from '../../src/core/passwords';
import type { RealmState } from '../../src/core/state';
import { seededRandom } from '../../src/core/context';
import { basicAuthHeader, handleApiRequest } from '../../src/index';
import { fetchApiKey, getServerSettings } from '../../src/ops/live/index';
import { expectValidResponse } from '../support/openapi';
import { cast, devSnapshot, realmFromUnknown, testCtx } from '../support/realm';

/** A cheap hasher: these tests check the rules, not scrypt's cost. */
const passwords = scryptPasswordHasher({ logN: 4 });

/** The dev realm with passwords for Hamlet, the deactivated user (14) and a bot (11). */
function realmWith(edit: (s: ReturnType<typeof devSnapshot>) => void = () => undefined): RealmState {
  const s = devSnapshot();
  for (const u of s.users) {
    if (u.user_id === cast.hamlet) u.password = 'hamlet-password';
    if (u.user_id === 14 || u.user_id === cast.defaultBot) u.password = 'their-password';
  }
  edit(s);
  return realmFromUnknown(s, { passwords, random: seededRandom(1) });
}

const realm = realmWith();
const ctx = { ...testCtx(), passwords };

function login(state: RealmState, username: string, password: string, headers: Record<string, string> = {}) {
  return handleApiRequest(
    state,
    {
      method: 'POST',
      url: '/api/v1/fetch_api_key',
      headers,
      body: new URLSearchParams({ username, password }).toString(),
    },
    ctx,
  );
}

describe('POST /fetch_api_key (Zulip api_fetch_api_key, email backend)', () => {
  it('answers the API key, delivery email and id for the right password, the email in any case', () => {
    const hamlet = realm.users.get(cast.hamlet)!;
    const r = login(realm, 'Hamlet@Zulip.com', 'hamlet-password');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      result: 'success',
      msg: '',
      api_key: hamlet.api_key,
      email: hamlet.delivery_email,
      user_id: cast.hamlet,
    });
    expectValidResponse('fetch-api-key', 200, r.body);
    expect(r.state).toBe(realm);
    expect(r.events).toEqual([]);
  });

  it('never reads the credentials sent with it (a wrong key, a malformed header)', () => {
    const wrong = login(realm, 'hamlet@zulip.com', 'hamlet-password', {
      authorization: basicAuthHeader('hamlet@zulip.com', 'x'.repeat(32)),
    });
    expect(wrong.status).toBe(200);
    expect(login(realm, 'hamlet@zulip.com', 'hamlet-password', { authorization: 'Bearer x' }).status).toBe(
      200,
    );
  });

  it.each([
    ['a wrong password', 'hamlet@zulip.com', 'nope'],
    ['an empty password', 'hamlet@zulip.com', ''],
    ['an unknown email', 'nobody@zulip.com', 'hamlet-password'],
    ['a user without a password', 'iago@zulip.com', 'anything'],
    ['a bot, even with a stored password', 'default-bot@zulip.com', 'their-password'],
  ])('refuses %s: AUTHENTICATION_FAILED, 401', (_what, username, password) => {
    const r = login(realm, username, password);
    expect(r.status).toBe(401);
    expect(r.body).toEqual({
      result: 'error',
      msg: 'Your username or password is incorrect',
      code: 'AUTHENTICATION_FAILED',
    });
    expectValidResponse('fetch-api-key', 401, r.body);
    expect(r.state).toBe(realm);
  });

  it('refuses a login name that is not an email first (400)', () => {
    const r = login(realm, 'hamlet', 'hamlet-password');
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ result: 'error', msg: 'Enter a valid email address.', code: 'BAD_REQUEST' });
  });

  it('a deactivated user is told so before the password is checked', () => {
    for (const password of ['their-password', 'wrong']) {
      const r = login(realm, 'ex-employee@zulip.com', password);
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ msg: 'Account is deactivated', code: 'USER_DEACTIVATED' });
    }
  });

  it('a deactivated realm, and a realm without password login', () => {
    const gone = realmWith((s) => Object.assign(s.realm, { deactivated: true }));
    expect(login(gone, 'hamlet@zulip.com', 'hamlet-password').body).toMatchObject({
      msg: 'This organization has been deactivated',
      code: 'REALM_DEACTIVATED',
    });
    const off = realmWith((s) => Object.assign(s.realm, { password_auth_enabled: false }));
    const r = login(off, 'hamlet@zulip.com', 'hamlet-password');
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({
      msg: 'Password authentication is disabled in this organization.',
      code: 'PASSWORD_AUTH_DISABLED',
    });
    // GET /server_settings says so.
    const settings = getServerSettings(off, { anonymous: true }, {}, ctx);
    expect(settings.body).toMatchObject({
      email_auth_enabled: false,
      authentication_methods: { password: false },
    });
  });

  it('missing parameters, in Zulip order (username first)', () => {
    const r = fetchApiKey(realm, { anonymous: true }, {} as never, ctx);
    expect(r.body).toMatchObject({ msg: "Missing 'username' argument" });
  });
});

describe('GET /server_settings', () => {
  it('advertises password login when the realm allows it, whatever credentials come with it', () => {
    for (const headers of [{}, { authorization: basicAuthHeader('hamlet@zulip.com', 'y'.repeat(32)) }]) {
      const r = handleApiRequest(realm, { method: 'GET', url: '/api/v1/server_settings', headers }, ctx);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        email_auth_enabled: true,
        require_email_format_usernames: true,
        authentication_methods: { password: true, email: true, dev: false },
      });
      expectValidResponse('get-server-settings', 200, r.body);
    }
  });
});
