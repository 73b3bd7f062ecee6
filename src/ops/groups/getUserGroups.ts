import * as z from 'zod/mini';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { success } from '../../core/result';
import { userGroupsForApi } from './group-members';

/**
 * GET /api/v1/user_groups — https://zulip.com/api/get-user-groups (zerver/views/user_groups.py
 * `get_user_groups`)
 *
 * Every user group of the realm, system groups included, by id, as register's
 * `realm_user_groups` lists them; deactivated groups only with `include_deactivated_groups`.
 * Open to every user, guests included (Zulip's view has no role check).
 *
 * @example
 * ```ts
 * const r = getUserGroups(realm, { userId: 4 });
 * expect(r.body).toMatchObject({ user_groups: expect.any(Array) });
 * ```
 */
export const getUserGroups = defineOperation({
  name: 'getUserGroups',
  method: 'GET',
  path: '/user_groups',
  operationId: 'get-user-groups',
  params: [param('include_deactivated_groups', z.boolean())],
  handler: ({ state, params, ignored }) =>
    success(state, {
      ignored,
      data: { user_groups: userGroupsForApi(state, params.include_deactivated_groups ?? false) },
    }),
});
