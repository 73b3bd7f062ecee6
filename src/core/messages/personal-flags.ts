import type { RealmState } from '../state';
import { FLAG_BITS } from './flags';

/**
 * The per-recipient flags a user's own settings add to a new message in `do_send_messages`:
 * `read` when the recipient muted the sender (`muted_sender_user_ids`, from `get_muting_users`),
 * `has_alert_word` when one of the recipient's alert words occurs in the content (Zulip's
 * `AlertWordNotificationProcessor`). Two map lookups per recipient: the cost follows the
 * recipients, as the rest of delivery does.
 */
export function personalFlags(
  state: RealmState,
  userId: number,
  senderId: number,
  lowered: () => string,
): number {
  let flags = 0;
  if (userId !== senderId && (state.mutedUsers.get(userId) ?? []).some((m) => m.id === senderId))
    flags |= FLAG_BITS.read;
  const words = state.alertWords.get(userId);
  if (words !== undefined && words.some((w) => hasAlertWord(lowered(), w.toLowerCase())))
    flags |= FLAG_BITS.has_alert_word;
  return flags;
}

// zerver/lib/markdown: `allowed_before_punctuation` / `allowed_after_punctuation`.
const BEFORE = new Set([' ', '\n', '(', '"', '.', ',', "'", ';', '[', '*', '`', '>']);
const AFTER = new Set([' ', '\n', ')', '"', '?', ':', '.', ',', "'", ';', ']', '!', '*', '`']);

/**
 * Whether `word` (lower-cased) occurs in `content` (lower-cased, raw Markdown) as Zulip counts
 * it: at the start or after a space or one of a few punctuation marks, and at the end or before
 * one of a few others. So `foo` matches "Foo!" and "(foo)" but not "foobar" or "#foo".
 */
export function hasAlertWord(content: string, word: string): boolean {
  if (word === '') return false;
  for (let i = content.indexOf(word); i >= 0; i = content.indexOf(word, i + 1)) {
    const before = i === 0 ? undefined : content[i - 1];
    const after = content[i + word.length];
    if ((before === undefined || BEFORE.has(before)) && (after === undefined || AFTER.has(after)))
      return true;
  }
  return false;
}
