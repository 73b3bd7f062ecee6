import { z } from 'zod';
import { zulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure } from '../../core/result';

/**
 * PATCH /api/v1/user_groups/{user_group_id} (Zulip operationId `update-user-group`).
 * Not implemented yet: answers 501 until its issue lands.
 */
export const editUserGroup = defineOperation<Record<string, unknown>>({
  name: 'editUserGroup',
  method: 'PATCH',
  path: '/user_groups/{user_group_id}',
  operationId: 'update-user-group',
  pathParams: ['user_group_id'],
  params: [param('user_group_id', z.int(), { required: true }), ],
  handler: ({ state }) => failure(state, zulipError('Not implemented', 'NOT_IMPLEMENTED', 501)),
});
void z;
