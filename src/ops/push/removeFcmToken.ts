import * as z from 'zod/mini';
import { errors } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { codePointLength, rawParam } from '../../core/params';
import { edit, failure, success } from '../../core/result';

/** Zulip's limit on push token length. */
const MAX_TOKEN_LENGTH = 4096;

/**
 * DELETE /api/v1/users/me/android_gcm_reg_id — https://zulip.com/api/remove-fcm-token (deprecated at FL406)
 *
 * Removes one of the caller's FCM (Android) registrations. Humans only. The token is taken as
 * sent (not stripped): empty or over 4096 code points is refused before the lookup, which is exact
 * and limited to the caller's FCM devices (an APNs device or another user's token is "not found").
 * With the push bouncer, the bouncer is also told to forget the token (an
 * `unregister_push_device` effect). No events.
 *
 * Differs from Zulip: with the bouncer, Zulip deletes the local row first and then reports the
 * bouncer's `Token does not exist` for a token the bouncer never registered; we report the same
 * error but keep the row (errors never change the state).
 *
 * @example
 * ```ts
 * const r = removeFcmToken(realm, { userId: 4 }, { token: 'fcm-token-for-hamlet-0123456789abcdef' }, { now });
 * expect(r.body).toEqual({ result: 'success', msg: '' });
 * ```
 */
export const removeFcmToken = defineOperation({
  name: 'removeFcmToken',
  method: 'DELETE',
  path: '/users/me/android_gcm_reg_id',
  operationId: 'remove-fcm-token',
  guard: (_state, user) => (user.is_bot ? errors.notForBots() : undefined),
  params: [rawParam('token', z.string(), { required: true })],
  handler: ({ state, user, params, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    const { token } = params;
    if (token === '' || codePointLength(token) > MAX_TOKEN_LENGTH) {
      return failure(state, errors.badRequest('Empty or invalid length token'));
    }
    const devices = state.pushDevices.get(user.user_id) ?? [];
    const device = devices.find((d) => d.kind === 'fcm' && d.token === token);
    const viaBouncer = state.server.push_notifications === 'bouncer';
    if (device === undefined || (viaBouncer && !device.registered_with_bouncer)) {
      return failure(state, errors.badRequest('Token does not exist'));
    }
    const rest = devices.filter((d) => d !== device);
    const next = edit(state, (draft) => {
      draft.pushDevices =
        rest.length === 0
          ? draft.pushDevices.delete(user.user_id)
          : draft.pushDevices.set(user.user_id, Object.freeze(rest));
    });
    const effects = viaBouncer
      ? [{ type: 'unregister_push_device' as const, user_id: user.user_id, kind: 'fcm' as const, token }]
      : [];
    return success(next, { ignored, effects });
  },
});
