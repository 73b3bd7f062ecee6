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

/** Builds rows from ids in ascending order and their flags. */
export function buildRows(ids: ArrayLike<number>, flags: ArrayLike<number>): UserRows {
  const chunks: RowChunk[] = [];
  for (let start = 0; start < ids.length; start += ROW_CHUNK) {
    const end = Math.min(ids.length, start + ROW_CHUNK);
    const c = { ids: new Int32Array(end - start), flags: new Uint16Array(end - start) };
    for (let i = start; i < end; i++) {
      c.ids[i - start] = ids[i]!;
      c.flags[i - start] = flags[i]!;
    }
    chunks.push(c);
  }
  return { chunks, count: ids.length };
}

/** The chunk that would hold `id`: the last chunk whose first id is ≤ id (0 when none). */
export function chunkIndexFor(rows: UserRows, id: number): number {
  let lo = 0;
  let hi = rows.chunks.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (rows.chunks[mid]!.ids[0]! <= id) lo = mid;
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
  let ci = -1;
  let copy: Uint16Array | undefined;
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k]!;
    const idx = chunkIndexFor(rows, id);
    const chunk = rows.chunks[idx];
    if (chunk === undefined) continue;
    const i = lowerBound(chunk.ids, id);
    if (i >= chunk.ids.length || chunk.ids[i] !== id) continue;
    const old = (idx === ci && copy ? copy[i] : chunk.flags[i])!;
    const next = (old | set) & ~clear;
    if (next === old) continue;
    if (idx !== ci) {
      chunks ??= rows.chunks.slice();
      ci = idx;
      copy = chunk.flags.slice();
      chunks[idx] = { ids: chunk.ids, flags: copy };
    }
    copy![i] = next;
  }
  return chunks ? { chunks, count: rows.count } : rows;
}

/** Inserts rows (ascending ids not already present) with their flags. */
export function insertRows(rows: UserRows, ids: readonly number[], flags: readonly number[]): UserRows {
  if (ids.length === 0) return rows;
  const all = toArrays(rows);
  const mergedIds: number[] = [];
  const mergedFlags: number[] = [];
  let a = 0;
  let b = 0;
  while (a < all.ids.length || b < ids.length) {
    if (b >= ids.length || (a < all.ids.length && all.ids[a]! < ids[b]!)) {
      mergedIds.push(all.ids[a]!);
      mergedFlags.push(all.flags[a]!);
      a++;
    } else {
      mergedIds.push(ids[b]!);
      mergedFlags.push(flags[b]!);
      b++;
    }
  }
  return buildRows(mergedIds, mergedFlags);
}

/**
 * Removes the rows of the given message ids; untouched chunks are shared. Costs one binary search
 * per id plus the size of the chunks that lose a row.
 */
export function deleteRows(rows: UserRows, ids: ReadonlySet<number>): UserRows {
  if (rows.count === 0) return rows;
  const touched = new Set<number>();
  for (const id of ids) {
    const idx = chunkIndexFor(rows, id);
    const chunk = rows.chunks[idx]!;
    const i = lowerBound(chunk.ids, id);
    if (i < chunk.ids.length && chunk.ids[i] === id) touched.add(idx);
  }
  if (touched.size === 0) return rows;
  let count = 0;
  const chunks: RowChunk[] = [];
  rows.chunks.forEach((chunk, idx) => {
    if (!touched.has(idx)) {
      chunks.push(chunk);
      count += chunk.ids.length;
      return;
    }
    const keep: number[] = [];
    for (let i = 0; i < chunk.ids.length; i++) if (!ids.has(chunk.ids[i]!)) keep.push(i);
    if (keep.length === 0) return;
    const c = { ids: new Int32Array(keep.length), flags: new Uint16Array(keep.length) };
    keep.forEach((i, j) => {
      c.ids[j] = chunk.ids[i]!;
      c.flags[j] = chunk.flags[i]!;
    });
    chunks.push(c);
    count += keep.length;
  });
  return { chunks, count };
}

function toArrays(rows: UserRows): { ids: Int32Array; flags: Uint16Array } {
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
