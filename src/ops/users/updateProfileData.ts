import { z } from 'zod';
import { zulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure } from '../../core/result';

/**
 * PATCH /api/v1/users/me/profile_data (Zulip operationId `update-profile-data`).
 * Not implemented yet: answers 501 until its issue lands.
 */
export const updateProfileData = defineOperation<Record<string, unknown>>({
  name: 'updateProfileData',
  method: 'PATCH',
  path: '/users/me/profile_data',
  operationId: 'update-profile-data',
  params: [],
  handler: ({ state }) => failure(state, zulipError('Not implemented', 'NOT_IMPLEMENTED', 501)),
});
void z;
