import { getRowFlags, lowerBoundFrom, type UserRows } from './rows';

/**
 * Each listed message's row flags for one user (-1: no row), into `out`. Ids usually arrive
 * ascending (clients send a selection in id order): then one cursor walks the row chunks forward,
 * galloping within a chunk, instead of a binary search from scratch per id. Any other order falls
 * back to a search per id. Returns whether the ids were strictly ascending (so also distinct).
 */
export function lookUpRowFlags(rows: UserRows, ids: readonly number[], out: Int32Array): boolean {
  const chunks = rows.chunks;
  let ci = 0;
  let pos = 0;
  let prev = -Infinity;
  let ascending = true;
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k]!;
    if (!(id > prev)) ascending = false;
    prev = id;
    if (!ascending) {
      out[k] = getRowFlags(rows, id) ?? -1;
      continue;
    }
    while (ci + 1 < chunks.length && chunks[ci + 1]!.ids[0]! <= id) {
      ci++;
      pos = 0;
    }
    const c = chunks[ci];
    if (c === undefined) {
      out[k] = -1;
      continue;
    }
    pos = c.ids[pos]! >= id ? pos : lowerBoundFrom(c.ids, id, pos);
    out[k] = pos < c.ids.length && c.ids[pos] === id ? c.flags[pos]! : -1;
  }
  return ascending;
}
