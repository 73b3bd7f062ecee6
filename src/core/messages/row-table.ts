import { IntMap } from '../collections/int-map';
import type { UserRows } from './rows';
import { RowTail, TailRows, tailAfter } from './row-tail';

/**
 * Users per chunk of row lengths: a send copies the chunks of its recipients. Plain arrays of small
 * integers, not typed arrays: copying one is a plain allocation, where a 256-byte typed array gets a
 * separately allocated buffer (several times slower to copy, and to collect). 32 users, not 64: a
 * small send's recipients mostly fall in different chunks, so it copies one chunk per recipient
 * (~8 bytes a slot), and halving the chunk cut a 10-recipient send's allocation by 2.0–2.4 KB of
 * ~11.5 on medium and ~1.5 of ~15.5 on large; the top array it doubles is 2.5 KB at 10,000 users.
 */
const LEN_BITS = 5;
const LEN_CHUNK = 1 << LEN_BITS;
const LEN_MASK = LEN_CHUNK - 1;
/** A chunk of lengths no state has written: shared, never written (copied first like any other). */
const NO_LENGTHS: readonly number[] = new Array<number>(LEN_CHUNK).fill(0);
/**
 * From how many recipients `RowTable.appendAll` goes in blocks of passes (below, the rows are
 * few or in cache and the passes would only add work), the block's size (its tails, columns and
 * slots stay in the first-level cache between passes), and the blocks' scratch, reused by every
 * call and emptied after it. `BLOCK_WARM` keeps the slot reads from being optimized away.
 */
const BLOCKED_FROM = 2048;
const BLOCK = 64;
const BLOCK_HELD = new Array<RowTail | undefined>(BLOCK).fill(undefined);
const BLOCK_LENGTH = new Array<number>(BLOCK).fill(0);
const BLOCK_IDS = new Array<Int32Array | undefined>(BLOCK).fill(undefined);
const BLOCK_LENS = new Array<number[] | undefined>(BLOCK).fill(undefined);
const BLOCK_WARM = [0];
/** A chunk of the tail index with no tail: shared, never written. */
const NO_TAILS: ReadonlyArray<RowTail | undefined> = new Array<RowTail | undefined>(LEN_CHUNK).fill(
  undefined,
);

/**
 * Every user's UserMessage rows in one state of the store (`MessageStore.rows`), read like an
 * `IntMap<UserRows>` (user id → rows).
 *
 * The rows appends leave are a prefix of a user's shared tail buffer (`RowTail`): the map holds the
 * tail, and the prefix's length lives here, in per-state chunks of 32 users' lengths copied on
 * write. So a send changes no map value (the tail is the same object before and after) and builds
 * no object per recipient: per recipient it writes two typed-array slots in the tail and one length
 * in a chunk it copied for the whole send, as a floor that keeps older states valid must. Rows made
 * any other way (built, flag changes, deletions) are held as they are; their next append moves them
 * into a tail. `get` answers a tail's rows with a view (`TailRows`) cached on the tail.
 */
export class RowTable implements Iterable<[number, UserRows]> {
  private static readonly EMPTY = new RowTable(IntMap.empty(), [], []);

  private constructor(
    /** user id → their rows, or the tail buffer whose first `lengths` rows are theirs. */
    private readonly byUser: IntMap<UserRows | RowTail>,
    /** user id → how many rows of their tail are theirs (`user >> 6`, then `user & 63`). */
    private readonly lengths: ReadonlyArray<readonly number[]>,
    /**
     * user id → the `RowTail` `byUser` holds for them, or undefined when it holds rows (or nothing),
     * in chunks like `lengths` but copied only when a tail moves (a few sends in 2,048 per user):
     * a send finds each recipient's tail with two array reads instead of a walk down the map.
     */
    private readonly tails: ReadonlyArray<ReadonlyArray<RowTail | undefined>>,
  ) {}

  static empty(): RowTable {
    return RowTable.EMPTY;
  }

  /** The table of these rows (a map built elsewhere, e.g. from a snapshot). */
  static of(rows: IntMap<UserRows>): RowTable {
    return rows.size === 0 ? RowTable.EMPTY : new RowTable(rows, [], []);
  }

  /** Users with rows. */
  get size(): number {
    return this.byUser.size;
  }

  get(userId: number): UserRows | undefined {
    const held = this.byUser.get(userId);
    return held instanceof RowTail ? held.rowsAt(this.lengthOf(userId)) : held;
  }

  has(userId: number): boolean {
    return this.byUser.has(userId);
  }

