import { FLAG_BITS } from './flags';
import { carryRowHolders } from './row-holders';
import { getRowFlags, updateRowFlags, type RowChunk, type UserRows } from './rows';
import type { MessageStore } from './store';

/**
 * The mark-as-read family (Zulip's `do_mark_all_as_read`, `do_mark_stream_messages_as_read`): only
 * rows the user holds change (a message without a row is already read), so no row is ever
 * created; the unread rows are found from the user's rows and the store's indexes, never by
 * walking the organization's messages.
 */

/** The user's unread rows among `ids` (ascending), ascending. */
export function unreadAmong(rows: UserRows, ids: readonly number[]): number[] {
  const out: number[] = [];
  for (const id of ids) {
    const f = getRowFlags(rows, id);
    if (f !== undefined && (f & FLAG_BITS.read) === 0) out.push(id);
  }
  return out;
}

/**
 * Every unread row of the user set read in one pass: each chunk holding an unread row is copied
 * once; `ids` lists the changed rows, ascending. The same rows object when all were read.
 */
export function readAllRows(rows: UserRows): { rows: UserRows; ids: number[] } {
  const ids: number[] = [];
  let chunks: RowChunk[] | null = null;
  const read = FLAG_BITS.read;
  for (let ci = 0; ci < rows.chunks.length; ci++) {
    const chunk = rows.chunks[ci]!;
    const flags = chunk.flags;
    let copy: Uint16Array | null = null;
    for (let i = 0; i < flags.length; i++) {
      const f = flags[i]!;
      if ((f & read) !== 0) continue;
      copy ??= flags.slice();
      copy[i] = f | read;
      ids.push(chunk.ids[i]!);
    }
    if (copy !== null) {
      chunks ??= rows.chunks.slice();
      chunks[ci] = { ids: chunk.ids, flags: copy };
    }
  }
  return { rows: chunks === null ? rows : { chunks, count: rows.count }, ids };
}

/** The store with the user's rows replaced (row holders carried; no row is created). */
export function withUserRows(store: MessageStore, userId: number, rows: UserRows): MessageStore {
  // The table answers the same table for the rows it holds (a view of a tail need not be the same object).
  const rowsByUser = store.rows.set(userId, rows);
  if (rowsByUser === store.rows) return store;
  carryRowHolders(store, rowsByUser);
  return store.with({ rows: rowsByUser });
}

/** The store with the read flag set on the user's rows for `ids` (ascending, all held). */
export function markRowsRead(store: MessageStore, userId: number, ids: readonly number[]): MessageStore {
  const rows = store.rows.get(userId);
  if (rows === undefined || ids.length === 0) return store;
  return withUserRows(store, userId, updateRowFlags(rows, ids, FLAG_BITS.read, 0));
}
