import { z } from 'zod';
import { zulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure } from '../../core/result';

/**
 * GET /api/v1/users/me (Zulip operationId `get-own-user`).
 * Not implemented yet: answers 501 until its issue lands.
 */
export const getOwnUser = defineOperation<Record<string, unknown>>({
  name: 'getOwnUser',
  method: 'GET',
  path: '/users/me',
  operationId: 'get-own-user',
  params: [],
  handler: ({ state }) => failure(state, zulipError('Not implemented', 'NOT_IMPLEMENTED', 501)),
});
void z;
