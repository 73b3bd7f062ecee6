import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getUserByEmail } from '../../src/ops/users/getUserByEmail';
import { getUser } from '../../src/ops/users/getUser';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { expectRead, expectRefused } from '../support/read-ops';
import { as, cast, devRealm, wire } from '../support/realm';

const OP = 'get-user-by-email';
const state = devRealm();

describe('getUserByEmail', () => {
  it('answers the user named by API email, case-insensitively (test_users.py: test_get_user_by_email)', () => {
    const body = expectRead(OP, wire(state, 'hamlet', 'GET', '/users/IAGO@zulip.com'), state);
    expect(body['user']).toEqual(
      (getUser(state, as('hamlet'), { user_id: cast.iago }).body as { user: unknown }).user,
    );
    // Percent-encoded paths are decoded by the wire layer.
    expect(wire(state, 'hamlet', 'GET', '/users/iago%40zulip.com').body).toMatchObject({
      user: { user_id: 2 },
    });
    expect(getUserByEmail(state, as('hamlet'), { email: 'ex-employee@zulip.com' }).body).toMatchObject({
      user: { is_active: false },
    });
  });

  it('keeps /users/me and numeric paths on their own routes', () => {
    expect(wire(state, 'hamlet', 'GET', '/users/me').body).toMatchObject({
      user_id: cast.hamlet,
      max_message_id: expect.any(Number),
    });
    expect(wire(state, 'hamlet', 'GET', '/users/2').body).toMatchObject({ user: { user_id: 2 } });
  });

  it('answers No such user for an unknown address', () => {
    expectRefused(
      OP,
      getUserByEmail(state, as('hamlet'), { email: 'nobody@zulip.com' }),
      state,
      'No such user',
    );
    expectRefused(OP, wire(state, 'hamlet', 'GET', '/users/nobody'), state, 'No such user');
  });

  it('is total and pure on failure', () => {
    const emails = fc.constantFrom('iago@zulip.com', 'nobody@zulip.com', 'user4@zulip.com', '');
    checkLibraryLaws(getUserByEmail, state, arbParams(['email', 'client_gravatar'], [emails, fc.boolean()]));
    checkWireLaws(getUserByEmail, state, arbWireParams(['client_gravatar', 'include_custom_profile_fields']));
  });
});
