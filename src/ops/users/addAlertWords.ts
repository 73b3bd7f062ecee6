import * as z from 'zod/mini';
import { errors } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure } from '../../core/result';
import { pythonStrip } from '../../core/text/whitespace';
import { MAX_ALERT_WORD_LENGTH, saveAlertWords } from '../../core/users/alert-words';

/**
 * POST /api/v1/users/me/alert_words — https://zulip.com/api/add-alert-words
 * (zerver/views/alert_words.py `add_alert_words`, zerver/lib/alert_words.py `add_user_alert_words`)
 *
 * Adds alert words: each at most 100 characters (checked before stripping, as Zulip's parser
 * does), stripped, blanks dropped; a word already held in any case is skipped, and of several
 * new spellings of one word the last one is kept, in the place of the first. Answers with the
 * whole list; the caller gets an `alert_words` event when it changed.
 *
 * @example
 * ```ts
 * const r = addAlertWords(realm, { userId: 4 }, { alert_words: ['lunch', ' Deploy '] });
 * expect(r.body['alert_words']).toEqual(['lunch', 'Deploy']);
 * ```
 */
export const addAlertWords = defineOperation({
  name: 'addAlertWords',
  method: 'POST',
  path: '/users/me/alert_words',
  operationId: 'add-alert-words',
  params: [
    param('alert_words', z.array(z.string().check(z.maxLength(MAX_ALERT_WORD_LENGTH))), { required: true }),
  ],
  handler: ({ state, user, params, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    const held = state.alertWords.get(user.user_id) ?? [];
    const known = new Set(held.map((w) => w.toLowerCase()));
    // A Map keeps the first position of a key and the last value set for it, as Python's dict.
    const added = new Map<string, string>();
    for (const raw of params.alert_words) {
      const word = pythonStrip(raw);
      if (word === '' || known.has(word.toLowerCase())) continue;
      added.set(word.toLowerCase(), word);
    }
    return saveAlertWords(state, user.user_id, [...held, ...added.values()], ignored);
  },
});
