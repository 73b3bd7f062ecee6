import { z } from 'zod';
import { zulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure } from '../../core/result';

/**
 * POST /api/v1/messages/flags/narrow (Zulip operationId `update-message-flags-for-narrow`).
 * Not implemented yet: answers 501 until its issue lands.
 */
export const updateMessageFlagsForNarrow = defineOperation<Record<string, unknown>>({
  name: 'updateMessageFlagsForNarrow',
  method: 'POST',
  path: '/messages/flags/narrow',
  operationId: 'update-message-flags-for-narrow',
  params: [],
  handler: ({ state }) => failure(state, zulipError('Not implemented', 'NOT_IMPLEMENTED', 501)),
});
void z;