  /** The table with the user's rows replaced: the same table when they are the rows it holds. */
  set(userId: number, rows: UserRows): RowTable {
    const held = this.byUser.get(userId);
    if (rows instanceof TailRows) {
      if (held === rows.tail && this.lengthOf(userId) === rows.length) return this;
      const lengths = this.lengths.slice();
      own(lengths, this.lengths, userId >>> LEN_BITS)[userId & LEN_MASK] = rows.length;
      if (held === rows.tail) return new RowTable(this.byUser, lengths, this.tails);
      return new RowTable(
        this.byUser.set(userId, rows.tail),
        lengths,
        withTail(this.tails, userId, rows.tail),
      );
    }
    if (held === rows) return this;
    const tails = held instanceof RowTail ? withTail(this.tails, userId, undefined) : this.tails;
    return new RowTable(this.byUser.set(userId, rows), this.lengths, tails);
  }

  delete(userId: number): RowTable {
    const held = this.byUser.get(userId);
    if (held === undefined) return this;
    const tails = held instanceof RowTail ? withTail(this.tails, userId, undefined) : this.tails;
    return new RowTable(this.byUser.delete(userId), this.lengths, tails);
  }

  /**
   * The table with a row (id, flags[k]) appended for each user `userIds[k]` (distinct users; `id`
   * larger than each of their ids). Copies the length chunks of the recipients once each; the map
   * changes only for users whose rows move to a new tail (a full, forked or first buffer).
   */
  appendAll(userIds: ArrayLike<number>, id: number, flags: ArrayLike<number>): RowTable {
    const n = userIds.length;
    if (n === 0) return this;
    const before = this.lengths;
    const lengths = before.slice();
    const byUser = this.byUser;
    const index = this.tails;
    // Read once: an imported binding is a getter call per read once compiled to CommonJS.
    const Tail = RowTail;
    // Users whose rows moved to another tail (rare after their first append): set in the map at the end.
    let moved: Map<number, RowTail> | undefined;
    // The chunk of lengths (this call's copy) and of tails of the previous recipient's 32 users:
    // recipients come mostly in ascending order, so a chunk is looked up once per run of users.
    let ci = -1;
    let chunk: number[] = [];
    let tailChunk: ReadonlyArray<RowTail | undefined> | undefined;
    let k = 0;
    if (n >= BLOCKED_FROM) {
      // Many recipients (a large channel) go in blocks of ascending users, each block in passes
      // that touch one kind of memory at a time: a tail, then its id column, then the slot
      // written. A pass's loads do not depend on each other, so the processor overlaps a block's
      // cache misses instead of taking three in a row per recipient (the tails of a large
      // channel's members are scattered over the heap; those misses were most of its send).
      const heldAt = BLOCK_HELD;
      const lengthAt = BLOCK_LENGTH;
      const idsAt = BLOCK_IDS;
      const lensAt = BLOCK_LENS;
      let last = -1;
      let warm = 0;
      blocks: while (k < n) {
        const end = k + BLOCK < n ? k + BLOCK : n;
        // Pass 1, in recipient order: the lengths (each 32-user chunk copied once) and the tails.
        for (let j = k; j < end; j++) {
          const userId = userIds[j]!;
          // Not ascending (a user listed twice, say): this block and the rest one by one, below.
          if (userId <= last) break blocks;
          last = userId;
          if (userId >>> LEN_BITS !== ci) {
            ci = userId >>> LEN_BITS;
            chunk = ownedChunk(lengths, before, ci);
            tailChunk = index[ci];
          }
          const b = j - k;
          lengthAt[b] = chunk[userId & LEN_MASK]!;
          lensAt[b] = chunk;
          heldAt[b] = tailChunk?.[userId & LEN_MASK];
        }
        const count = end - k;
        // Pass 2: the id column of each tail this state's rows end at the frontier of.
        for (let b = 0; b < count; b++) {
          const held = heldAt[b];
          idsAt[b] = held !== undefined && held.frontier === lengthAt[b] ? held.ids : undefined;
        }
        // Pass 3: the column's length, and a read of the slot to be written (brings its line in).
        for (let b = 0; b < count; b++) {
          const ids = idsAt[b];
          const length = lengthAt[b]!;
          if (ids !== undefined && length < ids.length) warm ^= ids[length]!;
          else idsAt[b] = undefined;
        }
        // Pass 4: the writes; a full, forked or first buffer goes the general way.
        for (let b = 0; b < count; b++) {
          const ids = idsAt[b];
          const length = lengthAt[b]!;
          const userId = userIds[k + b]!;
          const f = flags[k + b]!;
          if (ids !== undefined) {
            ids[length] = id;
            const held = heldAt[b]!;
            if (f !== 0) held.flags[length] = f;
            held.frontier = length + 1;
            lensAt[b]![userId & LEN_MASK] = length + 1;
          } else {
            const held = heldAt[b] ?? byUser.get(userId);
            const tail = appendedTail(held, length, id, f);
            if (tail !== held) (moved ??= new Map()).set(userId, tail);
            lensAt[b]![userId & LEN_MASK] = tail.frontier;
          }
        }
        k = end;
      }
      BLOCK_WARM[0] = warm;
      heldAt.fill(undefined);
      idsAt.fill(undefined);
      lensAt.fill(undefined);
    }
    for (; k < n; k++) {
      const userId = userIds[k]!;
      if (userId >>> LEN_BITS !== ci) {
        ci = userId >>> LEN_BITS;
        chunk = ownedChunk(lengths, before, ci);
        tailChunk = index[ci];
      }
      const at = userId & LEN_MASK;
      const length = chunk[at]!;
      // A user listed twice (never by a send) appends onto what their first entry left.
      const held =
        (moved === undefined ? undefined : moved.get(userId)) ?? tailChunk?.[at] ?? byUser.get(userId);
      if (held instanceof Tail) {
        // The usual case, inline: this state's rows end at the tail's frontier and there is room.
        if (length === held.frontier && length < held.ids.length) {
          held.ids[length] = id;
          // Slots at and past the frontier were never written (zeros): most new rows have no
          // flags, and skipping their write spares a large channel a cache miss per recipient.
          const f = flags[k]!;
          if (f !== 0) held.flags[length] = f;
          held.frontier = chunk[at] = length + 1;
          continue;
        }
      }
      const tail = appendedTail(held, length, id, flags[k]!);
      if (tail !== held) (moved ??= new Map()).set(userId, tail);
      chunk[at] = tail.frontier;
    }
    if (moved === undefined) return new RowTable(byUser, lengths, index);
    const keys = [...moved.keys()];
    const tails = [...moved.values()];
    const nextIndex = index.slice();
    for (const [userId, tail] of moved)
      ownTails(nextIndex, index, userId >>> LEN_BITS)[userId & LEN_MASK] = tail;
    return new RowTable(
      byUser.updateMany(keys, (k) => tails[k]!),
      lengths,
      nextIndex,
    );
  }

