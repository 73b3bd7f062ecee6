import { z } from 'zod';
import { zulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure } from '../../core/result';

/**
 * DELETE /api/v1/bot_storage (Zulip operationId `remove-bot-storage`).
 * Not implemented yet: answers 501 until its issue lands.
 */
export const deleteBotStorage = defineOperation<Record<string, unknown>>({
  name: 'deleteBotStorage',
  method: 'DELETE',
  path: '/bot_storage',
  operationId: 'remove-bot-storage',
  params: [],
  handler: ({ state }) => failure(state, zulipError('Not implemented', 'NOT_IMPLEMENTED', 501)),
});
void z;
