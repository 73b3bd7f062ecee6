import { z } from 'zod';
import { zulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure } from '../../core/result';

/**
 * GET /api/v1/realm/linkifiers (Zulip operationId `get-linkifiers`).
 * Not implemented yet: answers 501 until its issue lands.
 */
export const getLinkifiers = defineOperation<Record<string, unknown>>({
  name: 'getLinkifiers',
  method: 'GET',
  path: '/realm/linkifiers',
  operationId: 'get-linkifiers',
  params: [],
  handler: ({ state }) => failure(state, zulipError('Not implemented', 'NOT_IMPLEMENTED', 501)),
});
void z;
