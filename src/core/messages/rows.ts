/**
 * One user's UserMessage rows: ascending message ids with flag bits, in fixed-size typed-array
 * chunks. 6 bytes a row. A change copies only the chunks it touches (and the small chunk list), so
 * marking k rows copies O(k) memory and every older state keeps seeing its own flags.
 */
export const ROW_CHUNK = 2048;

export interface RowChunk {
  readonly ids: Int32Array;
  readonly flags: Uint16Array;
}

export interface UserRows {
  readonly chunks: readonly RowChunk[];
  readonly count: number;
}

export const EMPTY_ROWS: UserRows = { chunks: [], count: 0 };

/**
 * Builds rows from ids in ascending order and their flags. Typed-array input is sliced into views
 * (no copy): chunks are never written in place, so sharing the buffer is safe.
 */
export function buildRows(ids: ArrayLike<number>, flags: ArrayLike<number>): UserRows {
  const typedIds = ids instanceof Int32Array ? ids : Int32Array.from(ids);
  const typedFlags = flags instanceof Uint16Array ? flags : Uint16Array.from(flags);
  const chunks: RowChunk[] = [];
  for (let start = 0; start < typedIds.length; start += ROW_CHUNK) {
    const end = Math.min(typedIds.length, start + ROW_CHUNK);
    chunks.push({ ids: typedIds.subarray(start, end), flags: typedFlags.subarray(start, end) });
  }
  return { chunks, count: typedIds.length };
}

/** The chunk that would hold `id`: the last chunk whose first id is ≤ id (0 when none). */
export function chunkIndexFor(rows: UserRows, id: number): number {
  return Math.max(0, chunkContaining(rows.chunks, id));
}

/**
 * The last chunk whose first id is ≤ `id` (0 when `id` precedes them all), or -1 when there are no
 * chunks: the one binary search over id-sorted chunks, shared by rows, messages and the narrow cursors.
 */
export function chunkContaining(chunks: ReadonlyArray<{ readonly ids: Int32Array }>, id: number): number {
  let lo = 0;
  let hi = chunks.length - 1;
  if (hi < 0) return -1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (chunks[mid]!.ids[0]! <= id) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Index of the first element ≥ id in a sorted Int32Array. */
export function lowerBound(ids: Int32Array, id: number, from = 0, to = ids.length): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ids[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * `lowerBound` searched from a known position: the answer is usually at or just past `from` (a
 * cursor moving through a chunk in id order), so this gallops from there in the needed direction
 * (1, 2, 4, … steps) and binary-searches only the last gap. O(log distance) instead of O(log n).
 */
export function lowerBoundFrom(ids: Int32Array, id: number, from: number): number {
  const n = ids.length;
  if (n === 0) return 0;
  if (from >= n) from = n - 1;
  else if (from < 0) from = 0;
  if (ids[from]! < id) {
    // Forward: ids[lo - 1] < id holds throughout.
    let lo = from + 1;
    let hi = lo;
    let step = 1;
    while (hi < n && ids[hi]! < id) {
      lo = hi + 1;
      hi = lo + step;
      step <<= 1;
    }
    return lowerBound(ids, id, lo, hi > n ? n : hi);
  }
  // Backward: ids[hi] >= id holds throughout.
  let hi = from;
  let lo = hi - 1;
  let step = 1;
  while (lo >= 0 && ids[lo]! >= id) {
    hi = lo;
    lo = hi - step;
    step <<= 1;
  }
  return lowerBound(ids, id, lo < 0 ? 0 : lo + 1, hi);
}

/** The flag bits of the row for message `id`, or undefined when the user has no row. */
export function getRowFlags(rows: UserRows, id: number): number | undefined {
  if (rows.count === 0) return undefined;
  const chunk = rows.chunks[chunkIndexFor(rows, id)]!;
  const i = lowerBound(chunk.ids, id);
  return i < chunk.ids.length && chunk.ids[i] === id ? chunk.flags[i] : undefined;
}

/**
 * Sets and clears bits on the rows of the given message ids (ascending; ids without a row are
 * skipped). Returns the same object when nothing changed. Chunks are copied once each.
 */
export function updateRowFlags(rows: UserRows, ids: ArrayLike<number>, set: number, clear: number): UserRows {
  let chunks: RowChunk[] | undefined;
  let copiedAt = -1;
  let copy: Uint16Array | undefined;
  // A cursor: ids usually arrive ascending and close together, so the next row is found by a
  // step or a short search from the previous one instead of a binary search from scratch.
  let idx = -1;
  let chunk: RowChunk | undefined;
  let pos = 0;
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k]!;
    if (chunk === undefined || id < chunk.ids[0]! || id > chunk.ids[chunk.ids.length - 1]!) {
      if (rows.count === 0) break;
      idx = chunkIndexFor(rows, id);
      chunk = (chunks ?? rows.chunks)[idx]!;
      pos = 0;
      // Back in a chunk copied earlier (ids out of order): keep writing into that copy.
      if (chunks !== undefined && chunk !== rows.chunks[idx]) {
        copiedAt = idx;
        copy = chunk.flags;
      }
    }
    const cids = chunk.ids;
    if (cids[pos] !== id) pos = cids[pos + 1] === id ? pos + 1 : lowerBoundFrom(cids, id, pos);
    if (pos >= cids.length || cids[pos] !== id) continue;
    const old = (idx === copiedAt ? copy![pos] : chunk.flags[pos])!;
    const next = (old | set) & ~clear;
    if (next === old) continue;
    if (idx !== copiedAt) {
      chunks ??= rows.chunks.slice();
      copiedAt = idx;
      copy = chunk.flags.slice();
      chunks[idx] = { ids: chunk.ids, flags: copy };
    }
    copy![pos] = next;
  }
  return chunks ? { chunks, count: rows.count } : rows;
}

