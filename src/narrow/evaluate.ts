import { FLAG_BITS } from '../core/messages/flags';
import { idChunkFor } from '../core/messages/idlist';
import { lowerBound } from '../core/messages/rows';
import type { MessageChunk } from '../core/messages/store';
import { excludedFromHome } from './context';
import type { NarrowPlan } from './build';

/**
 * Evaluates a narrow plan for its user in message-id order from an anchor, in both directions,
 * without scanning the organization: candidates come from the smallest index list the narrow
 * allows (a topic, a channel, a conversation), else from the user's own rows (or, in history
 * mode, every message). Flags come from the user's rows through a cursor that only moves forward
 * (or backward), so a window of k messages costs O(k) plus a few binary searches.
 */

/** Zulip's LARGER_THAN_MAX_MESSAGE_ID: the "newest" anchor. */
export const NEWEST = 10 ** 16;
/** Flags of a message the user has no row for (Zulip treats it as read and historical). */
export const NO_ROW_FLAGS = FLAG_BITS.read | FLAG_BITS.historical;

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

/** Where a scan writes: typed buffers filled from `at`, one step of `step` (+1 or -1) per match. */
interface Out {
  readonly ids: Int32Array;
  readonly flags: Int32Array;
  readonly positions: Int32Array;
  at: number;
  readonly step: 1 | -1;
}

/**
 * The flag tests folded into masks: every bit of `all` set, no bit of `none` set, and for each
 * multi-bit "some bit set" test (is:mentioned) at least one bit of it.
 */
interface FlagMasks {
  readonly all: number;
  readonly none: number;
  readonly any: readonly number[];
}

function foldFlagTests(tests: NarrowPlan['flagTests']): FlagMasks {
  let all = 0;
  let none = 0;
  const any: number[] = [];
  for (const t of tests) {
    if (!t.set) none |= t.mask;
    else if ((t.mask & (t.mask - 1)) === 0) all |= t.mask;
    else any.push(t.mask);
  }
  return { all, none, any };
}

/** A sorted id source: chunks of ids, with the flags alongside when the source is the user's rows. */
interface Source {
  readonly chunks: readonly Int32Array[];
  readonly flags: readonly Uint16Array[] | null;
  /** The message store's own chunks (history mode over every message): no lookup needed. */
  readonly messages: readonly MessageChunk[] | null;
  /** Whether each channel row must pass the access rule (rows of channels the user cannot read are skipped). */
  readonly accessPerRow: boolean;
}

function sourceOf(plan: NarrowPlan): Source | null {
  const { ctx } = plan;
  if (plan.empty) return null;
  const history = plan.history;
  if (plan.single !== null) {
    return {
      chunks: [Int32Array.of(plan.single)],
      flags: null,
      messages: null,
      accessPerRow: !history && !ctx.allRowsReadable,
    };
  }
  if (plan.drive !== null) {
    // Lists of one channel need the access check once, lists of a conversation never.
    let access = false;
    const channel = plan.driveChannel;
    if (!history && channel !== null && !ctx.rowChannelReadable(channel)) return null;
    if (!history && channel === null && !plan.driveConversation) access = !ctx.allRowsReadable;
    return { chunks: plan.drive.chunks, flags: null, messages: null, accessPerRow: access };
  }
  if (history) {
    const messages = ctx.state.messages.chunks;
    return { chunks: messages.map((c) => c.ids), flags: null, messages, accessPerRow: false };
  }
  const rows = ctx.rows;
  return {
    chunks: rows.chunks.map((c) => c.ids),
    flags: rows.chunks.map((c) => c.flags),
    messages: null,
    accessPerRow: !ctx.allRowsReadable,
  };
}

/** Finds ids in the user's rows, moving monotonically. */
class RowCursor {
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
      this.ci = idChunkForRows(chunks, id);
      c = chunks[this.ci]!;
      this.i = 0;
    }
    const ids = c.ids;
    let i = this.i;
    if (ids[i] !== id) {
      if (ids[i + 1] === id) i++;
      else if (ids[i - 1] === id) i--;
      else i = lowerBound(ids, id);
    }
    this.i = i;
    return i < ids.length && ids[i] === id ? c.flags[i]! : -1;
  }
}

