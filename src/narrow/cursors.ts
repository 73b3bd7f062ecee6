import { chunkContaining, lowerBoundFrom } from '../core/messages/rows';
import type { MessageChunk } from '../core/messages/store';

/**
 * Cursors over chunked, id-sorted columns that remember where the last lookup landed. A scan
 * asks for ids in order (ascending or descending), so the next id is almost always at the same
 * position or next to it: the cursor checks there, then gallops from there (an index list's ids are
 * sparse in the user's rows: a binary search of the whole chunk per candidate cost ~40 % of a
 * channel window).
 *
 * The two classes repeat the same seek on purpose: one generic cursor over both chunk shapes
 * makes its property reads polymorphic, and that cost about 10 % on window selection.
 */

/** Finds ids in the user's rows, moving monotonically. */
export class RowCursor {
  ci = 0;
  i = 0;
  constructor(
    private readonly chunks: ReadonlyArray<{ readonly ids: Int32Array; readonly flags: Uint16Array }>,
  ) {}

  /** The row's flags, or -1. */
  flagsOf(id: number): number {
    const chunks = this.chunks;
    if (chunks.length === 0) return -1;
    let c = chunks[this.ci]!;
    if (id < c.ids[0]! || id > c.ids[c.ids.length - 1]!) {
      this.ci = Math.max(0, chunkContaining(chunks, id));
      c = chunks[this.ci]!;
      this.i = 0;
    }
    const ids = c.ids;
    let i = this.i;
    if (ids[i] !== id) {
      if (ids[i + 1] === id) i++;
      else i = lowerBoundFrom(ids, id, i);
    }
    this.i = i;
    return i < ids.length && ids[i] === id ? c.flags[i]! : -1;
  }
}

/** Finds messages in the store, moving monotonically. */
export class MessageCursor {
  private ci = 0;
  chunk: MessageChunk | undefined;
  index = 0;
  constructor(private readonly chunks: readonly MessageChunk[]) {}

  /** Moves to message `id` (`chunk`, `index`); whether the store has it. */
  seek(id: number): boolean {
    const chunks = this.chunks;
    if (chunks.length === 0) return false;
    let c = chunks[this.ci]!;
    if (id < c.ids[0]! || id > c.ids[c.ids.length - 1]!) {
      this.ci = Math.max(0, chunkContaining(chunks, id));
      c = chunks[this.ci]!;
      this.index = 0;
    }
    const ids = c.ids;
    let i = this.index;
    if (ids[i] !== id) {
      if (ids[i + 1] === id) i++;
      else i = lowerBoundFrom(ids, id, i);
    }
    this.index = i;
    this.chunk = c;
    return i < ids.length && ids[i] === id;
  }
}
