import { errors } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { failure, success } from '../../core/result';

/**
 * GET /api/v1/realm/emoji — https://zulip.com/api/get-custom-emoji
 *
 * Zulip's `list_emoji`: the realm's custom emoji by id (`get_all_custom_emoji_for_realm`). The
 * engine holds no custom emoji yet (docs/differences/everyday.md), so this is Zulip's answer for
 * a realm without any: `{}`, as register's `realm_emoji`.
 *
 * @example
 * ```ts
 * expect(getRealmEmoji(realm, { userId: 4 }).body).toEqual({ result: 'success', msg: '', emoji: {} });
 * ```
 */
export const getRealmEmoji = defineOperation({
  name: 'getRealmEmoji',
  method: 'GET',
  path: '/realm/emoji',
  operationId: 'get-custom-emoji',
  params: [],
  handler: ({ state, user, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    return success(state, { data: { emoji: {} as Record<string, never> }, ignored });
  },
});
