import { lowerBound } from './rows';

/**
 * A persistent sorted list of message ids in fixed-size `Int32Array` chunks: the per-channel,
 * per-topic and per-conversation indexes of the message store. Chunks are never mutated; a removal
 * rebuilds only the chunks that lose an id, so older states keep their lists.
 */
export const ID_CHUNK = 4096;

export interface IdList {
  readonly chunks: readonly Int32Array[];
  readonly count: number;
}

export const EMPTY_IDS: IdList = { chunks: [], count: 0 };

/** Builds a list from ascending ids. */
export function buildIdList(ids: ArrayLike<number>, length = ids.length): IdList {
  const chunks: Int32Array[] = [];
  for (let start = 0; start < length; start += ID_CHUNK) {
    const end = Math.min(length, start + ID_CHUNK);
    const c = new Int32Array(end - start);
    for (let i = start; i < end; i++) c[i - start] = ids[i]!;
    chunks.push(c);
  }
  return { chunks, count: length };
}

/**
 * Removes the given ids; untouched chunks are shared. Each id's chunk is found by binary search, so
 * the cost is O(k log n) for k ids plus the size of the chunks that lose one, not the list's length.
 */
export function removeIds(list: IdList, ids: ReadonlySet<number>): IdList {
  if (list.count === 0 || ids.size === 0) return list;
  // chunk index → positions of its ids that go
  const touched = new Map<number, number[]>();
  for (const id of ids) {
    const ci = idChunkFor(list.chunks, id);
    const c = list.chunks[ci]!;
    const i = lowerBound(c, id);
    if (i < c.length && c[i] === id) {
      const positions = touched.get(ci);
      if (positions) positions.push(i);
      else touched.set(ci, [i]);
    }
  }
  if (touched.size === 0) return list;
  const chunks: Int32Array[] = [];
  let count = list.count;
  list.chunks.forEach((c, ci) => {
    const positions = touched.get(ci);
    if (positions === undefined) {
      chunks.push(c);
      return;
    }
    count -= positions.length;
    if (positions.length === c.length) return;
    positions.sort((x, y) => x - y);
    // Copy the runs between removed ids as blocks.
    const out = new Int32Array(c.length - positions.length);
    let from = 0;
    let j = 0;
    for (const p of positions) {
      out.set(c.subarray(from, p), j);
      j += p - from;
      from = p + 1;
    }
    out.set(c.subarray(from), j);
    chunks.push(out);
  });
  return { chunks, count };
}

/** Every id, ascending. */
export function idListToArray(list: IdList): number[] {
  const out: number[] = new Array<number>(list.count);
  let o = 0;
  for (const c of list.chunks) for (let i = 0; i < c.length; i++) out[o++] = c[i]!;
  return out;
}

/** The chunk that would hold `id`: the last chunk whose first id is ≤ id (0 when none). */
export function idChunkFor(chunks: readonly Int32Array[], id: number): number {
  let lo = 0;
  let hi = chunks.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (chunks[mid]![0]! <= id) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Adds ascending `ids` (ids already in the list are skipped). Only the chunks that take an id are
 * rebuilt (each found by binary search; one that outgrows twice the chunk size splits), the rest are
 * shared: O(k log n) plus the size of the touched chunks, never a rebuild of the whole list. This is
 * what a move between channels or topics uses to join the destination's lists.
 */
export function insertIds(list: IdList | undefined, ids: readonly number[]): IdList {
  if (ids.length === 0) return list ?? EMPTY_IDS;
  if (list === undefined || list.count === 0) return buildIdList(ids);
  const chunks = list.chunks;
  const out: Int32Array[] = [];
  let count = list.count;
  let next = 0; // the next chunk of `list` not yet copied to `out`
  let k = 0;
  while (k < ids.length) {
    const ci = idChunkFor(chunks, ids[k]!);
    for (; next < ci; next++) out.push(chunks[next]!);
    // The ids this chunk takes: those below the next chunk's first id.
    const bound = ci + 1 < chunks.length ? chunks[ci + 1]![0]! : Infinity;
    let end = k;
    while (end < ids.length && ids[end]! < bound) end++;
    const c = chunks[ci]!;
    const merged = new Int32Array(c.length + (end - k));
    let i = 0;
    let o = 0;
    for (let j = k; j < end; j++) {
      const id = ids[j]!;
      while (i < c.length && c[i]! < id) merged[o++] = c[i++]!;
      if (i < c.length && c[i] === id) continue;
      merged[o++] = id;
    }
    while (i < c.length) merged[o++] = c[i++]!;
    count += o - c.length;
    const whole = o === merged.length ? merged : merged.slice(0, o);
    if (o <= 2 * ID_CHUNK) out.push(whole);
    else for (let s = 0; s < o; s += ID_CHUNK) out.push(whole.slice(s, Math.min(o, s + ID_CHUNK)));
    next = ci + 1;
    k = end;
  }
  for (; next < chunks.length; next++) out.push(chunks[next]!);
  return { chunks: out, count };
}
