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

/**
 * `personalFlags` for every recipient at once, OR-ed into `flags` (parallel to `userIds`, where
 * `indexOf` finds a user). Each setting is read from whichever side is smaller: the recipients (a
 * lookup each) or the users who have the setting at all (muters, users with alert words: usually
 * few), so a large channel costs no lookup per recipient when few users mute anyone or keep alert
 * words. Module-level helpers, no closures: this runs on every send.
 */
export function addPersonalFlags(
  state: RealmState,
  userIds: readonly number[],
  flags: Uint16Array,
  senderId: number,
  content: string,
  indexOf: (userIds: readonly number[], userId: number) => number,
): void {
  const n = userIds.length;
  const { mutedUsers, alertWords } = state;
  const read = FLAG_BITS.read;
  // An empty map (most realms mute no one) is not iterated: its iterator alone is two generators.
  if (mutedUsers.size > 0 && mutedUsers.size <= n) {
    for (const [userId, muted] of mutedUsers) {
      if (!mutes(userId, muted, senderId)) continue;
      const k = indexOf(userIds, userId);
      if (k >= 0) flags[k] = flags[k]! | read;
    }
  } else if (mutedUsers.size > n) {
    for (let k = 0; k < n; k++) {
      const muted = mutedUsers.get(userIds[k]!);
      if (muted !== undefined && mutes(userIds[k]!, muted, senderId)) flags[k] = flags[k]! | read;
    }
  }
  if (alertWords.size === 0) return;
  const alert = FLAG_BITS.has_alert_word;
  let lowered: string | undefined;
  if (alertWords.size <= n) {
    for (const [userId, words] of alertWords) {
      if (words.length === 0) continue;
      const k = indexOf(userIds, userId);
      if (k >= 0 && alerts(words, (lowered ??= content.toLowerCase()))) flags[k] = flags[k]! | alert;
    }
  } else {
    for (let k = 0; k < n; k++) {
      const words = alertWords.get(userIds[k]!);
      if (words !== undefined && alerts(words, (lowered ??= content.toLowerCase())))
        flags[k] = flags[k]! | alert;
    }
  }
}

function mutes(userId: number, muted: readonly { id: number }[], senderId: number): boolean {
  if (userId === senderId) return false;
  for (const m of muted) if (m.id === senderId) return true;
  return false;
}

function alerts(words: readonly string[], lowered: string): boolean {
  for (const w of words) if (hasAlertWord(lowered, w.toLowerCase())) return true;
  return false;
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
