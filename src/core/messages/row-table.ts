import { IntMap } from '../collections/int-map';
import type { UserRows } from './rows';
import { RowTail, TailRows, tailAfter } from './row-tail';

/**
 * Row lengths are kept per state in a three-level trie copied on write: a top array of 256-user
 * groups, each a middle array of 8 leaves, each leaf the lengths of 32 users. A send copies the top
 * array once and the middle array and leaf of each recipient's group, so a send to 10 users of
 * 10,000 copies about 440 slots where a flat array of 64-user chunks copied about 800 (one per 64
 * users of the realm plus 64 per recipient), and a send to 1,000 of them copies fewer chunks. Not
 * 16-user leaves: they halve a small send's copy again but a send to a tenth of the realm then
 * allocates a leaf per few recipients, which measured slower (bench/README.md, h42sendstore).
 * Plain arrays of small integers, not typed arrays: copying one is a plain allocation, where a
 * small typed array gets a separately allocated buffer (several times slower to copy, and to
 * collect).
 */
const LEAF_BITS = 5;
const LEAF = 1 << LEAF_BITS;
const LEAF_MASK = LEAF - 1;
const MID_BITS = 3;
const MID_MASK = (1 << MID_BITS) - 1;
/** Users per entry of the top array. */
const TOP_SHIFT = LEAF_BITS + MID_BITS;
/** A leaf no state has written: shared, never written (copied first like any other). */
const NO_LEAF: readonly number[] = new Array<number>(LEAF).fill(0);
/** A middle array no state has written: shared, never written. */
const NO_MID: ReadonlyArray<readonly number[]> = new Array<readonly number[]>(1 << MID_BITS).fill(NO_LEAF);
/** user id → row count: `user >> 8`, then `(user >> 5) & 7`, then `user & 31`. */
type Lengths = ReadonlyArray<ReadonlyArray<readonly number[]>>;

/**
 * Users per chunk of the tail index: copied only when a tail moves (a few sends in 2,048 per user),
 * so its chunk size matters little to a send.
 */
const TAIL_BITS = 6;
const TAIL_CHUNK = 1 << TAIL_BITS;
const TAIL_MASK = TAIL_CHUNK - 1;
/** A chunk of the tail index with no tail: shared, never written. */
const NO_TAILS: ReadonlyArray<RowTail | undefined> = new Array<RowTail | undefined>(TAIL_CHUNK).fill(
  undefined,
);

/**
 * Every user's UserMessage rows in one state of the store (`MessageStore.rows`), read like an
 * `IntMap<UserRows>` (user id → rows).
 *
 * The rows appends leave are a prefix of a user's shared tail buffer (`RowTail`): the map holds the
 * tail, and the prefix's length lives here, in a per-state trie of lengths copied on write. So a send changes no map value (the tail is the same object before and after) and builds
 * no object per recipient: per recipient it writes two typed-array slots in the tail and one length
 * in a leaf it copied for the whole send, as a floor that keeps older states valid must. Rows made
 * any other way (built, flag changes, deletions) are held as they are; their next append moves them
 * into a tail. `get` answers a tail's rows with a view (`TailRows`) cached on the tail.
 */
export class RowTable implements Iterable<[number, UserRows]> {
  private static readonly EMPTY = new RowTable(IntMap.empty(), [], []);

