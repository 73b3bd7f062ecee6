import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { removeFcmToken } from '../../src/ops/push/removeFcmToken';
import { createRealm } from '../../src/core/snapshot/create';
import { snapshotRealm } from '../../src/core/snapshot/export';
import { seededRandom } from '../../src/core/context';
import type { OpResult } from '../../src/core/result';
import type { RealmState } from '../../src/core/state';
import { expectValidResponse } from '../support/openapi';
import { expectRefused } from '../support/expect-result';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { as, cast, devRealm, devSnapshot, testCtx, wire, type EditableSnapshot } from '../support/realm';
import { loose } from '../support/loose';

const OP = 'remove-fcm-token';
const state = devRealm(); // push_notifications: "direct"
const PATH = '/users/me/android_gcm_reg_id';

const HAMLET_FCM = 'fcm-token-for-hamlet-0123456789abcdef';
const HAMLET_APNS = 'apnstokenforhamlet0123456789abcdef';
const CORDELIA_FCM = 'fcm-token-for-cordelia-registered-remotely';

function realm(mode: 'off' | 'direct' | 'bouncer', devices?: EditableSnapshot['push_devices']): RealmState {
  const snap = devSnapshot();
  snap.server = { ...snap.server, push_notifications: mode };
  if (devices) snap['push_devices'] = devices;
  return createRealm(snap, { random: seededRandom(1) });
}

function ok(r: OpResult): void {
  expect(r.status).toBe(200);
  expect(r.body).toEqual({ result: 'success', msg: '' });
  expectValidResponse(OP, 200, r.body);
  expect(r.events).toEqual([]);
}

function refused(r: OpResult, before: RealmState, msg: string, code?: string, extra?: object): void {
  expectRefused(OP, r, before, msg, code, extra);
}

const tokens = (s: RealmState, id: number) =>
  (s.pushDevices.get(id) ?? []).map((d) => `${d.kind}:${d.token}`);

