import { z } from 'zod';
import { zulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure } from '../../core/result';

/**
 * GET /api/v1/users (Zulip operationId `get-users`).
 * Not implemented yet: answers 501 until its issue lands.
 */
export const getUsers = defineOperation<Record<string, unknown>>({
  name: 'getUsers',
  method: 'GET',
  path: '/users',
  operationId: 'get-users',
  params: [],
  handler: ({ state }) => failure(state, zulipError('Not implemented', 'NOT_IMPLEMENTED', 501)),
});
void z;
