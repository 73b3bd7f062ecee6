import { to, type AddressedEvent } from '../events';
import type { RealmState } from '../state';
import { edit, success, type OpResult } from '../result';

/** Zulip's `AlertWord.MAX_ALERT_WORD_LENGTH`. */
export const MAX_ALERT_WORD_LENGTH = 100;

/**
 * Stores a user's new alert word list and answers with it (`{alert_words}`); an unchanged list
 * keeps the same state and sends nothing, otherwise the user gets an `alert_words` event.
 */
export function saveAlertWords(
  state: RealmState,
  userId: number,
  words: readonly string[],
  ignored: readonly string[],
): OpResult {
  const before = state.alertWords.get(userId) ?? [];
  const data = { alert_words: [...words] };
  if (words.length === before.length && words.every((w, i) => w === before[i]))
    return success(state, { data, ignored });
  const next = edit(state, (draft) => {
    draft.alertWords =
      words.length > 0 ? draft.alertWords.set(userId, words) : draft.alertWords.delete(userId);
  });
  const event: AddressedEvent = to([userId], { type: 'alert_words', alert_words: [...words] });
  return success(next, { data, ignored, events: [event] });
}
