import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/context';
import { createRealm } from '../../src/core/snapshot/create';
import { createFetchHandler } from '../../src/server/fetch';
import { devFetchApiKey, devListUsers, withDevLogin } from '../../src/server/dev-login';
import { pureRealm } from '../../src/server/pure';
import { expectValidResponse } from '../support/openapi';
import { cast, devRealm, devSnapshot } from '../support/realm';

type Settings = { authentication_methods: Record<string, boolean> };

/** Zulip's development login (dev_login.py; zerver/tests/test_auth.py: DevFetchAPIKeyTest, DevGetEmailsTest). */
describe('development login (serve --dev-login)', () => {
  const state = devRealm();

  it('lists active humans by email: administrators and owners apart from the rest (api_dev_list_users)', () => {
    const { status, body } = devListUsers(state);
    expect(status).toBe(200);
    const emails = (k: string) =>
      (body[k] as Array<{ email: string; realm_uri: string }>).map((u) => u.email);
    expect(emails('direct_admins')).toEqual(['desdemona@zulip.com', 'iago@zulip.com']);
    expect(emails('direct_users')).toContain('hamlet@zulip.com');
    expect(emails('direct_users')).toContain('polonius@zulip.com');
    // No bots, no deactivated users.
    expect(emails('direct_users')).not.toContain('default-bot@zulip.com');
    expect(emails('direct_users')).not.toContain('ex-employee@zulip.com');
    expect((body['direct_users'] as Array<{ realm_uri: string }>)[0]?.realm_uri).toBe(state.realm.uri);
  });

  it("answers any user's API key without a password (api_dev_fetch_api_key)", () => {
    const hamlet = state.users.get(cast.hamlet)!;
    const r = devFetchApiKey(state, 'hamlet@zulip.com');
    expect(r.body).toEqual({
      result: 'success',
      msg: '',
      api_key: hamlet.api_key,
      email: 'hamlet@zulip.com',
      user_id: cast.hamlet,
    });
    expectValidResponse('fetch-api-key', 200, r.body);
  });

  it("refuses in Zulip's order: bad email, deactivated realm, deactivated user, unknown user", () => {
    expect(devFetchApiKey(state, 'not-an-email')).toMatchObject({
      status: 400,
      body: { msg: 'Enter a valid email address.' },
    });
    expect(devFetchApiKey(state, 'ex-employee@zulip.com')).toMatchObject({
      status: 401,
      body: { code: 'USER_DEACTIVATED' },
    });
    expect(devFetchApiKey(state, 'nobody@zulip.com')).toMatchObject({
      status: 401,
      body: { code: 'AUTHENTICATION_FAILED', msg: 'Your username or password is incorrect' },
    });
    const snap = devSnapshot();
    snap.realm = { ...snap.realm, deactivated: true };
    const closed = createRealm(snap, { random: seededRandom(1) });
    expect(devFetchApiKey(closed, 'ex-employee@zulip.com')).toMatchObject({
      body: { code: 'REALM_DEACTIVATED' },
    });
    expect(devFetchApiKey(state, undefined).body).toMatchObject({ msg: "Missing 'username' argument" });
  });

  it('is served over HTTP only when wrapped, and then server_settings advertises dev', async () => {
    const plain = createFetchHandler({ realm: pureRealm(state) });
    const dev = withDevLogin(plain, () => state);
    const base = 'http://localhost/api/v1';
    expect((await plain(new Request(`${base}/dev_list_users`))).status).toBe(404);
    const listed = await dev(new Request(`${base}/dev_list_users`));
    expect(listed.status).toBe(200);
    const key = await dev(
      new Request(`${base}/dev_fetch_api_key`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'username=iago%40zulip.com',
      }),
    );
    expect(await key.json()).toMatchObject({ email: 'iago@zulip.com', user_id: cast.iago });
    const before = (await (await plain(new Request(`${base}/server_settings`))).json()) as Settings;
    const after = (await (await dev(new Request(`${base}/server_settings`))).json()) as Settings;
    expect(before.authentication_methods['dev']).toBe(false);
    expect(after.authentication_methods['dev']).toBe(true);
    expectValidResponse('get-server-settings', 200, after);
  });
});
