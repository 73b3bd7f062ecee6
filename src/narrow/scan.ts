import { FLAG_BITS } from '../core/messages/flags';
import type { RowFlip } from '../core/messages/row-flip';
import type { MessageChunk } from '../core/messages/store';
import { MessageCursor, RowCursor } from './cursors';
import { foldFlagTests } from './flag-masks';
import type { NarrowPlan } from './plan';
import { backwardStart, forwardStart } from './scan-start';
import { scanRows } from './scan-rows';
import { chunkCount, idsAt, type Source } from './source';

/**
 * The scan at the heart of evaluation: walks a source's ids from a start in one direction and
 * keeps those that pass the plan's flag tests, the access rule and the message tests, in that
 * order (cheapest first). Flags come from the user's rows through a cursor that only moves one
 * way, so a window of k messages costs O(k) plus a few binary searches. The loop is written out
 * in one function on purpose: it runs once per candidate row.
 */

/** Flags of a message the user has no row for (Zulip treats it as read and historical). */
export const NO_ROW_FLAGS = FLAG_BITS.read | FLAG_BITS.historical;

/**
 * Where a scan writes: typed buffers filled from `at`, one step of `step` (+1 or -1) per match.
 * With `flip`, each matching row the user holds is also brought to the flip's target state as it
 * is selected (the buffers keep the flags from before).
 */
export interface Out {
  readonly ids: Int32Array;
  readonly flags: Int32Array;
  readonly positions: Int32Array;
  at: number;
  readonly step: 1 | -1;
  readonly flip: RowFlip | null;
}

/** A one-slot `Out`, for scans that want the first match only. */
export function singleOut(): Out {
  return {
    ids: new Int32Array(1),
    flags: new Int32Array(1),
    positions: new Int32Array(1),
    at: 0,
    step: 1,
    flip: null,
  };
}

/** Scans the source from `start` in direction `dir`, writing up to `limit` matching rows into `out`. */
export function scan(
  plan: NarrowPlan,
  src: Source,
  start: number,
  dir: 1 | -1,
  inclusive: boolean,
  limit: number,
  out: Out,
): number {
  const nChunks = chunkCount(src);
  if (limit <= 0 || nChunks === 0) return 0;
  const { ctx, messageTests, history } = plan;
  const masks = foldFlagTests(plan.flagTests);
  const needAll = masks.all;
  const needNone = masks.none;
  const anyMasks = masks.any;
  const nAny = anyMasks.length;
  const nMsg = messageTests.length;
  const rowChunks = src.rows;
  const rowCursor = rowChunks === null ? new RowCursor(ctx.rows.chunks) : null;
  const msgCursor =
    src.messages === null && (nMsg > 0 || src.accessPerRow)
      ? new MessageCursor(ctx.state.messages.chunks)
      : null;
  const accessPerRow = src.accessPerRow;
  const from = dir === 1 ? forwardStart(src, start, inclusive) : backwardStart(src, start, inclusive);
  if (from === null) return 0;
  let { ci, i } = from;
  if (rowChunks !== null && nAny === 0 && nMsg === 0 && !accessPerRow)
    return scanRows(rowChunks, ci, i, dir, needAll, needNone, limit, out);
  const outIds = out.ids;
  const outFlags = out.flags;
  const outPos = out.positions;
  const step = out.step;
  const flip = out.flip;
  // The flip's state in locals (see RowFlip); `changed` is stored back before returning.
  const flipBit = flip === null ? 0 : flip.bit;
  const flipAdd = flip === null ? false : flip.add;
  const changedIds = flip === null ? null : flip.ids;
  let changed = flip === null ? 0 : flip.changed;
  let copiedAt = -1;
  let copy: Uint16Array | null = null;
  let at = out.at;
  let found = 0;
  for (; ci >= 0 && ci < nChunks; ci += dir, i = dir === 1 ? 0 : (idsAt(src, ci)?.length ?? 0) - 1) {
    const rowChunk = rowChunks?.[ci];
    const ids = rowChunk !== undefined ? rowChunk.ids : src.chunks[ci]!;
    const flagChunk = rowChunk?.flags;
    const msgChunk = src.messages?.[ci];
    const base = ci * 65536;
    for (; i >= 0 && i < ids.length; i += dir) {
      const id = ids[i]!;
      let flags: number;
      let pos: number;
      if (flagChunk !== undefined) {
        flags = flagChunk[i]!;
        pos = base + i;
      } else {
        flags = rowCursor!.flagsOf(id);
        if (flags < 0) {
          // Outside history mode only the user's own rows are candidates.
          if (!history) continue;
          pos = -1;
        } else pos = rowCursor!.ci * 65536 + rowCursor!.i;
      }
      const f = flags < 0 ? NO_ROW_FLAGS : flags;
      if ((f & needAll) !== needAll || (f & needNone) !== 0) continue;
      if (nAny > 0) {
        let ok = true;
        for (let t = 0; t < nAny; t++) if ((f & anyMasks[t]!) === 0) ok = false;
        if (!ok) continue;
      }
      // Direct messages the user holds a row for are always readable; channel rows may not be.
      const needAccess = accessPerRow && (flags < 0 || (flags & FLAG_BITS.is_private) === 0);
      if (nMsg > 0 || needAccess) {
        let c: MessageChunk;
        let k: number;
        if (msgChunk !== undefined) {
          c = msgChunk;
          k = i;
        } else {
          if (!msgCursor!.seek(id)) continue;
          c = msgCursor!.chunk!;
          k = msgCursor!.index;
        }
        if (needAccess) {
          const r = c.recipient[k]!;
          if (r > 0 && !ctx.rowChannelReadable(r)) continue;
        }
        let ok = true;
        for (let t = 0; t < nMsg; t++) {
          if (!messageTests[t]!(c, k)) {
            ok = false;
            break;
          }
        }
        if (!ok) continue;
      }
      outIds[at] = id;
      outFlags[at] = flags;
      outPos[at] = pos;
      at += step;
      if (changedIds !== null && flags >= 0) {
        const next = flipAdd ? flags | flipBit : flags & ~flipBit;
        if (next !== flags) {
          if (pos >>> 16 !== copiedAt) {
            copiedAt = pos >>> 16;
            copy = flip!.copyOf(copiedAt);
          }
          copy![pos & 0xffff] = next;
          changedIds[changed++] = id;
        }
      }
      if (++found >= limit) break;
    }
    if (found >= limit) break;
  }
  out.at = at;
  if (flip !== null) flip.changed = changed;
  return found;
}

/** Whether message `id` is in the narrow: its flags (-1: no row) and row position, or undefined. */
export function lookup(plan: NarrowPlan, src: Source, id: number): [number, number] | undefined {
  const out = singleOut();
  scan(plan, src, id, 1, true, 1, out);
  return out.at === 1 && out.ids[0] === id ? [out.flags[0]!, out.positions[0]!] : undefined;
}
