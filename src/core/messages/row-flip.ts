import type { RowChunk, UserRows } from './rows';

/**
 * Sets or clears one flag bit on rows of one user, copy-on-write, addressed by row position
 * (`chunk * 65536 + index`, as the narrow scan reports them): each touched chunk's flags are copied
 * once, the chunk list once, and the rows given to the constructor are never written, so every
 * older state keeps its flags. The ids of the changed rows are collected on the way, into the
 * array that becomes the event's `messages`.
 *
 * It exists so that the window scan can flip a row the moment it selects it (one pass over the
 * window instead of selecting, then walking the selection again to find and copy each row). The
 * scan loops keep `ids`, `changed` and the current chunk's copy in locals (reading them through
 * `this` on every row cost more than the rest of the flip) and store `changed` back; `row` is the
 * same step for callers outside a loop.
 */
export class RowFlip {
  /** The new chunk list, made on the first change. */
  private chunks: RowChunk[] | null = null;
  /** Ids of the changed rows, in the order they were flipped: the first `changed` are set. */
  readonly ids: number[];
  changed = 0;

  /** `capacity`: at most how many rows will be flipped (the window's size). */
  constructor(
    readonly rows: UserRows,
    readonly bit: number,
    readonly add: boolean,
    capacity: number,
  ) {
    // Allocated once at the largest size and trimmed at the end: growing it by `push` allocated
    // about twice the final array. (A window is at most 5001 rows; V8 would make a very long
    // `new Array(n)` a dictionary.)
    this.ids = capacity <= 65536 ? new Array<number>(capacity) : [];
  }

  /** The writable copy of chunk `ci`'s flags (copied on the first call for that chunk). */
  copyOf(ci: number): Uint16Array {
    const original = this.rows.chunks;
    const chunks = (this.chunks ??= original.slice());
    const chunk = chunks[ci]!;
    if (chunk !== original[ci]) return chunk.flags;
    const copy = chunk.flags.slice();
    chunks[ci] = { ids: chunk.ids, flags: copy };
    return copy;
  }

  /** Brings row `id` at `pos`, whose flags are `flags`, to the target state; whether its bit changed. */
  row(id: number, pos: number, flags: number): boolean {
    const next = this.add ? flags | this.bit : flags & ~this.bit;
    if (next === flags) return false;
    this.copyOf(pos >>> 16)[pos & 0xffff] = next;
    this.ids[this.changed++] = id;
    return true;
  }

  /** Reverses the ids collected so far (a window's before side is scanned downwards). */
  reverseIds(): void {
    const ids = this.ids;
    for (let i = 0, j = this.changed - 1; i < j; i++, j--) {
      const t = ids[i]!;
      ids[i] = ids[j]!;
      ids[j] = t;
    }
  }

  /** The changed ids (the collecting array itself, trimmed: call once, at the end). */
  changedIds(): number[] {
    if (this.ids.length !== this.changed) this.ids.length = this.changed;
    return this.ids;
  }

  /** The rows after the changes (the same object when nothing changed). */
  result(): UserRows {
    return this.chunks === null ? this.rows : { chunks: this.chunks, count: this.rows.count };
  }
}
