import { idChunkFor } from '../core/messages/idlist';
import { chunkContaining, lowerBound } from '../core/messages/rows';
import { idsAt, type Source } from './source';

/**
 * Where a scan of chunked sorted ids starts, in each direction. The anchor itself is included or
 * not, as the caller asks (the anchor is looked up on its own when the window includes it).
 */
interface Position {
  readonly ci: number;
  readonly i: number;
}

/** The chunk that would hold `id`: the last whose first id is ≤ id (0 when none). */
function chunkFor(src: Source, id: number): number {
  return src.rows !== null ? Math.max(0, chunkContaining(src.rows, id)) : idChunkFor(src.chunks, id);
}

/** Ascending: the first position ≥ start (> start when exclusive); may be one past its chunk's end. */
export function forwardStart(src: Source, start: number, inclusive: boolean): Position {
  const ci = chunkFor(src, start);
  const c = idsAt(src, ci)!;
  let i = lowerBound(c, start);
  if (!inclusive && i < c.length && c[i] === start) i++;
  return { ci, i };
}

/** Descending: the last position ≤ start (< start when exclusive), or null when there is none. */
export function backwardStart(src: Source, start: number, inclusive: boolean): Position | null {
  let ci = chunkFor(src, start);
  const c = idsAt(src, ci)!;
  let i = lowerBound(c, start);
  if (!(i < c.length && c[i] === start && inclusive)) i--;
  if (i < 0) {
    ci--;
    if (ci < 0) return null;
    i = idsAt(src, ci)!.length - 1;
  }
  return { ci, i };
}