  *entries(): IterableIterator<[number, UserRows]> {
    for (const [userId, held] of this.byUser.entries())
      yield [userId, held instanceof RowTail ? held.rowsAt(this.lengthOf(userId)) : held];
  }

  [Symbol.iterator](): IterableIterator<[number, UserRows]> {
    return this.entries();
  }

  *values(): IterableIterator<UserRows> {
    for (const [, rows] of this.entries()) yield rows;
  }

  keys(): IterableIterator<number> {
    return this.byUser.keys();
  }

  private lengthOf(userId: number): number {
    return this.lengths[userId >>> LEN_BITS]?.[userId & LEN_MASK] ?? 0;
  }
}

/** Chunk `ci` of `lengths` (a copy of `before`), copied from `before` on this call's first visit. */
function ownedChunk(
  lengths: Array<readonly number[]>,
  before: ReadonlyArray<readonly number[]>,
  ci: number,
): number[] {
  const have = lengths[ci] as number[] | undefined;
  return have === undefined || have === before[ci] || have === NO_LENGTHS ? own(lengths, before, ci) : have;
}

/**
 * The general case of one user's append: the tail holding their rows with (id, flags) after the
 * first `length` rows of `held` (a tail, rows held as they are, or none); `held` itself when it
 * grew in place.
 */
function appendedTail(
  held: UserRows | RowTail | undefined,
  length: number,
  id: number,
  flags: number,
): RowTail {
  return held instanceof RowTail ? held.append(length, id, flags) : tailAfter(held, id, flags);
}

/**
 * Chunk `ci` of `lengths` (a copy of `before`), made this call's own: a copy of the chunk `before`
 * had (zeros past its end; missing chunks before it filled with the shared zero chunk).
 */
function own(
  lengths: Array<readonly number[]>,
  before: ReadonlyArray<readonly number[]>,
  ci: number,
): number[] {
  while (lengths.length <= ci) lengths.push(NO_LENGTHS);
  const copy = (before[ci] ?? NO_LENGTHS).slice();
  lengths[ci] = copy;
  return copy;
}

/** `tails` with the user's entry set to `tail` (copies the top array and the user's chunk). */
function withTail(
  tails: ReadonlyArray<ReadonlyArray<RowTail | undefined>>,
  userId: number,
  tail: RowTail | undefined,
): ReadonlyArray<ReadonlyArray<RowTail | undefined>> {
  const ci = userId >>> LEN_BITS;
  if (tails[ci]?.[userId & LEN_MASK] === tail) return tails;
  const next = tails.slice();
  ownTails(next, tails, ci)[userId & LEN_MASK] = tail;
  return next;
}

/** Chunk `ci` of `next` (a copy of `before`), made this call's own, as `own` does for lengths. */
function ownTails(
  next: Array<ReadonlyArray<RowTail | undefined>>,
  before: ReadonlyArray<ReadonlyArray<RowTail | undefined>>,
  ci: number,
): Array<RowTail | undefined> {
  const have = next[ci];
  if (have !== undefined && have !== before[ci] && have !== NO_TAILS)
    return have as Array<RowTail | undefined>;
  while (next.length <= ci) next.push(NO_TAILS);
  const copy = (before[ci] ?? NO_TAILS).slice();
  next[ci] = copy;
  return copy;
}
