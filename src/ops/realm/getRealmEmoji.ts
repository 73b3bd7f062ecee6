import { allRealmEmoji } from '../../core/emoji/realm-emoji';
import { errors } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { failure, success } from '../../core/result';

/**
 * GET /api/v1/realm/emoji — https://zulip.com/api/get-custom-emoji
 *
 * Zulip's `list_emoji`: the realm's custom emoji by id, deactivated ones included
 * (`get_all_custom_emoji_for_realm`), as register's `realm_emoji`. Custom emoji come from the
 * snapshot (`realm_emoji`); uploading one is not offered (docs/differences/everyday.md).
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
    return success(state, { data: { emoji: allRealmEmoji(state) }, ignored });
  },
});
