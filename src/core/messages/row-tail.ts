import { ROW_CHUNK, type RowChunk, type UserRows } from './rows';

/** The smallest tail buffer, in rows. */
const SMALL = 8;
/** How much larger a full tail's next buffer is (8 · 4⁴ is a chunk). */
const GROWTH = 4;

/**
 * The buffer behind the newest chunk of one user's rows as appends leave them, with the full chunks
 * before it: shared by every state descending from the one that created it. Slots below `frontier`
 * have been written by some state; a state sees only its own prefix (its length is kept by the
 * state, in `RowTable`), so an append writes in place only when that state ends at the frontier,
 * and a second state appending onto the same parent copies instead.
 */
export class RowTail {
  /** The rows of the last length asked for (`rowsAt`): a state's reads ask for the same one again. */
  #view: TailRows | undefined;

  constructor(
    readonly sealed: readonly RowChunk[],
    /** Rows in `sealed`. */
    readonly sealedCount: number,
    /**
     * The buffer: replaced by a larger copy when an append at the frontier finds it full (every
     * state sees the same rows below the frontier in either; views already taken keep the old one).
     */
    public ids: Int32Array,
    public flags: Uint16Array,
    public frontier: number,
  ) {}

  /** The rows of a state that sees the first `length` rows of this tail's buffer. */
  rowsAt(length: number): TailRows {
    const view = this.#view;
    if (view !== undefined && view.length === length) return view;
    return (this.#view = new TailRows(this, length));
  }

  /**
   * (id, flags) appended to the first `length` rows of this buffer (`id` larger than each): written
   * in place when that prefix ends at the frontier (into a larger copy of the buffer when it is
   * full; then this tail is returned); otherwise the rows go to a new tail. Either way the rows
   * after the append are the returned tail's first `frontier` rows (read it at once: a later append
   * moves it).
   */
  append(length: number, id: number, flags: number): RowTail {
    if (length === this.frontier && length < ROW_CHUNK) {
      // Growing in place keeps the tail, so the table's map and tail index need no change: a new
      // tail per growth copied a map path and a 64-user index chunk that lived long enough to be
      // promoted, and a large channel's sends grew dozens of tails each.
      if (length === this.ids.length) {
        const [ids, flagColumn] = columns(capacityFor(length));
        ids.set(this.ids);
        flagColumn.set(this.flags);
        this.ids = ids;
        this.flags = flagColumn;
      }
      this.ids[length] = id;
      this.flags[length] = flags;
      this.frontier = length + 1;
      return this;
    }
    if (length === ROW_CHUNK) {
      const full = { ids: this.ids.subarray(0, length), flags: this.flags.subarray(0, length) };
      // A user who filled a chunk will fill the next: its buffer is a whole chunk at once.
      return newTail([...this.sealed, full], this.sealedCount + length, id, flags, 0, ROW_CHUNK);
    }
    // A fork: a fresh buffer holds the prefix.
    const grown = newTail(this.sealed, this.sealedCount, id, flags, length);
    grown.ids.set(this.ids.subarray(0, length));
    grown.flags.set(this.flags.subarray(0, length));
    return grown;
  }
}

/**
 * A user's rows read from a tail: its sealed chunks and a prefix of its buffer. `chunks` is
 * materialized when first read and cached in a private field (invisible to deep equality).
 */
export class TailRows implements UserRows {
  #chunks: readonly RowChunk[] | undefined;
  constructor(
    readonly tail: RowTail,
    readonly length: number,
  ) {}

  get count(): number {
    return this.tail.sealedCount + this.length;
  }

  get chunks(): readonly RowChunk[] {
    if (this.#chunks === undefined) {
      const { tail, length } = this;
      const out = tail.sealed.slice();
      if (length > 0) out.push({ ids: tail.ids.subarray(0, length), flags: tail.flags.subarray(0, length) });
      this.#chunks = out;
    }
    return this.#chunks;
  }
}

/**
 * A tail buffer after `sealed` holding `before` rows (copied in by the caller), then (id, flags): its
 * capacity the next of 8, 32, 128, 512 and a chunk (2,048) to hold them, so a buffer filled by
 * appends grows fourfold, 4 times per chunk, the first buffer on V8's heap (a typed array of at most
 * 64 bytes lives there). Fourfold rather than twofold: each growth is an off-heap allocation (a
 * microsecond or more, and as much again to free) and a copy, and a send to 10,000 users grew about
 * 40 tails; a chunk's rows, once it is full, take the same 6 bytes each either way. A tail that
 * follows a full chunk (`least`: a chunk) starts at a whole chunk: its user has just received 2,048
 * rows and will receive the next, and the three growths it skips were three of every four off-heap
 * allocations of a busy user's rows (each 1–46 µs on the 2-CPU bench machines, most of it the
 * guest's page faults on fresh memory). At most one partly filled chunk per such user, as before from
 * its 512th row on; a user with fewer rows than a chunk still starts small.
 */
function newTail(
  sealed: readonly RowChunk[],
  sealedCount: number,
  id: number,
  flags: number,
  before: number,
  least = 0,
): RowTail {
  const [ids, flagColumn] = columns(Math.max(least, capacityFor(before)));
  const tail = new RowTail(sealed, sealedCount, ids, flagColumn, before + 1);
  tail.ids[before] = id;
  tail.flags[before] = flags;
  return tail;
}

/** The capacity of a buffer for `before` rows and one more. */
function capacityFor(before: number): number {
  let capacity = SMALL;
  while (capacity <= before && capacity < ROW_CHUNK) capacity *= GROWTH;
  return capacity > ROW_CHUNK ? ROW_CHUNK : capacity;
}

/** An id column and a flag column of `capacity` rows. */
function columns(capacity: number): [Int32Array, Uint16Array] {
  if (capacity <= SMALL) return [new Int32Array(capacity), new Uint16Array(capacity)];
  // One backing store for both columns (ids, then flags), not two: an off-heap buffer costs a
  // microsecond or more to allocate and free whatever its size.
  const buffer = new ArrayBuffer(6 * capacity);
  return [new Int32Array(buffer, 0, capacity), new Uint16Array(buffer, 4 * capacity, capacity)];
}

/**
 * A tail holding `rows` (built or changed any other way than by appends: plain chunks) with (id,
 * flags) appended, `id` larger than each of theirs: their last chunk, when not full, is copied into
 * the tail's buffer once; the full chunks are shared. Its rows are its first `frontier`.
 */
export function tailAfter(rows: UserRows | undefined, id: number, flags: number): RowTail {
  if (rows instanceof TailRows) return rows.tail.append(rows.length, id, flags);
  if (rows === undefined || rows.count === 0) return newTail([], 0, id, flags, 0);
  const last = rows.chunks[rows.chunks.length - 1]!;
  const n = last.ids.length;
  if (n >= ROW_CHUNK) return newTail(rows.chunks, rows.count, id, flags, 0, ROW_CHUNK);
  const tail = newTail(rows.chunks.slice(0, -1), rows.count - n, id, flags, n);
  tail.ids.set(last.ids);
  tail.flags.set(last.flags);
  return tail;
}

/**
 * `rows` with a row (id, flags) appended, `id` larger than every id of theirs: O(1) for rows that
 * came from appends (one small object, the rows' view); other rows are converted once (`tailAfter`).
 * The store appends through `RowTable.appendAll` instead, which needs no object per row.
 */
export function appendRow(rows: UserRows | undefined, id: number, flags: number): UserRows {
  const tail = tailAfter(rows, id, flags);
  return tail.rowsAt(tail.frontier);
}
