import { FLAG_BITS } from './flags';
import type { RowChunk } from './rows';

/**
 * Which flag bits some row of a chunk has, and which every row has, so that a walk over a user's
 * rows can skip chunks holding nothing for it (register's `starred_messages` and
 * `recent_private_conversations` walked all ~900,000 rows of a heavy user for a few thousand stars
 * and no direct message at all).
 *
 * Derived lazily and remembered by the chunk's flag column, as rendered.ts remembers HTML: a chunk's
 * flags are never written once it is readable (a change copies the chunk, an append writes past
 * every existing view of a tail buffer), so a summary can never go stale, needs no upkeep in any
 * operation, and every older state keeps its own. The newest chunk is not remembered: it may be a
 * short-lived view of a tail buffer that appends replace. One number per chunk of 2048 rows (and,
 * once a register asked, the chunk's starred ids: `starredIn`).
 */
const summaries = new WeakMap<Uint16Array, number>();

/** OR of the flags of chunk `c` of `chunks` (bits 0–15) and their AND (bits 16–31, as a multiple of 65536). */
function summary(chunks: readonly RowChunk[], c: number): number {
  return remembered(summaries, chunks, c, summarize);
}

/**
 * `derive(chunk c)`, remembered in `memo` by the chunk's flag column, except for the newest chunk
 * (see `summaries`).
 */
function remembered<T>(
  memo: WeakMap<Uint16Array, T>,
  chunks: readonly RowChunk[],
  c: number,
  derive: (chunk: RowChunk) => T,
): T {
  const chunk = chunks[c]!;
  if (c === chunks.length - 1) return derive(chunk);
  let value = memo.get(chunk.flags);
  if (value === undefined) memo.set(chunk.flags, (value = derive(chunk)));
  return value;
}

function summarize({ flags }: RowChunk): number {
  let any = 0;
  let every = 0xffff;
  for (let i = 0; i < flags.length; i++) {
    const f = flags[i]!;
    any |= f;
    every &= f;
  }
  return any + every * 65536;
}

/** Whether some row of chunk `c` has a bit of `bits`. */
export function someRowHas(chunks: readonly RowChunk[], c: number, bits: number): boolean {
  return (summary(chunks, c) & 0xffff & bits) !== 0;
}

/** Whether every row of chunk `c` has all of `bits` (true for an empty chunk). */
export function everyRowHas(chunks: readonly RowChunk[], c: number, bits: number): boolean {
  return (Math.floor(summary(chunks, c) / 65536) & bits) === bits;
}

/**
 * The ids of chunk `c`'s starred rows, ascending: remembered by the chunk's flag column as the
 * summaries are (and for the same reason never stale), so register's `starred_messages` costs a
 * load per chunk and not a read of every row of a heavy user's 900,000 each time (most chunks
 * have a star or two, so the summaries alone skipped few).
 */
const starredLists = new WeakMap<Uint16Array, readonly number[]>();

export function starredIn(chunks: readonly RowChunk[], c: number): readonly number[] {
  return remembered(starredLists, chunks, c, starredOf);
}

function starredOf({ ids, flags }: RowChunk): readonly number[] {
  const STARRED = FLAG_BITS.starred;
  // A plain array of small integers: most lists hold a few ids, and a typed array's own objects
  // would outweigh them.
  const out: number[] = [];
  for (let i = 0; i < flags.length; i++) if ((flags[i]! & STARRED) !== 0) out.push(ids[i]!);
  return out;
}
