import { errors } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { failure, success } from '../../core/result';

/**
 * GET /api/v1/users/me/alert_words — https://zulip.com/api/get-alert-words
 *
 * Zulip's `list_alert_words`: the caller's alert words, in the order they were added, as
 * register's `alert_words`.
 *
 * @example
 * ```ts
 * expect(getAlertWords(realm, { userId: 4 }).body).toEqual({ result: 'success', msg: '', alert_words: [] });
 * ```
 */
export const getAlertWords = defineOperation({
  name: 'getAlertWords',
  method: 'GET',
  path: '/users/me/alert_words',
  operationId: 'get-alert-words',
  params: [],
  handler: ({ state, user, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    return success(state, {
      data: { alert_words: [...(state.alertWords.get(user.user_id) ?? [])] },
      ignored,
    });
  },
});
