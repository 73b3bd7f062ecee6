import type { RowFlip } from '../core/messages/row-flip';
import type { NarrowPlan } from './plan';
import { lookup, scan, type Out } from './scan';
import { sourceOf } from './source';

/**
 * Window selection around an anchor: the before side scanned downwards, the anchor looked up on
 * its own, the after side scanned upwards, all into one buffer.
 */

/** Zulip's LARGER_THAN_MAX_MESSAGE_ID: the "newest" anchor. */
export const NEWEST = 10 ** 16;

export interface Selection {
  /** Selected ids, ascending. */
  readonly ids: Int32Array;
  /** Each selected message's row flags, or -1 when the user has no row. */
  readonly flags: Int32Array;
  /** Each selected message's row position in the user's rows (`chunk * 65536 + index`), or -1. */
  readonly positions: Int32Array;
  readonly foundOldest: boolean;
  readonly foundNewest: boolean;
}

interface Buffers {
  ids: Int32Array;
  flags: Int32Array;
  positions: Int32Array;
}

/**
 * Scratch buffers for one selection, reused across calls (a window is at most 5001 rows for this
 * endpoint): zeroing and collecting three fresh 20 KB arrays per request cost more than the scan.
 * Evaluation is synchronous and calls no outside code, so one set is enough.
 */
let scratchBuffers: Buffers = {
  ids: new Int32Array(0),
  flags: new Int32Array(0),
  positions: new Int32Array(0),
};
function scratch(size: number): Buffers {
  if (scratchBuffers.ids.length < size) {
    const cap = Math.max(size, 8192);
    scratchBuffers = { ids: new Int32Array(cap), flags: new Int32Array(cap), positions: new Int32Array(cap) };
  }
  return scratchBuffers;
}

/**
 * Zulip's range selection (§3.5): `anchor` 0 is "oldest", ≥ 10^16 "newest"; counts are already
 * clamped. Returns ids ascending with found_oldest/found_newest.
 *
 * @example
 * ```ts
 * const built = buildNarrow(realm, realm.users.get(4)!, [{ operator: 'channel', operand: 'Verona', negated: false }]);
 * if (!built.ok) throw new Error(built.error.msg);
 * const all = selectWindow(built.plan, 0, 0, 5000, true); // from the oldest, up to 5000 messages
 * expect(all).toMatchObject({ foundOldest: true, foundNewest: true });
 * const lastTwo = selectWindow(built.plan, 10 ** 16, 2, 0, true); // the newest two
 * expect([...lastTwo.ids]).toEqual([...all.ids].slice(-2));
 * ```
 */
export function selectWindow(
  plan: NarrowPlan,
  anchor: number,
  numBefore: number,
  numAfter: number,
  includeAnchor: boolean,
  /**
   * Return views of the scratch buffers instead of copies: valid only until the next call (for a
   * caller that consumes the selection at once; saves three window-sized copies per request).
   */
  views = false,
  /**
   * Flip each selected row the user holds as it is selected (one pass for a flag update): the
   * selection still reports the flags from before.
   */
  flip: RowFlip | null = null,
): Selection {
  const src = sourceOf(plan);
  const left = anchor === 0;
  const right = anchor >= NEWEST;
  if (right) numAfter = 0;
  if (left) numBefore = 0;
  // One buffer: the before side is written downwards from numBefore - 1, the anchor at numBefore,
  // the after side upwards from there; the selection is the filled middle.
  const { ids, flags, positions } = scratch(numBefore + 1 + numAfter);
  let first = numBefore;
  let end = numBefore;
  let before = 0;
  let after = 0;
  if (src !== null) {
    if (numBefore > 0) {
      const out: Out = { ids, flags, positions, at: numBefore - 1, step: -1, flip };
      before = scan(plan, src, right ? 0x7fffffff : anchor, -1, right, numBefore, out);
      first = numBefore - before;
      // Changed ids are collected in scan order: this side's came downwards.
      if (flip !== null) flip.reverseIds();
    }
    if (!left && !right) {
      const withAnchor = includeAnchor || (numBefore === 0 && numAfter === 0);
      const f = withAnchor ? lookup(plan, src, anchor) : undefined;
      if (f !== undefined) {
        ids[end] = anchor;
        flags[end] = f[0];
        positions[end] = f[1];
        end++;
        if (flip !== null && f[0] >= 0) flip.row(anchor, f[1], f[0]);
      }
    }
    if (numAfter > 0) {
      const out: Out = { ids, flags, positions, at: end, step: 1, flip };
      after = scan(plan, src, anchor, 1, left, numAfter, out);
      end = out.at;
    }
  }
  // Copied out of the scratch buffers unless asked for views: a copy outlives the next call.
  const part = views ? (a: Int32Array) => a.subarray(first, end) : (a: Int32Array) => a.slice(first, end);
  return {
    ids: part(ids),
    flags: part(flags),
    positions: part(positions),
    foundOldest: left || before < numBefore,
    foundNewest: right || after < numAfter,
  };
}
