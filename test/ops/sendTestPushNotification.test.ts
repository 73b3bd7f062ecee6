import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sendTestPushNotification } from '../../src/ops/push/sendTestPushNotification';
import { createRealm } from '../../src/core/snapshot/create';
import { seededRandom } from '../../src/core/context';
import type { OpResult } from '../../src/core/result';
import type { RealmState } from '../../src/core/state';
import { expectValidResponse } from '../support/openapi';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { as, cast, devRealm, devSnapshot, testCtx, wire, type EditableSnapshot } from '../support/realm';
import { loose } from '../support/loose';

const OP = 'test-notify';
const NOW = 1795219200;
const state = devRealm(); // server push_notifications: "direct"

const HAMLET_FCM = 'fcm-token-for-hamlet-0123456789abcdef';
const HAMLET_APNS = 'apnstokenforhamlet0123456789abcdef';
const CORDELIA_FCM = 'fcm-token-for-cordelia-registered-remotely';

function realm(mode: 'off' | 'direct' | 'bouncer', devices?: EditableSnapshot['push_devices']): RealmState {
  const snap = devSnapshot();
  snap.server = { ...snap.server, push_notifications: mode };
  if (devices) snap['push_devices'] = devices;
  return createRealm(snap, { random: seededRandom(1) });
}

const payload = (userId: number) => ({
  server: 'localhost:9991',
  realm_id: 1,
  realm_uri: 'http://localhost:9991',
  realm_url: 'http://localhost:9991',
  realm_name: 'Zulip Dev',
  user_id: userId,
  event: 'test',
  time: NOW,
});
const APNS = {
  alert: {
    title: 'Test notification',
    body: 'This is a test notification from Zulip Dev (http://localhost:9991).',
  },
  sound: 'default',
};

function ok(r: OpResult, before: RealmState): void {
  expect(r.status).toBe(200);
  expect(r.body).toEqual({ result: 'success', msg: '' });
  expectValidResponse(OP, 200, r.body);
  expect(r.state).toBe(before);
  expect(r.events).toEqual([]);
}

function refused(r: OpResult, before: RealmState, msg: string, code: string): void {
  expect(r.status).toBe(400);
  expect(r.body).toEqual({ result: 'error', msg, code });
  expectValidResponse(OP, 400, r.body);
  expect(r.state).toBe(before);
  expect(r.events).toEqual([]);
  expect(r.effects).toEqual([]);
}

