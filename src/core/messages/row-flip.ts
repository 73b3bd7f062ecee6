import type { RowChunk, UserRows } from './rows';

/**
 * Sets or clears one flag bit on rows of one user, copy-on-write, addressed by row position
 * (`chunk * 65536 + index`, as the narrow scan reports them): each touched chunk's flags are copied
 * once, the chunk list once, and the rows given to the constructor are never written, so every
 * older state keeps its flags. The ids of the changed rows are collected on the way, into the
 * array that becomes the event's `messages`.
 *
 * It exists so that the window scan can flip a row the moment it selects it (one pass over the
 * window instead of selecting, then walking the selection again to find and copy each row).
 */
export class RowFlip {
  /** The new chunk list, made on the first change. */
  private chunks: RowChunk[] | null = null;
  /** The chunk whose flags were copied last, and the copy (rows arrive grouped by chunk). */
  private copiedAt = -1;
  private copy: Uint16Array | null = null;
  /** Ids of the changed rows, in the order they were flipped: the first `changed` are set. */
  private readonly ids: number[];
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

  /** Brings row `id` at `pos`, whose flags are `flags`, to the target state; whether its bit changed. */
  row(id: number, pos: number, flags: number): boolean {
    const next = this.add ? flags | this.bit : flags & ~this.bit;
    if (next === flags) return false;
    const ci = pos >>> 16;
    if (ci !== this.copiedAt) this.copyChunk(ci);
    this.copy![pos & 0xffff] = next;
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
    this.ids.length = this.changed;
    return this.ids;
  }

  private copyChunk(ci: number): void {
    const original = this.rows.chunks;
    const chunks = (this.chunks ??= original.slice());
    const chunk = chunks[ci]!;
    // A chunk met again (a window's two sides share the anchor's chunk): keep writing its copy.
    if (chunk === original[ci]) {
      this.copy = chunk.flags.slice();
      chunks[ci] = { ids: chunk.ids, flags: this.copy };
    } else this.copy = chunk.flags;
    this.copiedAt = ci;
  }

  /** The rows after the changes (the same object when nothing changed). */
  result(): UserRows {
    return this.chunks === null ? this.rows : { chunks: this.chunks, count: this.rows.count };
  }
}
