import { z } from 'zod';
import { zulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure } from '../../core/result';

/**
 * POST /api/v1/streams/{stream_id}/delete_topic (Zulip operationId `delete-topic`).
 * Not implemented yet: answers 501 until its issue lands.
 */
export const deleteTopic = defineOperation<Record<string, unknown>>({
  name: 'deleteTopic',
  method: 'POST',
  path: '/streams/{stream_id}/delete_topic',
  operationId: 'delete-topic',
  pathParams: ['stream_id'],
  params: [param('stream_id', z.int(), { required: true }), ],
  handler: ({ state }) => failure(state, zulipError('Not implemented', 'NOT_IMPLEMENTED', 501)),
});
void z;
