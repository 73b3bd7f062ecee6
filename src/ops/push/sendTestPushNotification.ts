import { z } from 'zod';
import { zulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure } from '../../core/result';

/**
 * POST /api/v1/mobile_push/test_notification (Zulip operationId `test-notify`).
 * Not implemented yet: answers 501 until its issue lands.
 */
export const sendTestPushNotification = defineOperation<Record<string, unknown>>({
  name: 'sendTestPushNotification',
  method: 'POST',
  path: '/mobile_push/test_notification',
  operationId: 'test-notify',
  params: [],
  handler: ({ state }) => failure(state, zulipError('Not implemented', 'NOT_IMPLEMENTED', 501)),
});
void z;
