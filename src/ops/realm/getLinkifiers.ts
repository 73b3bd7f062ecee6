import { errors } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { failure, success } from '../../core/result';

/**
 * GET /api/v1/realm/linkifiers — https://zulip.com/api/get-linkifiers
 *
 * The realm's linkifiers in processing order (the order PATCH /realm/linkifiers sets), each with
 * every field the current server sends: `example_input`, `reverse_template` and
 * `alternative_url_templates` (reverse linkifiers, newer than the OpenAPI document) besides
 * `id`, `pattern` and `url_template`. Any authenticated user may call it. Zulip's view does not
 * use the typed-parameter mechanism, so extra parameters are silently ignored (never reported).
 *
 * @example
 * ```ts
 * const r = getLinkifiers(realm, { userId: 4 });
 * expect(r.body['linkifiers']).toHaveLength(2);
 * ```
 */
export const getLinkifiers = defineOperation({
  name: 'getLinkifiers',
  method: 'GET',
  path: '/realm/linkifiers',
  operationId: 'get-linkifiers',
  params: [],
  reportsIgnored: false,
  handler: ({ state, user }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    const linkifiers = state.linkifiers.map((l) => ({
      pattern: l.pattern,
      url_template: l.url_template,
      id: l.id,
      example_input: l.example_input,
      reverse_template: l.reverse_template,
      alternative_url_templates: [...l.alternative_url_templates],
    }));
    return success(state, { data: { linkifiers } });
  },
});
