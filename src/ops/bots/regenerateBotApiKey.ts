import { z } from 'zod';
import { zulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure } from '../../core/result';

/**
 * POST /api/v1/bots/{bot_id}/api_key/regenerate (Zulip operationId `regenerate-bot-api-key`).
 * Not implemented yet: answers 501 until its issue lands.
 */
export const regenerateBotApiKey = defineOperation<Record<string, unknown>>({
  name: 'regenerateBotApiKey',
  method: 'POST',
  path: '/bots/{bot_id}/api_key/regenerate',
  operationId: 'regenerate-bot-api-key',
  pathParams: ['bot_id'],
  params: [param('bot_id', z.int(), { required: true }), ],
  handler: ({ state }) => failure(state, zulipError('Not implemented', 'NOT_IMPLEMENTED', 501)),
});
void z;
