import { idChunkFor } from '../core/messages/idlist';
import { lowerBound } from '../core/messages/rows';

/**
 * Where a scan of chunked sorted ids starts, in each direction. The anchor itself is included or
 * not, as the caller asks (the anchor is looked up on its own when the window includes it).
 */
interface Position {
  readonly ci: number;
  readonly i: number;
}

/** Ascending: the first position ≥ start (> start when exclusive); may be one past its chunk's end. */
export function forwardStart(chunks: readonly Int32Array[], start: number, inclusive: boolean): Position {
  const ci = idChunkFor(chunks, start);
  const c = chunks[ci]!;
  let i = lowerBound(c, start);
  if (!inclusive && i < c.length && c[i] === start) i++;
  return { ci, i };
}

/** Descending: the last position ≤ start (< start when exclusive), or null when there is none. */
export function backwardStart(
  chunks: readonly Int32Array[],
  start: number,
  inclusive: boolean,
): Position | null {
  let ci = idChunkFor(chunks, start);
  const c = chunks[ci]!;
  let i = lowerBound(c, start);
  if (!(i < c.length && c[i] === start && inclusive)) i--;
  if (i < 0) {
    ci--;
    if (ci < 0) return null;
    i = chunks[ci]!.length - 1;
  }
  return { ci, i };
}
