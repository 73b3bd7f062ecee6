import { z } from 'zod';
import { zulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure } from '../../core/result';

/**
 * DELETE /api/v1/users/me/android_gcm_reg_id (Zulip operationId `remove-fcm-token`).
 * Not implemented yet: answers 501 until its issue lands.
 */
export const removeFcmToken = defineOperation<Record<string, unknown>>({
  name: 'removeFcmToken',
  method: 'DELETE',
  path: '/users/me/android_gcm_reg_id',
  operationId: 'remove-fcm-token',
  params: [],
  handler: ({ state }) => failure(state, zulipError('Not implemented', 'NOT_IMPLEMENTED', 501)),
});
void z;
