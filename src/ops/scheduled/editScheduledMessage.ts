import { z } from 'zod';
import { zulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure } from '../../core/result';

/**
 * PATCH /api/v1/scheduled_messages/{scheduled_message_id} (Zulip operationId `update-scheduled-message`).
 * Not implemented yet: answers 501 until its issue lands.
 */
export const editScheduledMessage = defineOperation<Record<string, unknown>>({
  name: 'editScheduledMessage',
  method: 'PATCH',
  path: '/scheduled_messages/{scheduled_message_id}',
  operationId: 'update-scheduled-message',
  pathParams: ['scheduled_message_id'],
  params: [param('scheduled_message_id', z.int(), { required: true }), ],
  handler: ({ state }) => failure(state, zulipError('Not implemented', 'NOT_IMPLEMENTED', 501)),
});
void z;
