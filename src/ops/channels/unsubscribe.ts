import { z } from 'zod';
import { zulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure } from '../../core/result';

/**
 * DELETE /api/v1/users/me/subscriptions (Zulip operationId `unsubscribe`).
 * Not implemented yet: answers 501 until its issue lands.
 */
export const unsubscribe = defineOperation<Record<string, unknown>>({
  name: 'unsubscribe',
  method: 'DELETE',
  path: '/users/me/subscriptions',
  operationId: 'unsubscribe',
  params: [],
  handler: ({ state }) => failure(state, zulipError('Not implemented', 'NOT_IMPLEMENTED', 501)),
});
void z;
