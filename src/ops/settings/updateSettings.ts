import { z } from 'zod';
import { zulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure } from '../../core/result';

/**
 * PATCH /api/v1/settings (Zulip operationId `update-settings`).
 * Not implemented yet: answers 501 until its issue lands.
 */
export const updateSettings = defineOperation<Record<string, unknown>>({
  name: 'updateSettings',
  method: 'PATCH',
  path: '/settings',
  operationId: 'update-settings',
  params: [],
  handler: ({ state }) => failure(state, zulipError('Not implemented', 'NOT_IMPLEMENTED', 501)),
});
void z;
