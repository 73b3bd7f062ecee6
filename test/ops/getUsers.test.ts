import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/context';
import type { OpResult } from '../../src/core/result';
import { createRealm } from '../../src/core/snapshot/create';
import type { RealmState } from '../../src/core/state';
import {
  accessibleUserIds,
  canAccessUser,
  userIdsWhoCanAccess,
} from '../../src/core/permissions/user-access';
import { getUsers } from '../../src/ops/users/getUsers';
import { expectValidResponse } from '../support/openapi';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { as, cast, devRealm, devSnapshot, testCtx, wire } from '../support/realm';
import { loose } from '../support/loose';

const OP = 'get-users';
const state = devRealm();
const ALL_IDS = Array.from({ length: 16 }, (_, i) => i + 1);
const md5 = (s: string) => createHash('md5').update(s).digest('hex');
const gravatar = (email: string, v = 1) =>
  `https://secure.gravatar.com/avatar/${md5(email.toLowerCase())}?d=identicon&version=${v}`;

type Snap = ReturnType<typeof devSnapshot>;
function realmWith(change: (snap: Snap) => void): RealmState {
  const snap = devSnapshot();
  change(snap);
  return createRealm(snap, { random: seededRandom(1) });
}
const userIn = (snap: Snap, id: number) => snap.users.find((u) => u['user_id'] === id)!;
const channelIn = (snap: Snap, id: number) =>
  (snap['channels'] as Array<Record<string, unknown>>).find((c) => c['stream_id'] === id)!;

type Member = Record<string, unknown> & { user_id: number };
function members(r: OpResult): Member[] {
  expect(r.status).toBe(200);
  expectValidResponse(OP, 200, r.body);
  return (r.body as unknown as { members: Member[] }).members;
}
const ids = (r: OpResult) => members(r).map((m) => m.user_id);
const member = (r: OpResult, id: number) => members(r).find((m) => m.user_id === id);

function expectError(r: OpResult, before: RealmState, status: number, body: Record<string, unknown>): void {
  expect(r.status).toBe(status);
  expect(r.body).toEqual(body);
  expectValidResponse(OP, status, r.body);
  expect(r.state).toBe(before);
  expect(r.events).toEqual([]);
}

/** Polonius loses his Verona subscription and the realm restricts guests to what they share. */
const restricted = realmWith((snap) => {
  snap.realm.can_access_all_users_group = 'role:members';
  snap.subscriptions = snap.subscriptions.filter((s) => !(s.user_id === cast.polonius && s.stream_id === 1));
});