describe('removeFcmToken', () => {
  it("removes the caller's FCM token and keeps the others (scenario: remove a registered Android token)", () => {
    const r = wire(state, 'hamlet', 'DELETE', PATH, { token: HAMLET_FCM });
    ok(r);
    expect(r.effects).toEqual([]);
    expect(tokens(r.state, cast.hamlet)).toEqual([`apns:${HAMLET_APNS}`]);
    expect(tokens(r.state, cast.cordelia)).toEqual([`fcm:${CORDELIA_FCM}`]);
    expect(tokens(state, cast.hamlet)).toHaveLength(2);
  });

  it("removes cordelia's android-token-1 (scenario as written)", () => {
    const s = realm('direct', [
      { user_id: cast.cordelia, kind: 'fcm', token: 'android-token-1' },
      { user_id: cast.cordelia, kind: 'fcm', token: 'android-token-2' },
    ]);
    const r = wire(s, 'cordelia', 'DELETE', PATH, { token: 'android-token-1' });
    ok(r);
    expect(tokens(r.state, cast.cordelia)).toEqual(['fcm:android-token-2']);
  });

  it('leaves no empty device list behind', () => {
    const r = removeFcmToken(state, as('cordelia'), { token: CORDELIA_FCM }, testCtx());
    ok(r);
    expect(r.state.pushDevices.get(cast.cordelia)).toBeUndefined();
    const exported = snapshotRealm(r.state) as unknown as { push_devices: Array<{ user_id: number }> };
    expect(exported.push_devices.map((d) => d.user_id)).toEqual([cast.hamlet, cast.hamlet]);
  });

  it('accepts a token of exactly 4096 characters (scenario: length 4096)', () => {
    const long = 'a'.repeat(4096);
    const s = realm('direct', [{ user_id: cast.cordelia, kind: 'fcm', token: long }]);
    const r = wire(s, 'cordelia', 'DELETE', PATH, { token: long });
    ok(r);
    expect(r.state.pushDevices.get(cast.cordelia)).toBeUndefined();
  });

  it('refuses empty and over-long tokens (scenarios: empty token, 5000 characters)', () => {
    refused(wire(state, 'cordelia', 'DELETE', PATH, { token: '' }), state, 'Empty or invalid length token');
    refused(
      wire(state, 'cordelia', 'DELETE', PATH, { token: 'a'.repeat(5000) }),
      state,
      'Empty or invalid length token',
    );
    refused(
      wire(state, 'cordelia', 'DELETE', PATH, { token: 'a'.repeat(4097) }),
      state,
      'Empty or invalid length token',
    );
    // Code points, not UTF-16 units: 4096 astral characters are a valid length (and unknown).
    refused(
      wire(state, 'cordelia', 'DELETE', PATH, { token: '😀'.repeat(4096) }),
      state,
      'Token does not exist',
    );
  });

  it('does not strip the token', () => {
    refused(
      wire(state, 'hamlet', 'DELETE', PATH, { token: ` ${HAMLET_FCM} ` }),
      state,
      'Token does not exist',
    );
    refused(wire(state, 'hamlet', 'DELETE', PATH, { token: ' ' }), state, 'Token does not exist');
  });

  it('refuses a token never registered (scenario: abcd1234)', () => {
    refused(wire(state, 'cordelia', 'DELETE', PATH, { token: 'abcd1234' }), state, 'Token does not exist');
  });

  it("refuses another user's token and keeps it (scenario: another user's token)", () => {
    const s = realm('direct', [{ user_id: cast.hamlet, kind: 'fcm', token: 'shared-tok' }]);
    const r = wire(s, 'cordelia', 'DELETE', PATH, { token: 'shared-tok' });
    refused(r, s, 'Token does not exist');
    expect(tokens(r.state, cast.hamlet)).toEqual(['fcm:shared-tok']);
  });

  it('does not remove APNs tokens, and matches case-sensitively', () => {
    refused(removeFcmToken(state, as('hamlet'), { token: HAMLET_APNS }), state, 'Token does not exist');
    refused(
      removeFcmToken(state, as('hamlet'), { token: HAMLET_FCM.toUpperCase() }),
      state,
      'Token does not exist',
    );
  });

  it('removes only the FCM row when an APNs device has the same token', () => {
    const s = realm('direct', [
      { user_id: cast.iago, kind: 'apns', token: 'same', ios_app_id: 'org.zulip.Zulip' },
      { user_id: cast.iago, kind: 'fcm', token: 'same' },
    ]);
    const r = removeFcmToken(s, as('iago'), { token: 'same' });
    ok(r);
    expect(tokens(r.state, cast.iago)).toEqual(['apns:same']);
  });

  it('works the same when push is not configured', () => {
    const off = realm('off');
    const r = removeFcmToken(off, as('hamlet'), { token: HAMLET_FCM });
    ok(r);
    expect(r.effects).toEqual([]);
  });

  it('also unregisters the token at the bouncer', () => {
    const bouncer = realm('bouncer');
    const r = removeFcmToken(bouncer, as('cordelia'), { token: CORDELIA_FCM });
    ok(r);
    expect(r.state.pushDevices.get(cast.cordelia)).toBeUndefined();
    expect(r.effects).toEqual([
      { type: 'unregister_push_device', user_id: cast.cordelia, kind: 'fcm', token: CORDELIA_FCM },
    ]);
  });

  it('reports the bouncer refusing a token it never registered, keeping the row', () => {
    const bouncer = realm('bouncer');
    refused(removeFcmToken(bouncer, as('hamlet'), { token: HAMLET_FCM }), bouncer, 'Token does not exist');
  });

  it('refuses bots before reading parameters (scenario: a bot calling)', () => {
    refused(wire(state, 'defaultBot', 'DELETE', PATH), state, 'This endpoint does not accept bot requests.');
    refused(
      wire(state, 'embeddedBot', 'DELETE', PATH, { token: '' }),
      state,
      'This endpoint does not accept bot requests.',
    );
  });

  it('requires the token (scenario: missing token)', () => {
    refused(
      wire(state, 'cordelia', 'DELETE', PATH),
      state,
      "Missing 'token' argument",
      'REQUEST_VARIABLE_MISSING',
      { var_name: 'token' },
    );
    refused(loose(removeFcmToken)(state, as('cordelia'), { token: 12 }), state, 'token is not a string');
  });

  it('reads the token from the query string too, and reports unknown parameters', () => {
    const r = wire(state, 'hamlet', 'DELETE', `${PATH}?token=${HAMLET_FCM}`, { other: '1' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ result: 'success', msg: '', ignored_parameters_unsupported: ['other'] });
    expectValidResponse(OP, 200, r.body);
  });

  it('lets guests remove their own tokens', () => {
    const s = realm('direct', [{ user_id: cast.polonius, kind: 'fcm', token: 'g' }]);
    ok(wire(s, 'polonius', 'DELETE', PATH, { token: 'g' }));
  });

  it('is total and pure on failure (library)', () => {
    const shaped = [fc.constantFrom(HAMLET_FCM, HAMLET_APNS, CORDELIA_FCM, '', 'a'.repeat(4097))];
    checkLibraryLaws(removeFcmToken, state, arbParams(['token'], shaped));
    checkLibraryLaws(removeFcmToken, realm('bouncer'), arbParams(['token'], shaped), 50);
  });

  it('is total and pure on failure (wire)', () => {
    checkWireLaws(
      removeFcmToken,
      state,
      arbWireParams(['token'], [fc.constantFrom(HAMLET_FCM, CORDELIA_FCM)]),
    );
  });
});
