import * as z from 'zod/mini';
import { errors } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure } from '../../core/result';
import { saveAlertWords } from '../../core/users/alert-words';

/**
 * DELETE /api/v1/users/me/alert_words — https://zulip.com/api/remove-alert-words
 * (zerver/views/alert_words.py `remove_alert_words`, zerver/lib/alert_words.py
 * `remove_user_alert_words`)
 *
 * Removes the caller's alert words equal to any given word, ignoring case (not stripped; words
 * not held are ignored). Answers with the remaining list; the caller gets an `alert_words` event
 * when it changed.
 *
 * @example
 * ```ts
 * const added = addAlertWords(realm, { userId: 4 }, { alert_words: ['lunch', 'deploy'] });
 * const r = removeAlertWords(added.state, { userId: 4 }, { alert_words: ['LUNCH'] });
 * expect(r.body['alert_words']).toEqual(['deploy']);
 * ```
 */
export const removeAlertWords = defineOperation({
  name: 'removeAlertWords',
  method: 'DELETE',
  path: '/users/me/alert_words',
  operationId: 'remove-alert-words',
  params: [param('alert_words', z.array(z.string()), { required: true })],
  handler: ({ state, user, params, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    const gone = new Set(params.alert_words.map((w) => w.toLowerCase()));
    const held = state.alertWords.get(user.user_id) ?? [];
    return saveAlertWords(
      state,
      user.user_id,
      held.filter((w) => !gone.has(w.toLowerCase())),
      ignored,
    );
  },
});