describe('getUsers', () => {
  it('lists active and deactivated users and bots with their exact records (scenario: default listing)', () => {
    const r = getUsers(state, as('cordelia'), {}, testCtx());
    expect(ids(r)).toEqual(ALL_IDS);
    expect(r.state).toBe(state);
    expect(r.events).toEqual([]);
    expect(member(r, cast.hamlet)).toEqual({
      email: 'hamlet@zulip.com',
      user_id: 4,
      avatar_version: 1,
      is_admin: false,
      is_owner: false,
      is_guest: false,
      role: 400,
      is_bot: false,
      full_name: 'King Hamlet',
      timezone: 'Europe/Copenhagen',
      is_active: true,
      date_joined: '2025-01-01T00:00+00:00',
      delivery_email: 'hamlet@zulip.com',
      is_imported_stub: false,
      avatar_url: null,
    });
    expect(member(r, cast.defaultBot)).toMatchObject({
      is_bot: true,
      bot_type: 1,
      bot_owner_id: 4,
      avatar_url: null,
    });
    expect(member(r, cast.welcomeBot)).toMatchObject({ bot_type: 1, bot_owner_id: null });
    expect(member(r, cast.exEmployee)).toMatchObject({ is_active: false });
    expect(member(r, cast.imported)).toMatchObject({ is_imported_stub: true });
    expect(member(r, cast.desdemona)).toMatchObject({ role: 100, is_admin: true, is_owner: true });
    expect(member(r, cast.iago)).toMatchObject({ role: 200, is_admin: true, is_owner: false });
    expect(member(r, cast.polonius)).toMatchObject({ role: 600, is_guest: true });
    for (const m of members(r)) expect(m).not.toHaveProperty('profile_data');
  });

  it('adds profile_data to humans only, with rendered values for text fields (scenario: custom profile data)', () => {
    const r = wire(state, 'iago', 'GET', '/users', {
      client_gravatar: 'false',
      include_custom_profile_fields: 'true',
    });
    expect(member(r, cast.hamlet)).toMatchObject({
      avatar_url: gravatar('hamlet@zulip.com'),
      profile_data: {
        '1': { value: '+1-555-0100', rendered_value: '<p>+1-555-0100</p>' },
        '2': {
          value: 'I am **the** prince of Denmark.',
          rendered_value: '<p>I am <strong>the</strong> prince of Denmark.</p>',
        },
        '4': { value: '0' },
        '7': { value: '[5,6]' },
      },
    });
    expect(member(r, cast.iago)).toMatchObject({ profile_data: {} });
    const bot = member(r, cast.outgoingBot)!;
    expect(bot).toMatchObject({
      bot_type: 3,
      bot_owner_id: 2,
      avatar_url: gravatar('outgoing-webhook@zulip.com'),
    });
    expect(bot).not.toHaveProperty('profile_data');
  });

  it('hides restricted emails and always gives their avatar URL (scenario: restricted email visibility)', () => {
    const s = realmWith((snap) => {
      userIn(snap, cast.hamlet)['settings'] = { email_address_visibility: 3 };
    });
    const seenBy = (who: Parameters<typeof as>[0]) =>
      member(getUsers(s, as(who), { client_gravatar: true }), cast.hamlet)!;
    expect(seenBy('cordelia')).toMatchObject({
      email: 'user4@localhost',
      delivery_email: null,
      avatar_url: gravatar('hamlet@zulip.com'),
    });
    expect(seenBy('shiva').delivery_email).toBeNull();
    expect(seenBy('iago').delivery_email).toBe('hamlet@zulip.com');
    expect(seenBy('desdemona').delivery_email).toBe('hamlet@zulip.com');
    expect(seenBy('hamlet')).toMatchObject({ email: 'user4@localhost', delivery_email: 'hamlet@zulip.com' });
  });

  it('shows real addresses by the role lists of each visibility setting', () => {
    const visibleTo = (visibility: number) => {
      const s = realmWith((snap) => {
        userIn(snap, cast.cordelia)['settings'] = { email_address_visibility: visibility };
      });
      return (['desdemona', 'iago', 'shiva', 'hamlet', 'polonius'] as const).filter(
        (who) => member(getUsers(s, as(who), {}), cast.cordelia)!.delivery_email !== null,
      );
    };
    expect(visibleTo(1)).toEqual(['desdemona', 'iago', 'shiva', 'hamlet', 'polonius']);
    expect(visibleTo(2)).toEqual(['desdemona', 'iago', 'shiva', 'hamlet']);
    expect(visibleTo(3)).toEqual(['desdemona', 'iago']);
    expect(visibleTo(4)).toEqual([]);
    expect(visibleTo(5)).toEqual(['desdemona', 'iago', 'shiva']);
  });

  it('gives uploaded avatars a /user_avatars URL even with client_gravatar', () => {
    const s = realmWith((snap) => {
      Object.assign(userIn(snap, cast.hamlet), { avatar_source: 'U', avatar_version: 3 });
    });
    const m = member(getUsers(s, as('cordelia'), {}), cast.hamlet)!;
    expect(m['avatar_url']).toMatch(/^\/user_avatars\/1\/[0-9a-f]{40}\.png\?version=3$/);
    expect(m['avatar_version']).toBe(3);
  });

  it('writes date_joined in UTC at minute precision', () => {
    const s = realmWith((snap) => {
      userIn(snap, cast.hamlet)['date_joined'] = '2025-03-04T05:06:07+02:00';
    });
    expect(member(getUsers(s, as('cordelia'), {}), cast.hamlet)!['date_joined']).toBe(
      '2025-03-04T03:06+00:00',
    );
  });

  it('canonicalizes time zones', () => {
    const s = realmWith((snap) => {
      userIn(snap, cast.hamlet)['timezone'] = 'Asia/Calcutta';
    });
    expect(member(getUsers(s, as('cordelia'), {}), cast.hamlet)!['timezone']).toBe('Asia/Kolkata');
  });

  it('limits the list to user_ids and drops unknown ids (scenario: user_ids filter)', () => {
    expect(ids(wire(state, 'desdemona', 'GET', '/users', { user_ids: '[4,2,999999]' }))).toEqual([2, 4]);
    expect(ids(getUsers(state, as('desdemona'), { user_ids: [] }))).toEqual([]);
    expect(ids(getUsers(state, as('desdemona'), { user_ids: [14, 16] }))).toEqual([14, 16]);
  });

  it('shows a restricted guest the users they share something with, the others as "Unknown user" (scenario: guest with restricted access)', () => {
    // Rome: iago, hamlet, prospero (cordelia left); newcomers: shiva, aaron, zoe; a DM with hamlet; all bots.
    // Zulip's get_users_for_api (zerver/lib/users.py) appends get_data_for_inaccessible_user rows for
    // everyone else (test_users.py test_restricted_access_to_users checks "Unknown user"); only
    // /register's user_list_incomplete capability drops them, and GET /users has no such option.
    const accessible = [2, 3, 4, 7, 8, 9, 10, 11, 12, 13, 16];
    const r = getUsers(restricted, as('polonius'), {});
    expectValidResponse(OP, 200, r.body);
    const hidden = ALL_IDS.filter((id) => !accessible.includes(id));
    expect(ids(r)).toEqual([...accessible, ...hidden]);
    expect(member(r, cast.hamlet)?.full_name).toBe('King Hamlet');
    expect(member(r, cast.desdemona)).toEqual({
      email: 'user1@localhost',
      user_id: 1,
      avatar_version: 1,
      is_admin: false,
      is_owner: false,
      is_guest: false,
      role: 400,
      is_bot: false,
      full_name: 'Unknown user',
      timezone: '',
      is_active: true,
      date_joined: '1970-01-01T00:00:00+00:00',
      delivery_email: null,
      avatar_url: '/static/images/unknown-user-avatar.png',
      profile_data: {},
    });
    // A deactivated user the guest cannot reach is a placeholder too (is_active: true, as in Zulip).
    expect(member(r, cast.exEmployee)).toMatchObject({ full_name: 'Unknown user', is_active: true });
    const some = getUsers(restricted, as('polonius'), { user_ids: [5, 1, 4, 999] });
    expect(ids(some)).toEqual([4, 1, 5]);
    expect(member(some, 5)?.full_name).toBe('Unknown user');
    // Non-guests are never restricted.
    expect(ids(getUsers(restricted, as('hamlet'), {}))).toEqual(ALL_IDS);
    // Without the restriction, guests see everyone.
    expect(ids(getUsers(state, as('polonius'), {}))).toEqual(ALL_IDS);
  });

  it('reaches deactivated users only through direct messages', () => {
    const s = realmWith((snap) => {
      (snap['realm'] as Record<string, unknown>)['can_access_all_users_group'] = 'role:members';
      (snap['subscriptions'] as unknown[]).push({ user_id: cast.exEmployee, stream_id: 4, color: '#000000' });
      (snap['messages'] as unknown[]).push({
        id: 500,
        sender_id: cast.polonius,
        to: [cast.othello, cast.zoe],
        content: 'group DM',
        timestamp: 1735700000,
        flags: { [cast.polonius]: [], [cast.othello]: [], [cast.zoe]: [] },
      });
    });
    const polonius = s.users.get(cast.polonius)!;
    expect(canAccessUser(s, polonius, s.users.get(cast.exEmployee)!)).toBe(false);
    expect(canAccessUser(s, polonius, s.users.get(cast.othello)!)).toBe(true);
    expect(accessibleUserIds(s, polonius)).toContain(cast.othello);
    expect(userIdsWhoCanAccess(s, s.users.get(cast.cordelia)!)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16,
    ]);
  });

  it('lets spectators list users without timezones, with dates only (scenario: spectator view)', () => {
    const r = getUsers(state, { anonymous: true }, {});
    expect(ids(r)).toEqual(ALL_IDS);
    const m = member(r, cast.hamlet)!;
    expect(m).not.toHaveProperty('timezone');
    expect(m).toMatchObject({ date_joined: '2025-01-01', delivery_email: null, avatar_url: null });
    // Spectators never receive custom profile field values.
    const withFields = getUsers(state, { anonymous: true }, { include_custom_profile_fields: true });
    for (const m of members(withFields)) expect(m).not.toHaveProperty('profile_data');
  });

  it('answers an /api/v1 request without credentials with the authentication error, spectators or not', () => {
    // Zulip's rest_dispatch serves spectators on /json only; /api gets json_unauthorized().
    expectError(wire(state, null, 'GET', '/users'), state, 401, {
      result: 'error',
      msg: 'Not logged in: API authentication or user session required',
      code: 'UNAUTHORIZED',
    });
  });

  it('refuses spectators without public access', () => {
    const body = {
      result: 'error',
      msg: 'Not logged in: API authentication or user session required',
      code: 'UNAUTHENTICATED_USER',
    };
    const noSpectators = realmWith((snap) => {
      (snap['realm'] as Record<string, unknown>)['enable_spectator_access'] = false;
    });
    const serverOff = realmWith((snap) => {
      (snap['server'] as Record<string, unknown>)['web_public_streams_enabled'] = false;
    });
    const noWebPublic = realmWith((snap) => {
      channelIn(snap, 4)['is_web_public'] = false;
    });
    const archivedOnly = realmWith((snap) => {
      channelIn(snap, 4)['is_archived'] = true;
    });
    for (const s of [noSpectators, serverOff, noWebPublic, archivedOnly]) {
      expectError(getUsers(s, { anonymous: true }, {}), s, 401, body);
      expectError(wire(s, null, 'GET', '/users'), s, 401, { ...body, code: 'UNAUTHORIZED' });
    }
  });

  it('rejects badly typed parameters', () => {
    const bad = (params: Record<string, string>, msg: string) =>
      expectError(wire(state, 'hamlet', 'GET', '/users', params), state, 400, {
        result: 'error',
        msg,
        code: 'BAD_REQUEST',
      });
    bad({ client_gravatar: '1' }, 'client_gravatar is not a boolean');
    bad({ client_gravatar: 'yes' }, 'client_gravatar is not valid JSON');
    bad({ include_custom_profile_fields: '"true"' }, 'include_custom_profile_fields is not a boolean');
    bad({ user_ids: '5' }, 'user_ids is not a list');
    bad({ user_ids: '[1,"a"]' }, 'user_ids[1] is not an integer');
    expectError(loose(getUsers)(state, as('hamlet'), { user_ids: [true] }), state, 400, {
      result: 'error',
      msg: 'user_ids[0] is not an integer',
      code: 'BAD_REQUEST',
    });
  });

  it('reports unknown parameters and serves bots', () => {
    const r = wire(state, 'defaultBot', 'GET', '/users', { foo: '1', user_ids: '[4]' });
    expect(r.body).toMatchObject({ ignored_parameters_unsupported: ['foo'] });
    expect(ids(r)).toEqual([4]);
  });

  it('refuses deactivated callers', () => {
    expectError(getUsers(state, as('exEmployee'), {}), state, 401, {
      result: 'error',
      msg: 'Account is deactivated',
      code: 'USER_DEACTIVATED',
    });
  });

  it('never throws and fails purely (property)', () => {
    const names = ['client_gravatar', 'include_custom_profile_fields', 'user_ids'];
    const shaped = [fc.boolean(), fc.array(fc.integer({ min: -2, max: 20 })), fc.array(fc.anything())];
    checkLibraryLaws(getUsers, restricted, arbParams(names, shaped), 100);
    checkWireLaws(getUsers, state, arbWireParams(names, [fc.constantFrom('[1,2]', '[0]', 'false')]), 60);
  });
});
