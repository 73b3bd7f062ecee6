import { FLAG_BITS } from './flags';
import { carryRowHolders } from './row-holders';
import { EMPTY_ROWS, insertRows, updateRowFlags, type RowChunk, type UserRows } from './rows';
import type { MessageStore } from './store';

/**
 * Zulip's `do_update_message_flags` on the store, for one user and one editable flag: messages
 * without a row count as {read, historical}; messages already in the target state are skipped;
 * when the target differs from {read, historical} (adding starred/collapsed, removing read), rows
 * are created for messages lacking one ("historical" rows). Copies only the touched row chunks.
 */
export interface FlagChange {
  readonly store: MessageStore;
  /** Ids whose flag changed, ascending. */
  readonly changed: number[];
  /** Ids among `changed` that got a new historical row. */
  readonly created: number[];
}

const DEFAULT_HISTORICAL = FLAG_BITS.read | FLAG_BITS.historical;

/**
 * `ids` ascending, `flags[k]` the current row flags of `ids[k]` (-1 when the user has no row);
 * `isPrivate(id)` tells whether a message is a direct message (for the bit on created rows).
 */
export function changeFlag(
  store: MessageStore,
  userId: number,
  ids: ArrayLike<number>,
  flags: ArrayLike<number>,
  bit: number,
  add: boolean,
  isPrivate: (id: number) => boolean,
  /** Row positions in the user's current rows (`chunk * 65536 + index`, -1 without a row), when known. */
  positions?: ArrayLike<number>,
): FlagChange {
  // Sized once (at most every id changes) and trimmed at the end: growing it by `push` allocated
  // about twice the final array per request. (V8 makes a very long `new Array(n)` a dictionary.)
  const changed: number[] = ids.length <= 65536 ? new Array<number>(ids.length) : [];
  let nChanged = 0;
  const existing: number[] = [];
  const created: number[] = [];
  const createdFlags: number[] = [];
  const createRows = add ? (DEFAULT_HISTORICAL & bit) === 0 : (DEFAULT_HISTORICAL & bit) !== 0;
  const before = store.rows.get(userId) ?? EMPTY_ROWS;
  // With known positions the rows are updated in this same pass: one copy per touched chunk.
  let chunks: RowChunk[] | undefined;
  let copiedAt = -1;
  let copy: Uint16Array | undefined;
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k]!;
    const f = flags[k]!;
    const current = f < 0 ? DEFAULT_HISTORICAL : f;
    if (((current & bit) !== 0) === add) continue;
    changed[nChanged++] = id;
    if (f >= 0) {
      if (positions === undefined) {
        existing.push(id);
        continue;
      }
      const p = positions[k]!;
      const idx = p >>> 16;
      if (idx !== copiedAt) {
        chunks ??= before.chunks.slice();
        const chunk = chunks[idx]!;
        if (chunk === before.chunks[idx]) {
          copy = chunk.flags.slice();
          chunks[idx] = { ids: chunk.ids, flags: copy };
        } else copy = chunk.flags;
        copiedAt = idx;
      }
      copy![p & 0xffff] = add ? f | bit : f & ~bit;
    } else if (createRows) {
      created.push(id);
      createdFlags.push(
        (add ? DEFAULT_HISTORICAL | bit : DEFAULT_HISTORICAL & ~bit) |
          (isPrivate(id) ? FLAG_BITS.is_private : 0),
      );
    }
  }
  changed.length = nChanged;
  if (nChanged === 0) return { store, changed, created };
  let rows: UserRows = chunks ? { chunks, count: before.count } : before;
  if (existing.length > 0) rows = updateRowFlags(rows, existing, add ? bit : 0, add ? 0 : bit);
  if (created.length > 0) rows = insertRows(rows, created, createdFlags);
  const rowsByUser = store.rows.set(userId, rows);
  // Created rows may make the user a holder of a channel they had no row in.
  carryRowHolders(store, rowsByUser, userId, created);
  return { store: { ...store, rows: rowsByUser }, changed, created };
}
