import { FLAG_BITS } from './flags';
import { carryRowHolders } from './row-holders';
import { insertRows, type UserRows } from './rows';
import type { MessageStore } from './store';

/**
 * Zulip's `do_update_message_flags` on the store, for one user and one editable flag: messages
 * without a row count as {read, historical}; messages already in the target state are skipped;
 * when the target differs from {read, historical} (adding starred/collapsed, removing read), rows
 * are created for messages lacking one ("historical" rows).
 *
 * The existing rows are flipped by a `RowFlip` (copy-on-write, usually while the window is
 * scanned); this module says which messages change and puts the result into the store.
 */

/** Flags of a message the user has no row for (Zulip treats it as read and historical). */
export const DEFAULT_HISTORICAL = FLAG_BITS.read | FLAG_BITS.historical;

/** Whether a message without a row changes (and so gets a row): its default flags differ from the target. */
export function createsRows(bit: number, add: boolean): boolean {
  return ((DEFAULT_HISTORICAL & bit) !== 0) !== add;
}

/** The flags of a row created for a message the user had none for. */
export function createdRowFlags(bit: number, add: boolean, isPrivate: boolean): number {
  return (
    (add ? DEFAULT_HISTORICAL | bit : DEFAULT_HISTORICAL & ~bit) | (isPrivate ? FLAG_BITS.is_private : 0)
  );
}

/**
 * The store with the user's new rows: `rows` (the user's rows `before`, flipped or not) plus the
 * created rows (ascending ids not already present, with their flags). The same store when nothing
 * changed.
 */
export function commitRows(
  store: MessageStore,
  userId: number,
  before: UserRows,
  rows: UserRows,
  created: readonly number[],
  createdFlags: readonly number[],
): MessageStore {
  if (created.length > 0) rows = insertRows(rows, created, createdFlags);
  else if (rows === before) return store;
  const rowsByUser = store.rows.set(userId, rows);
  // Created rows may make the user a holder of a channel they had no row in.
  carryRowHolders(store, rowsByUser, userId, created);
  return store.with({ rows: rowsByUser });
}
