import { z } from 'zod';
import { zulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure } from '../../core/result';

/**
 * POST /api/v1/realm/profile_fields (Zulip operationId `create-custom-profile-field`).
 * Not implemented yet: answers 501 until its issue lands.
 */
export const createCustomProfileField = defineOperation<Record<string, unknown>>({
  name: 'createCustomProfileField',
  method: 'POST',
  path: '/realm/profile_fields',
  operationId: 'create-custom-profile-field',
  params: [],
  handler: ({ state }) => failure(state, zulipError('Not implemented', 'NOT_IMPLEMENTED', 501)),
});
void z;
