import { z } from 'zod';
import { zulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure } from '../../core/result';

/**
 * PATCH /api/v1/streams/{stream_id} (Zulip operationId `update-stream`).
 * Not implemented yet: answers 501 until its issue lands.
 */
export const editChannel = defineOperation<Record<string, unknown>>({
  name: 'editChannel',
  method: 'PATCH',
  path: '/streams/{stream_id}',
  operationId: 'update-stream',
  pathParams: ['stream_id'],
  params: [param('stream_id', z.int(), { required: true }), ],
  handler: ({ state }) => failure(state, zulipError('Not implemented', 'NOT_IMPLEMENTED', 501)),
});
void z;
