import { defineOperation } from '../../core/operation';
import { success } from '../../core/result';
import { fieldsInOrder, formatCustomProfileField } from '../../core/users/custom-profile-fields';

/**
 * GET /api/v1/realm/profile_fields — https://zulip.com/api/get-custom-profile-fields
 * (zerver/views/custom_profile_fields.py `list_realm_custom_profile_fields`)
 *
 * The realm's custom profile fields in their display order, each as register's
 * `custom_profile_fields` gives it. Open to every user, guests included.
 *
 * @example
 * ```ts
 * const r = getCustomProfileFields(realm, { userId: 4 });
 * expect(r.body).toMatchObject({ custom_fields: expect.any(Array) });
 * ```
 */
export const getCustomProfileFields = defineOperation({
  name: 'getCustomProfileFields',
  method: 'GET',
  path: '/realm/profile_fields',
  operationId: 'get-custom-profile-fields',
  params: [],
  handler: ({ state, ignored }) =>
    success(state, { ignored, data: { custom_fields: fieldsInOrder(state).map(formatCustomProfileField) } }),
});
