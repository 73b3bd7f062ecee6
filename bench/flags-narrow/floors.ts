/**
 * The tight floors (c): the irreducible work of one POST /messages/flags/narrow window over the very
 * data chat-realm holds (the user's chunked rows, the channel/topic/sender index lists), and nothing
 * else. One floor request:
 *
 * 1. finds the window's start by binary search (chunk, then position);
 * 2. walks the candidates: the user's rows themselves (narrow `[]`, `is:unread`, `is:dm`), or an
 *    index list (channel, topic, sender) joined to the user's rows by a cursor that only moves
 *    forward (galloping search from where it stands);
 * 3. tests the row's flag bits (e.g. unread);
 * 4. copies each touched 2048-row flag chunk once (copy-on-write, so the older state stays valid,
 *    as chat-realm's does) and the chunk list, flips the bit in the copy;
 * 5. collects the changed ids in a JavaScript array of numbers — the event's `messages` list, which
 *    the response must carry as one (a typed array is not a JSON list) — allocated once at the
 *    window's size and trimmed, the cheapest way V8 offers; for mark-unread also the topic of each
 *    changed message (the data `message_details` carries), read from the message columns with a
 *    forward cursor.
 *
 * It does not parse parameters, check access, build a plan, build an event or `message_details`
 * objects, or convert typed arrays (`Array.from`): those are the candidate's overheads the ratio
 * measures.
 */
import type { RowChunk, UserRows } from '../../src/core/messages/rows';
import type { MessageChunk } from '../../src/core/messages/store';

export interface FloorRequest {
  /** The user's rows (read, not written). */
  readonly rows: UserRows;
  /** An index list's chunks (ascending ids), or null to walk the user's rows. */
  readonly source: readonly Int32Array[] | null;
  /** Exclusive start: the window takes ids > afterId (0 for `oldest` with the anchor included). */
  readonly afterId: number;
  readonly limit: number;
  /** Bits that must be set / clear on a candidate row. */
  readonly needAll: number;
  readonly needNone: number;
  readonly bit: number;
  readonly add: boolean;
  /** For mark-unread: the message chunks, to collect each changed message's topic. */
  readonly messages?: readonly MessageChunk[];
}

export interface FloorResult {
  /** The new rows (copy-on-write). */
  readonly rows: UserRows;
  /** The event's `messages`. */
  readonly changed: number[];
  readonly topics: Int32Array | null;
  readonly processed: number;
  readonly lastId: number;
}

function chunkOf(chunks: readonly { readonly length: number; readonly [i: number]: number }[], id: number) {
  let lo = 0;
  let hi = chunks.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (chunks[mid]![0]! <= id) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function rowChunkOf(chunks: readonly { readonly ids: Int32Array }[], id: number) {
  let lo = 0;
  let hi = chunks.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (chunks[mid]!.ids[0]! <= id) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function firstAbove(a: Int32Array, id: number, from: number): number {
  let lo = from;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! <= id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index ≥ from with a[index] ≥ id: galloping from `from`, then binary search. */
function gallop(a: Int32Array, id: number, from: number): number {
  let step = 1;
  let lo = from;
  let hi = from;
  while (hi < a.length && a[hi]! < id) {
    lo = hi + 1;
    hi += step;
    step <<= 1;
  }
  if (hi > a.length) hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function trimmed(a: number[], n: number): number[] {
  a.length = n;
  return a;
}

export function floorWindow(q: FloorRequest): FloorResult {
  const rowChunks = q.rows.chunks;
  const outChunks: RowChunk[] = rowChunks.slice();
  const changed = new Array<number>(q.limit);
  const ms = q.messages;
  const topics = ms ? new Int32Array(q.limit) : null;
  const { needAll, needNone, bit, add, limit } = q;
  let n = 0;
  let found = 0;
  let lastId = q.afterId;
  let rc = rowChunkOf(rowChunks, q.afterId + 1);
  // Message cursor (mark-unread only).
  let mc = 0;
  let mp = 0;
  if (q.source === null) {
    // The user's rows are the candidates: one pass per touched chunk, copied once.
    let i = firstAbove(rowChunks[rc]!.ids, q.afterId, 0);
    for (; rc < rowChunks.length && found < limit; rc++, i = 0) {
      const ids = rowChunks[rc]!.ids;
      const flags = rowChunks[rc]!.flags;
      let copy: Uint16Array | null = null;
      for (; i < ids.length && found < limit; i++) {
        const f = flags[i]!;
        if ((f & needAll) !== needAll || (f & needNone) !== 0) continue;
        found++;
        const next = add ? f | bit : f & ~bit;
        if (next === f) continue;
        if (copy === null) {
          copy = flags.slice();
          outChunks[rc] = { ids, flags: copy };
        }
        copy[i] = next;
        changed[n++] = ids[i]!;
      }
      if (found > 0) lastId = ids[Math.min(i, ids.length) - 1] ?? lastId;
    }
  } else {
    // An index list drives; each id is joined to the user's rows by a forward-only cursor.
    const src = q.source;
    let sc = chunkOf(src, q.afterId + 1);
    let si = firstAbove(src[sc]!, q.afterId, 0);
    let rp = 0;
    let rIds = rowChunks[rc]!.ids;
    let rFlags = rowChunks[rc]!.flags;
    let copy: Uint16Array | null = null;
    outer: for (; sc < src.length && found < limit; sc++, si = 0) {
      const ids = src[sc]!;
      for (; si < ids.length && found < limit; si++) {
        const id = ids[si]!;
        if (id > rIds[rIds.length - 1]!) {
          if (rc + 1 >= rowChunks.length) break outer;
          const nextIds = rowChunks[rc + 1]!.ids;
          rc = nextIds[nextIds.length - 1]! >= id ? rc + 1 : rowChunkOf(rowChunks, id);
          rIds = rowChunks[rc]!.ids;
          rFlags = rowChunks[rc]!.flags;
          copy = null;
          rp = 0;
        }
        rp = gallop(rIds, id, rp);
        if (rIds[rp] !== id) continue;
        const f = rFlags[rp]!;
        if ((f & needAll) !== needAll || (f & needNone) !== 0) continue;
        found++;
        lastId = id;
        const next = add ? f | bit : f & ~bit;
        if (next === f) continue;
        if (copy === null) {
          copy = rFlags.slice();
          outChunks[rc] = { ids: rIds, flags: copy };
        }
        copy[rp] = next;
        if (topics !== null) {
          let mIds = ms![mc]!.ids;
          if (id > mIds[mIds.length - 1]!) {
            mc = rowChunkOf(ms!, id);
            mIds = ms![mc]!.ids;
            mp = 0;
          }
          mp = gallop(mIds, id, mp);
          topics[n] = ms![mc]!.topic[mp]!;
        }
        changed[n++] = id;
      }
    }
  }
  return {
    rows: { chunks: outChunks, count: q.rows.count },
    changed: trimmed(changed, n),
    topics: topics ? topics.subarray(0, n) : null,
    processed: found,
    lastId,
  };
}
