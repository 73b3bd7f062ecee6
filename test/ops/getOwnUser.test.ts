import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/context';
import type { OpResult } from '../../src/core/result';
import { createRealm } from '../../src/core/snapshot/create';
import { getOwnUser } from '../../src/ops/users/getOwnUser';
import { expectValidResponse } from '../support/openapi';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { as, devRealm, devSnapshot, testCtx, wire } from '../support/realm';

const OP = 'get-own-user';
const state = devRealm();
const md5 = (s: string) => createHash('md5').update(s).digest('hex');

function ok(r: OpResult): Record<string, unknown> {
  expect(r.status).toBe(200);
  expectValidResponse(OP, 200, r.body);
  expect(r.state).toBe(state);
  expect(r.events).toEqual([]);
  return r.body;
}

/** The fixture's largest message id holding a row for the user, or -1. */
function maxRowId(userId: number): number {
  const messages = devSnapshot()['messages'] as Array<{ id: number; flags: Record<string, unknown> }>;
  return Math.max(-1, ...messages.filter((m) => String(userId) in m.flags).map((m) => m.id));
}

describe('getOwnUser', () => {
  it("returns the caller's full record (scenario: member profile)", () => {
    expect(ok(getOwnUser(state, as('hamlet'), {}, testCtx()))).toEqual({
      result: 'success',
      msg: '',
      email: 'hamlet@zulip.com',
      delivery_email: 'hamlet@zulip.com',
      user_id: 4,
      full_name: 'King Hamlet',
      role: 400,
      is_admin: false,
      is_owner: false,
      is_guest: false,
      is_bot: false,
      is_active: true,
      timezone: 'Europe/Copenhagen',
      date_joined: '2025-01-01T00:00+00:00',
      avatar_url: `https://secure.gravatar.com/avatar/${md5('hamlet@zulip.com')}?d=identicon&version=1`,
      avatar_version: 1,
      is_imported_stub: false,
      profile_data: {
        '1': { value: '+1-555-0100', rendered_value: '<p>+1-555-0100</p>' },
        '2': {
          value: 'I am **the** prince of Denmark.',
          rendered_value: '<p>I am <strong>the</strong> prince of Denmark.</p>',
        },
        '4': { value: '0' },
        '7': { value: '[5,6]' },
      },
      max_message_id: maxRowId(4),
    });
    expect(maxRowId(4)).toBe(166);
  });

  it('gives the role flags (scenarios: owner, moderator)', () => {
    expect(ok(getOwnUser(state, as('desdemona'), {}))).toMatchObject({
      role: 100,
      is_admin: true,
      is_owner: true,
    });
    expect(ok(getOwnUser(state, as('iago'), {}))).toMatchObject({
      role: 200,
      is_admin: true,
      is_owner: false,
    });
    expect(ok(getOwnUser(state, as('shiva'), {}))).toMatchObject({
      role: 300,
      is_admin: false,
      is_owner: false,
      is_guest: false,
    });
    expect(ok(getOwnUser(state, as('polonius'), {}))).toMatchObject({
      role: 600,
      is_guest: true,
      max_message_id: maxRowId(10),
    });
  });

  it('answers -1 and {} for a brand-new user (scenario: no messages yet)', () => {
    const snap = devSnapshot();
    snap.users.push({
      user_id: 17,
      email: 'newuser@zulip.com',
      full_name: 'New User',
      api_key: 'newuserKKKKKKKKKKKKKKKKKKKApiKey',
    });
    const s = createRealm(snap, { random: seededRandom(1) });
    const r = getOwnUser(s, { userId: 17 }, {});
    expect(r.status).toBe(200);
    expectValidResponse(OP, 200, r.body);
    expect(r.body).toMatchObject({
      max_message_id: -1,
      profile_data: {},
      delivery_email: 'newuser@zulip.com',
    });
  });

  it('always shows the real address and the avatar URL to the user', () => {
    const snap = devSnapshot();
    snap.users.find((u) => u['user_id'] === 5)!['settings'] = { email_address_visibility: 4 };
    const s = createRealm(snap, { random: seededRandom(1) });
    const r = getOwnUser(s, as('cordelia'), {});
    expectValidResponse(OP, 200, r.body);
    expect(r.body).toMatchObject({ email: 'user5@localhost', delivery_email: 'cordelia@zulip.com' });
    expect(typeof r.body['avatar_url']).toBe('string');
  });

  it('describes bots without profile_data', () => {
    const body = ok(getOwnUser(state, as('defaultBot'), {}));
    expect(body).toMatchObject({ is_bot: true, bot_type: 1, bot_owner_id: 4, max_message_id: maxRowId(11) });
    expect(body).not.toHaveProperty('profile_data');
  });

  it('never reports unknown parameters', () => {
    const r = wire(state, 'hamlet', 'GET', '/users/me', { foo: 'bar', client_gravatar: 'true' });
    expect(ok(r)).not.toHaveProperty('ignored_parameters_unsupported');
    expect(r.body['user_id']).toBe(4);
  });

  it('refuses spectators and deactivated users', () => {
    for (const r of [wire(state, null, 'GET', '/users/me'), getOwnUser(state, { anonymous: true }, {})]) {
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({
        result: 'error',
        msg: 'Not logged in: API authentication or user session required',
      });
      expectValidResponse(OP, 401, r.body);
      expect(r.state).toBe(state);
    }
    const r = getOwnUser(state, as('exEmployee'), {});
    expect(r.body).toEqual({ result: 'error', msg: 'Account is deactivated', code: 'USER_DEACTIVATED' });
    expect(r.events).toEqual([]);
  });

  it('never throws and fails purely (property)', () => {
    checkLibraryLaws(getOwnUser, state, arbParams(['foo']), 100);
    checkWireLaws(getOwnUser, state, arbWireParams(['foo']), 50);
  });
});
