import { errors, zulipError } from '../../core/errors';
import type { Effect } from '../../core/effects';
import type { PushDevice } from '../../core/model/records';
import { defineOperation } from '../../core/operation';
import { rawParam } from '../../core/params';
import { failure, success } from '../../core/result';
import type { RealmState } from '../../core/state';
import { testNotificationPayload } from './payload';

/**
 * POST /api/v1/mobile_push/test_notification — https://zulip.com/api/test-notify (deprecated at FL420)
 *
 * Sends a test notification to one of the caller's devices (`token`, matched exactly against any
 * kind of device) or to all of them. Humans only. Nothing is delivered here: the delivery is
 * returned as one `send_push_notification` effect carrying Zulip's payload (`event: "test"`,
 * `realm_name`, ...). No events, no state change.
 *
 * Server modes (`state.server.push_notifications`):
 * - `off`: Zulip finds no credentials and silently drops the notification: success, no effect.
 * - `direct`: the effect goes straight to FCM/APNs.
 * - `bouncer`: each device goes through the bouncer, which refuses a device it does not know
 *   (`registered_with_bouncer: false`) with INVALID_REMOTE_PUSH_DEVICE_TOKEN.
 *
 * Differs from Zulip: with the bouncer Zulip sends device by device and stops at the first
 * unknown one, after notifying the earlier ones; we check every device first and then send to all
 * or none. A token registered as both FCM and APNs (a 500 in Zulip) targets the first device.
 * APNs devices without an `ios_app_id` are skipped, as Zulip does (it logs an error).
 *
 * @example
 * ```ts
 * const r = sendTestPushNotification(realm, { userId: 4 }, {}, { now });
 * expect(r.status).toBe(200);
 * // Nothing is delivered by the core: the host performs `r.effects`.
 * expect(r.state).toBe(realm);
 * ```
 */
export const sendTestPushNotification = defineOperation({
  name: 'sendTestPushNotification',
  method: 'POST',
  path: '/mobile_push/test_notification',
  operationId: 'test-notify',
  guard: (_state, user) => (user.is_bot ? errors.notForBots() : undefined),
  params: [rawParam('token')],
  handler: ({ state, user, params, ctx, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    const devices = state.pushDevices.get(user.user_id) ?? [];
    let targets: readonly PushDevice[] = devices;
    if (params.token !== undefined) {
      const device = devices.find((d) => d.token === params.token);
      if (device === undefined) {
        return failure(state, zulipError('Device not recognized', 'INVALID_PUSH_DEVICE_TOKEN'));
      }
      targets = [device];
    }
    const mode = state.server.push_notifications;
    if (mode === 'bouncer' && targets.some((d) => !d.registered_with_bouncer)) {
      return failure(
        state,
        zulipError('Device not recognized by the push bouncer', 'INVALID_REMOTE_PUSH_DEVICE_TOKEN'),
      );
    }
    // Zulip logs and skips an APNs device registered without an app id: it cannot be addressed.
    const deliverable = targets.filter((d) => d.kind === 'fcm' || d.ios_app_id !== null);
    const effects =
      mode === 'off' || deliverable.length === 0
        ? []
        : [delivery(state, user.user_id, deliverable, mode === 'bouncer', ctx.now)];
    return success(state, { ignored, effects });
  },
});

function delivery(
  state: RealmState,
  userId: number,
  targets: readonly PushDevice[],
  viaBouncer: boolean,
  now: number,
): Effect {
  const payload = testNotificationPayload(state, userId, now);
  const base = {
    type: 'send_push_notification' as const,
    devices: targets.map((d) => ({ kind: d.kind, token: d.token, ios_app_id: d.ios_app_id })),
    via_bouncer: viaBouncer,
    user_id: userId,
    payload,
  };
  if (!targets.some((d) => d.kind === 'apns')) return base;
  const { realm } = state;
  const apns = {
    alert: {
      title: 'Test notification',
      body: `This is a test notification from ${realm.name} (${realm.uri}).`,
    },
    sound: 'default',
  };
  return { ...base, apns };
}
