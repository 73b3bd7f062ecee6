import type { RowChunk } from '../core/messages/rows';
import type { Out } from './scan';

/**
 * The scan's fast path for the most common windows: the user's own rows are the candidates and
 * only flag bits are tested (narrow `[]`, `is:unread`, `is:starred`, `is:dm`, … with every channel
 * readable), so no message is looked up and no access is checked. One tight loop over the row
 * chunks, flipping each selected row when the `Out` carries a flip (the loop a client marking
 * everything read runs a million times). Same contract as `scan`.
 */
export function scanRows(
  rows: readonly RowChunk[],
  ci: number,
  i: number,
  dir: 1 | -1,
  needAll: number,
  needNone: number,
  limit: number,
  out: Out,
): number {
  const { ids: outIds, flags: outFlags, positions: outPos, step, flip } = out;
  // The flip's state in locals (see RowFlip); `changed` is stored back before returning.
  const bit = flip === null ? 0 : flip.bit;
  const add = flip === null ? false : flip.add;
  const changedIds = flip === null ? null : flip.ids;
  let changed = flip === null ? 0 : flip.changed;
  let at = out.at;
  let found = 0;
  for (; ci >= 0 && ci < rows.length && found < limit; ci += dir) {
    const chunk = rows[ci]!;
    const ids = chunk.ids;
    const flags = chunk.flags;
    if (dir === -1 && i < 0) i = ids.length - 1;
    const base = ci * 65536;
    let copy: Uint16Array | null = null;
    for (; i >= 0 && i < ids.length; i += dir) {
      const f = flags[i]!;
      if ((f & needAll) !== needAll || (f & needNone) !== 0) continue;
      const id = ids[i]!;
      outIds[at] = id;
      outFlags[at] = f;
      outPos[at] = base + i;
      at += step;
      if (changedIds !== null) {
        const next = add ? f | bit : f & ~bit;
        if (next !== f) {
          copy ??= flip!.copyOf(ci);
          copy[i] = next;
          changedIds[changed++] = id;
        }
      }
      if (++found >= limit) break;
    }
    i = dir === 1 ? 0 : -1;
  }
  out.at = at;
  if (flip !== null) flip.changed = changed;
  return found;
}