describe('sendTestPushNotification', () => {
  it('sends to every device of the caller when no token is given (scenario: no token, all devices)', () => {
    const r = wire(state, 'hamlet', 'POST', '/mobile_push/test_notification');
    ok(r, state);
    expect(r.effects).toEqual([
      {
        type: 'send_push_notification',
        devices: [
          { kind: 'fcm', token: HAMLET_FCM, ios_app_id: null },
          { kind: 'apns', token: HAMLET_APNS, ios_app_id: 'org.zulip.Zulip' },
        ],
        via_bouncer: false,
        user_id: cast.hamlet,
        payload: payload(cast.hamlet),
        apns: APNS,
      },
    ]);
  });

  it('sends to the one device whose token is given, of any kind', () => {
    const fcmOnly = sendTestPushNotification(state, as('hamlet'), { token: HAMLET_FCM }, testCtx());
    ok(fcmOnly, state);
    expect(fcmOnly.effects).toEqual([
      {
        type: 'send_push_notification',
        devices: [{ kind: 'fcm', token: HAMLET_FCM, ios_app_id: null }],
        via_bouncer: false,
        user_id: cast.hamlet,
        payload: payload(cast.hamlet),
      },
    ]);
    const apns = wire(state, 'hamlet', 'POST', '/mobile_push/test_notification', { token: HAMLET_APNS });
    ok(apns, state);
    expect(apns.effects).toEqual([
      {
        type: 'send_push_notification',
        devices: [{ kind: 'apns', token: HAMLET_APNS, ios_app_id: 'org.zulip.Zulip' }],
        via_bouncer: false,
        user_id: cast.hamlet,
        payload: payload(cast.hamlet),
        apns: APNS,
      },
    ]);
  });

  it('succeeds without sending anything when the caller has no devices (scenario: no devices at all)', () => {
    const r = wire(state, 'othello', 'POST', '/mobile_push/test_notification');
    ok(r, state);
    expect(r.effects).toEqual([]);
  });

  it('refuses a token the server does not know (scenario: unknown token)', () => {
    refused(
      wire(state, 'cordelia', 'POST', '/mobile_push/test_notification', { token: 'invalid' }),
      state,
      'Device not recognized',
      'INVALID_PUSH_DEVICE_TOKEN',
    );
  });

  it("matches tokens exactly and only among the caller's devices", () => {
    const unknown = (token: string, who: 'hamlet' | 'cordelia') =>
      refused(
        sendTestPushNotification(state, as(who), { token }),
        state,
        'Device not recognized',
        'INVALID_PUSH_DEVICE_TOKEN',
      );
    unknown(HAMLET_FCM.toUpperCase(), 'hamlet');
    unknown(` ${HAMLET_FCM}`, 'hamlet');
    unknown('', 'hamlet');
    unknown(HAMLET_FCM, 'cordelia');
  });

  it('drops the notification silently when push is not configured (server mode off)', () => {
    const off = realm('off');
    const all = sendTestPushNotification(off, as('hamlet'), {}, testCtx());
    ok(all, off);
    expect(all.effects).toEqual([]);
    const one = sendTestPushNotification(off, as('hamlet'), { token: HAMLET_APNS }, testCtx());
    ok(one, off);
    expect(one.effects).toEqual([]);
    // An unknown token is still refused: the lookup comes first.
    refused(
      sendTestPushNotification(off, as('hamlet'), { token: 'nope' }),
      off,
      'Device not recognized',
      'INVALID_PUSH_DEVICE_TOKEN',
    );
  });

  it('goes through the bouncer for devices registered there', () => {
    const bouncer = realm('bouncer');
    const r = sendTestPushNotification(bouncer, as('cordelia'), { token: CORDELIA_FCM }, testCtx());
    ok(r, bouncer);
    expect(r.effects).toEqual([
      {
        type: 'send_push_notification',
        devices: [{ kind: 'fcm', token: CORDELIA_FCM, ios_app_id: null }],
        via_bouncer: true,
        user_id: cast.cordelia,
        payload: payload(cast.cordelia),
      },
    ]);
  });

  it('refuses a device the bouncer does not know', () => {
    const bouncer = realm('bouncer');
    refused(
      sendTestPushNotification(bouncer, as('hamlet'), { token: HAMLET_FCM }),
      bouncer,
      'Device not recognized by the push bouncer',
      'INVALID_REMOTE_PUSH_DEVICE_TOKEN',
    );
    // Without a token, one unknown device refuses the whole request (all or nothing).
    refused(
      wire(bouncer, 'hamlet', 'POST', '/mobile_push/test_notification'),
      bouncer,
      'Device not recognized by the push bouncer',
      'INVALID_REMOTE_PUSH_DEVICE_TOKEN',
    );
  });

  it('sends to several bouncer-registered devices at once', () => {
    const bouncer = realm('bouncer', [
      {
        user_id: cast.iago,
        kind: 'apns',
        token: 'aaaa',
        ios_app_id: 'org.zulip.Zulip',
        registered_with_bouncer: true,
      },
      { user_id: cast.iago, kind: 'fcm', token: 'bbbb', registered_with_bouncer: true },
    ]);
    const r = sendTestPushNotification(bouncer, as('iago'), {}, testCtx({ now: NOW + 0.9 }));
    ok(r, bouncer);
    expect(r.effects).toEqual([
      {
        type: 'send_push_notification',
        devices: [
          { kind: 'apns', token: 'aaaa', ios_app_id: 'org.zulip.Zulip' },
          { kind: 'fcm', token: 'bbbb', ios_app_id: null },
        ],
        via_bouncer: true,
        user_id: cast.iago,
        payload: payload(cast.iago),
        apns: APNS,
      },
    ]);
  });

  it("sends to both of cordelia's devices (scenario: no token, all devices)", () => {
    const s = realm('direct', [
      { user_id: cast.cordelia, kind: 'fcm', token: 'android-1' },
      { user_id: cast.cordelia, kind: 'apns', token: 'apple-1', ios_app_id: 'org.zulip.Zulip' },
    ]);
    const r = wire(s, 'cordelia', 'POST', '/mobile_push/test_notification');
    ok(r, s);
    expect(r.effects).toHaveLength(1);
    expect(r.effects[0]).toMatchObject({
      devices: [
        { kind: 'fcm', token: 'android-1', ios_app_id: null },
        { kind: 'apns', token: 'apple-1', ios_app_id: 'org.zulip.Zulip' },
      ],
      payload: { event: 'test', realm_name: 'Zulip Dev', user_id: cast.cordelia },
    });
  });

  it('skips an APNs device registered without an app id, as Zulip does', () => {
    const s = realm('direct', [
      { user_id: cast.iago, kind: 'apns', token: 'noapp' },
      { user_id: cast.iago, kind: 'fcm', token: 'droid' },
    ]);
    const all = sendTestPushNotification(s, as('iago'), {}, testCtx());
    ok(all, s);
    expect(all.effects).toEqual([
      {
        type: 'send_push_notification',
        devices: [{ kind: 'fcm', token: 'droid', ios_app_id: null }],
        via_bouncer: false,
        user_id: cast.iago,
        payload: payload(cast.iago),
      },
    ]);
    const one = sendTestPushNotification(s, as('iago'), { token: 'noapp' }, testCtx());
    ok(one, s);
    expect(one.effects).toEqual([]);
  });

  it('refuses bots before reading parameters', () => {
    for (const who of ['defaultBot', 'outgoingBot', 'embeddedBot'] as const) {
      const r = wire(state, who, 'POST', '/mobile_push/test_notification', { token: 'x' });
      refused(r, state, 'This endpoint does not accept bot requests.', 'BAD_REQUEST');
    }
  });

  it('allows guests', () => {
    ok(wire(state, 'polonius', 'POST', '/mobile_push/test_notification'), state);
  });

  it('reports unknown parameters as ignored', () => {
    const r = wire(state, 'othello', 'POST', '/mobile_push/test_notification', { device: '1' });
    expect(r.body).toEqual({ result: 'success', msg: '', ignored_parameters_unsupported: ['device'] });
    expectValidResponse(OP, 200, r.body);
  });

  it('types decoded parameters strictly', () => {
    refused(
      loose(sendTestPushNotification)(state, as('hamlet'), { token: 5 }),
      state,
      'token is not a string',
      'BAD_REQUEST',
    );
  });

  it('refuses anonymous callers', () => {
    expect(sendTestPushNotification(state, { anonymous: true }).status).toBe(401);
  });

  it('is total and pure on failure (library)', () => {
    const shaped = [fc.constantFrom(HAMLET_FCM, HAMLET_APNS, CORDELIA_FCM, '')];
    checkLibraryLaws(sendTestPushNotification, state, arbParams(['token'], shaped));
    checkLibraryLaws(sendTestPushNotification, realm('bouncer'), arbParams(['token'], shaped), 50);
  });

  it('is total and pure on failure (wire)', () => {
    checkWireLaws(
      sendTestPushNotification,
      state,
      arbWireParams(['token'], [fc.constantFrom(HAMLET_FCM, CORDELIA_FCM)]),
    );
  });
});