function idChunkForRows(chunks: ReadonlyArray<{ readonly ids: Int32Array }>, id: number): number {
  let lo = 0;
  let hi = chunks.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (chunks[mid]!.ids[0]! <= id) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Finds messages in the store, moving monotonically. */
class MessageCursor {
  private ci = 0;
  chunk: MessageChunk | undefined;
  index = 0;
  constructor(private readonly chunks: readonly MessageChunk[]) {}

  seek(id: number): boolean {
    const chunks = this.chunks;
    if (chunks.length === 0) return false;
    let c = chunks[this.ci]!;
    if (id < c.ids[0]! || id > c.ids[c.ids.length - 1]!) {
      this.ci = idChunkForRows(chunks, id);
      c = chunks[this.ci]!;
      this.index = 0;
    }
    const ids = c.ids;
    let i = this.index;
    if (ids[i] !== id) {
      if (ids[i + 1] === id) i++;
      else if (ids[i - 1] === id) i--;
      else i = lowerBound(ids, id);
    }
    this.index = i;
    this.chunk = c;
    return i < ids.length && ids[i] === id;
  }
}

/** Scans the source from `start` in direction `dir`, writing up to `limit` matching rows into `out`. */
function scan(
  plan: NarrowPlan,
  src: Source,
  start: number,
  dir: 1 | -1,
  inclusive: boolean,
  limit: number,
  out: Out,
): number {
  if (limit <= 0 || src.chunks.length === 0) return 0;
  const { ctx, messageTests, history } = plan;
  const masks = foldFlagTests(plan.flagTests);
  const needAll = masks.all;
  const needNone = masks.none;
  const anyMasks = masks.any;
  const nAny = anyMasks.length;
  const nMsg = messageTests.length;
  const rowCursor = src.flags === null ? new RowCursor(ctx.rows.chunks) : null;
  const msgCursor =
    src.messages === null && (nMsg > 0 || src.accessPerRow)
      ? new MessageCursor(ctx.state.messages.chunks)
      : null;
  const accessPerRow = src.accessPerRow;
  const chunks = src.chunks;
  let ci = idChunkFor(chunks, start);
  let i = lowerBound(chunks[ci]!, start);
  if (dir === 1) {
    if (!inclusive && i < chunks[ci]!.length && chunks[ci]![i] === start) i++;
  } else {
    // First position ≤ start (or < start when exclusive).
    const c = chunks[ci]!;
    if (!(i < c.length && c[i] === start && inclusive)) i--;
    if (i < 0) {
      ci--;
      if (ci < 0) return 0;
      i = chunks[ci]!.length - 1;
    }
  }
  const outIds = out.ids;
  const outFlags = out.flags;
  const outPos = out.positions;
  const step = out.step;
  let at = out.at;
  let found = 0;
  for (; ci >= 0 && ci < chunks.length; ci += dir, i = dir === 1 ? 0 : (chunks[ci]?.length ?? 0) - 1) {
    const ids = chunks[ci]!;
    const flagChunk = src.flags?.[ci];
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
      if (++found >= limit) {
        out.at = at;
        return found;
      }
    }
  }
  out.at = at;
  return found;
}

/** Whether message `id` is in the narrow: its flags (-1: no row) and row position, or undefined. */
function lookup(plan: NarrowPlan, src: Source, id: number): [number, number] | undefined {
  const out: Out = {
    ids: new Int32Array(1),
    flags: new Int32Array(1),
    positions: new Int32Array(1),
    at: 0,
    step: 1,
  };
  scan(plan, src, id, 1, true, 1, out);
  return out.at === 1 && out.ids[0] === id ? [out.flags[0]!, out.positions[0]!] : undefined;
}

/**
 * Scratch buffers for one selection, reused across calls (a window is at most 5001 rows for this
 * endpoint): zeroing and collecting three fresh 20 KB arrays per request cost more than the scan.
 * Evaluation is synchronous and calls no outside code, so one set is enough.
 */
let scratchBuffers = { ids: new Int32Array(0), flags: new Int32Array(0), positions: new Int32Array(0) };
function scratch(size: number): { ids: Int32Array; flags: Int32Array; positions: Int32Array } {
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
      const out: Out = { ids, flags, positions, at: numBefore - 1, step: -1 };
      before = scan(plan, src, right ? 0x7fffffff : anchor, -1, right, numBefore, out);
      first = numBefore - before;
    }
    if (!left && !right) {
      const withAnchor = includeAnchor || (numBefore === 0 && numAfter === 0);
      const f = withAnchor ? lookup(plan, src, anchor) : undefined;
      if (f !== undefined) {
        ids[end] = anchor;
        flags[end] = f[0];
        positions[end] = f[1];
        end++;
      }
    }
    if (numAfter > 0) {
      const out: Out = { ids, flags, positions, at: end, step: 1 };
      after = scan(plan, src, anchor, 1, left, numAfter, out);
      end = out.at;
    }
  }
  // Copied out of the scratch buffers: the selection outlives the next call.
  return {
    ids: ids.slice(first, end),
    flags: flags.slice(first, end),
    positions: positions.slice(first, end),
    foundOldest: left || before < numBefore,
    foundNewest: right || after < numAfter,
  };
}

/**
 * The `first_unread` anchor: the oldest unread message of the narrow among the user's own rows,
 * skipping muted topics and channels (a channel term limits topic muting to that channel and
 * turns channel muting off; DM narrows skip muting). NEWEST when there is none.
 *
 * @example
 * ```ts
 * const built = buildNarrow(realm, realm.users.get(4)!, []);
 * if (!built.ok) throw new Error(built.error.msg);
 * const anchor = firstUnreadAnchor(built.plan);
 * const window = selectWindow(built.plan, anchor, 0, 10, true);
 * if (anchor < 10 ** 16) expect(window.ids[0]).toBe(anchor);
 * ```
 */
export function firstUnreadAnchor(plan: NarrowPlan): number {
  const { ctx } = plan;
  const rowsOnly: NarrowPlan = {
    ...plan,
    history: false,
    flagTests: [...plan.flagTests, { mask: FLAG_BITS.read, set: false }],
    messageTests: plan.dmNarrow ? plan.messageTests : [...plan.messageTests, mutingTest(plan)],
  };
  const src = sourceOf(rowsOnly);
  if (src === null) return NEWEST;
  const out: Out = {
    ids: new Int32Array(1),
    flags: new Int32Array(1),
    positions: new Int32Array(1),
    at: 0,
    step: 1,
  };
  scan(rowsOnly, src, 0, 1, true, 1, out);
  void ctx;
  return out.at === 1 ? out.ids[0]! : NEWEST;
}

function mutingTest(plan: NarrowPlan): (c: MessageChunk, i: number) => boolean {
  const muting = plan.ctx.mutingInfo;
  const channel = plan.channelTerm;
  if (channel === null)
    return (c, i) => !(c.recipient[i]! > 0 && excludedFromHome(muting, c.recipient[i]!, c.topicKey[i]!));
  const topics = muting.policies.get(channel);
  return (c, i) => !(c.recipient[i] === channel && topics?.get(c.topicKey[i]!) === 1);
}