/**
 * Inserts rows (ascending ids not already present) with their flags. Only the chunks receiving
 * rows are rebuilt (a chunk grown past twice the chunk size is split), so inserting k rows costs
 * O(k + touched chunks), not O(all rows).
 */
export function insertRows(rows: UserRows, ids: ArrayLike<number>, flags: ArrayLike<number>): UserRows {
  if (ids.length === 0) return rows;
  if (rows.count === 0) return buildRows(ids, flags);
  const out: RowChunk[] = [];
  let k = 0;
  const n = rows.chunks.length;
  for (let ci = 0; ci < n; ci++) {
    const chunk = rows.chunks[ci]!;
    // Ids for this chunk: below the next chunk's first id (everything left for the last chunk).
    const limit = ci + 1 < n ? rows.chunks[ci + 1]!.ids[0]! : Infinity;
    let end = k;
    while (end < ids.length && ids[end]! < limit) end++;
    if (end === k) {
      out.push(chunk);
      continue;
    }
    const total = chunk.ids.length + (end - k);
    const mergedIds = new Int32Array(total);
    const mergedFlags = new Uint16Array(total);
    let a = 0;
    let b = k;
    for (let o = 0; o < total; o++) {
      if (b >= end || (a < chunk.ids.length && chunk.ids[a]! < ids[b]!)) {
        mergedIds[o] = chunk.ids[a]!;
        mergedFlags[o] = chunk.flags[a]!;
        a++;
      } else {
        mergedIds[o] = ids[b]!;
        mergedFlags[o] = flags[b]!;
        b++;
      }
    }
    if (total <= 2 * ROW_CHUNK) out.push({ ids: mergedIds, flags: mergedFlags });
    else for (const c of buildRows(mergedIds, mergedFlags).chunks) out.push(c);
    k = end;
  }
  return { chunks: out, count: rows.count + ids.length };
}

/**
 * Removes the rows of the given message ids; untouched chunks are shared. Costs one binary search
 * per id plus a block copy of the chunks that lose a row.
 */
export function deleteRows(rows: UserRows, ids: ReadonlySet<number>): UserRows {
  if (rows.count === 0) return rows;
  // chunk index → positions of the rows that go
  const touched = new Map<number, number[]>();
  for (const id of ids) {
    const idx = chunkIndexFor(rows, id);
    const chunk = rows.chunks[idx]!;
    const i = lowerBound(chunk.ids, id);
    if (i >= chunk.ids.length || chunk.ids[i] !== id) continue;
    const positions = touched.get(idx);
    if (positions) positions.push(i);
    else touched.set(idx, [i]);
  }
  if (touched.size === 0) return rows;
  let count = rows.count;
  const chunks: RowChunk[] = [];
  for (let idx = 0; idx < rows.chunks.length; idx++) {
    const chunk = rows.chunks[idx]!;
    const positions = touched.get(idx);
    if (positions === undefined) {
      chunks.push(chunk);
      continue;
    }
    count -= positions.length;
    const n = chunk.ids.length - positions.length;
    if (n === 0) continue;
    positions.sort((a, b) => a - b);
    const c = { ids: new Int32Array(n), flags: new Uint16Array(n) };
    // Copy the runs between removed rows as blocks.
    let from = 0;
    let j = 0;
    for (const p of positions) {
      c.ids.set(chunk.ids.subarray(from, p), j);
      c.flags.set(chunk.flags.subarray(from, p), j);
      j += p - from;
      from = p + 1;
    }
    c.ids.set(chunk.ids.subarray(from), j);
    c.flags.set(chunk.flags.subarray(from), j);
    chunks.push(c);
  }
  return { chunks, count };
}

export function toArrays(rows: UserRows): { ids: Int32Array; flags: Uint16Array } {
  const ids = new Int32Array(rows.count);
  const flags = new Uint16Array(rows.count);
  let o = 0;
  for (const c of rows.chunks) {
    ids.set(c.ids, o);
    flags.set(c.flags, o);
    o += c.ids.length;
  }
  return { ids, flags };
}

/** Visits every row in ascending id order. */
export function forEachRow(rows: UserRows, fn: (id: number, flags: number) => void): void {
  for (const c of rows.chunks) for (let i = 0; i < c.ids.length; i++) fn(c.ids[i]!, c.flags[i]!);
}