  private constructor(
    /** user id → their rows, or the tail buffer whose first `lengths` rows are theirs. */
    private readonly byUser: IntMap<UserRows | RowTail>,
    /** user id → how many rows of their tail are theirs (`Lengths`). */
    private readonly lengths: Lengths,
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
      const lengths = withLength(this.lengths, userId, rows.length);
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
    // The leaf of lengths (this call's copy) of the previous recipient's 32 users
    // and the tail index chunk of its 64: recipients come mostly in ascending order, so each is
    // looked up once per run of users.
    let li = -1;
    let leaf: number[] = [];
    let ti = -1;
    let tailChunk: ReadonlyArray<RowTail | undefined> | undefined;
    for (let k = 0; k < n; k++) {
      const userId = userIds[k]!;
      if (userId >>> LEAF_BITS !== li) {
        li = userId >>> LEAF_BITS;
        leaf = ownLeaf(lengths, before, userId);
      }
      if (userId >>> TAIL_BITS !== ti) {
        ti = userId >>> TAIL_BITS;
        tailChunk = index[ti];
      }
      const at = userId & LEAF_MASK;
      const length = leaf[at]!;
      // A user listed twice (never by a send) appends onto what their first entry left.
      const held =
        (moved === undefined ? undefined : moved.get(userId)) ??
        tailChunk?.[userId & TAIL_MASK] ??
        byUser.get(userId);
      if (held instanceof Tail) {
        // The usual case, inline: this state's rows end at the tail's frontier and there is room.
        if (length === held.frontier && length < held.ids.length) {
          held.ids[length] = id;
          // Slots at and past the frontier were never written (zeros): most new rows have no
          // flags, and skipping their write spares a large channel a cache miss per recipient.
          const f = flags[k]!;
          if (f !== 0) held.flags[length] = f;
          held.frontier = leaf[at] = length + 1;
          continue;
        }
        const tail = held.append(length, id, flags[k]!);
        if (tail !== held) (moved ??= new Map()).set(userId, tail);
        leaf[at] = tail.frontier;
      } else {
        const tail = tailAfter(held, id, flags[k]!);
        (moved ??= new Map()).set(userId, tail);
        leaf[at] = tail.frontier;
      }
    }
    if (moved === undefined) return new RowTable(byUser, lengths, index);
    const keys = [...moved.keys()];
    const tails = [...moved.values()];
    const nextIndex = index.slice();
    for (const [userId, tail] of moved)
      ownTails(nextIndex, index, userId >>> TAIL_BITS)[userId & TAIL_MASK] = tail;
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
    return this.lengths[userId >>> TOP_SHIFT]?.[(userId >>> LEAF_BITS) & MID_MASK]?.[userId & LEAF_MASK] ?? 0;
  }
}

/** `lengths` with the user's row count set to `length` (copies the path to their leaf). */
function withLength(lengths: Lengths, userId: number, length: number): Lengths {
  const next = lengths.slice();
  ownLeaf(next, lengths, userId)[userId & LEAF_MASK] = length;
  return next;
}

/**
 * The leaf of `userId` in `next` (a copy of the top array of `before`), made this call's own: the
 * middle array and the leaf on its path are copied unless an earlier call for the same `next`
 * already did (missing entries are filled with the shared zero arrays).
 */
function ownLeaf(next: Array<ReadonlyArray<readonly number[]>>, before: Lengths, userId: number): number[] {
  const m = userId >>> TOP_SHIFT;
  while (next.length <= m) next.push(NO_MID);
  const beforeMid = before[m] ?? NO_MID;
  let mid = next[m]!;
  if (mid === beforeMid || mid === NO_MID) next[m] = mid = beforeMid.slice();
  const slot = (userId >>> LEAF_BITS) & MID_MASK;
  const leaf = mid[slot]!;
  if (leaf !== beforeMid[slot] && leaf !== NO_LEAF) return leaf as number[];
  const copy = leaf.slice();
  (mid as Array<readonly number[]>)[slot] = copy;
  return copy;
}

/** `tails` with the user's entry set to `tail` (copies the top array and the user's chunk). */
function withTail(
  tails: ReadonlyArray<ReadonlyArray<RowTail | undefined>>,
  userId: number,
  tail: RowTail | undefined,
): ReadonlyArray<ReadonlyArray<RowTail | undefined>> {
  const ci = userId >>> TAIL_BITS;
  if (tails[ci]?.[userId & TAIL_MASK] === tail) return tails;
  const next = tails.slice();
  ownTails(next, tails, ci)[userId & TAIL_MASK] = tail;
  return next;
}

/** Chunk `ci` of `next` (a copy of `before`), made this call's own (missing chunks filled with the shared empty one). */
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
