/**
 * Scratch columns for `unread_msgs`, kept from one register to the next. Its columns are sized by
 * the user's unread rows (up to 50,000): a register made a dozen fresh typed arrays of 50,000
 * slots, each a zeroed off-heap allocation whose pages were faulted in anew (0.1–0.3 ms per
 * register) and whose backing stores the young-generation collections then had to free. A column
 * is handed out as a view of exactly the length asked for, over a buffer that only grows (at most
 * a few MB in all, once per process). Nothing here is read before the caller writes it: callers
 * that need a starting value (`fill`) set it, so no answer depends on an earlier register.
 * Not reentrant: one `unreadMsgs` call at a time, which a synchronous function guarantees.
 */

const int32s: Int32Array[] = [];
const uint16s: Uint16Array[] = [];
const uint8s: Uint8Array[] = [];

/** Grows a slot's buffer to at least `n` (by half again, so a slowly rising `n` reallocates rarely). */
function capacity(have: number, n: number): number {
  return Math.max(n, have + (have >> 1));
}

/** An Int32Array view of `n` slots of scratch column `slot`, contents unspecified. */
export function scratchInt32(slot: number, n: number): Int32Array {
  let buf = int32s[slot];
  if (buf === undefined || buf.length < n) int32s[slot] = buf = new Int32Array(capacity(buf?.length ?? 0, n));
  return buf.subarray(0, n);
}

/** A Uint16Array view of `n` slots of scratch column `slot`, contents unspecified. */
export function scratchUint16(slot: number, n: number): Uint16Array {
  let buf = uint16s[slot];
  if (buf === undefined || buf.length < n)
    uint16s[slot] = buf = new Uint16Array(capacity(buf?.length ?? 0, n));
  return buf.subarray(0, n);
}

/** A Uint8Array view of `n` slots of scratch column `slot`, contents unspecified. */
export function scratchUint8(slot: number, n: number): Uint8Array {
  let buf = uint8s[slot];
  if (buf === undefined || buf.length < n) uint8s[slot] = buf = new Uint8Array(capacity(buf?.length ?? 0, n));
  return buf.subarray(0, n);
}
