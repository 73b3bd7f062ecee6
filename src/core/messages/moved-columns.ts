import { chunkColumns, MESSAGE_CHUNK, type MessageChunk } from './store-types';

/**
 * Moving messages without copying whole chunk columns (issue 25, item 5).
 *
 * A topic spread through a busy channel's history has each of its messages in a different 4,096-
 * message chunk, so rewriting the `topic` / `topicKey` / `recipient` columns of every touched chunk
 * costs megabytes for a 1,000-message move. Instead a moved chunk is a new chunk object that shares
 * its base's columns and keeps the moves as a short list of patches; its three moved columns are
 * accessors that fold the patches into fresh copies the first time anything reads them (and cache
 * them). A move therefore costs O(k) plus the index work; the copy is paid once per chunk by the
 * first later reader (a fetch, a narrow scan, a checkpoint), and never by an older state, whose
 * chunks are untouched. A chunk that collects more than `FOLD_AT` patches is folded at once, so a
 * copy always pays for at least that many moves and the patch lists stay short.
 *
 * Everything else sees an ordinary `MessageChunk`; `chunkColumns` (never a spread) copies one with
 * its columns folded, and serializing one folds them too (`toJSON`).
 */

/** A message's new place: its position in the chunk and its new columns. */
interface Patch {
  readonly index: number;
  readonly topic: number;
  readonly topicKey: number;
  readonly recipient: number;
}

/** A moved chunk's unfolded state: the chunk whose columns it shares, and its patches in order. */
interface Pending {
  readonly base: MessageChunk;
  readonly patches: readonly Patch[];
  /** The folded columns, once read. */
  readonly cache: { topic?: Int32Array; topicKey?: Int32Array; recipient?: Int32Array };
}

/** Past this many patches a chunk's columns are copied right away (1/16 of a chunk). */
export const FOLD_AT = MESSAGE_CHUNK / 16;

/** A moved chunk's patches, or undefined for any other chunk. */
function pendingOf(c: MessageChunk): Pending | undefined {
  return c instanceof MovedChunk ? c.pending : undefined;
}

/** Whether `c` has moves none of its columns were read with yet (tests and benchmarks). */
export function hasPendingMoves(c: MessageChunk): boolean {
  const p = pendingOf(c);
  return p !== undefined && p.cache.topic === undefined && p.cache.recipient === undefined;
}

/** Reads `c`'s topic keys by position without folding the chunk's columns. */
export function topicKeys(c: MessageChunk): (i: number) => number {
  const p = pendingOf(c);
  if (p === undefined) return (i) => c.topicKey[i]!;
  const { base, patches } = p;
  return (i) => {
    for (let j = patches.length - 1; j >= 0; j--) if (patches[j]!.index === i) return patches[j]!.topicKey;
    return base.topicKey[i]!;
  };
}

/** Chunk `c` with the messages at the patches' positions moved (older states keep `c` unchanged). */
export function movedChunk(c: MessageChunk, patches: readonly Patch[]): MessageChunk {
  const prior = pendingOf(c);
  const base = prior?.base ?? c;
  const all = prior === undefined ? patches : [...prior.patches, ...patches];
  if (all.length > FOLD_AT) return chunkColumns(c, fold(base, all));
  return new MovedChunk(c, base, all);
}

/**
 * A chunk with moves not yet folded: its moved columns are getters that fold the patches the
 * first time they are read. A class (its getters on the prototype) and not an object literal with
 * getters: each such literal had a hidden class of its own, and readers that met more than four
 * made every column load megamorphic (see `messageChunk`).
 */
class MovedChunk implements MessageChunk {
  readonly ids: Int32Array;
  readonly sender: Int32Array;
  readonly timestamp: Float64Array;
  readonly bits: Uint8Array;
  readonly content: readonly string[];
  readonly pending: Pending;

  constructor(c: MessageChunk, base: MessageChunk, patches: readonly Patch[]) {
    this.ids = c.ids;
    this.sender = c.sender;
    this.timestamp = c.timestamp;
    this.bits = c.bits;
    this.content = c.content;
    this.pending = { base, patches, cache: {} };
  }

  get recipient(): Int32Array {
    const { base, patches, cache } = this.pending;
    return (cache.recipient ??= foldRecipient(base, patches));
  }
  get topic(): Int32Array {
    const { base, patches, cache } = this.pending;
    return (cache.topic ??= foldTopics(base, patches, cache));
  }
  get topicKey(): Int32Array {
    const { base, patches, cache } = this.pending;
    if (cache.topicKey === undefined) foldTopics(base, patches, cache);
    return cache.topicKey!;
  }

  /** The chunk as a plain object of its columns, folded (what serializers and test diffs show). */
  toJSON(): MessageChunk {
    return chunkColumns(this);
  }
}

function fold(base: MessageChunk, patches: readonly Patch[]) {
  const out: { topic?: Int32Array; topicKey?: Int32Array } = {};
  foldTopics(base, patches, out);
  return { topic: out.topic!, topicKey: out.topicKey!, recipient: foldRecipient(base, patches) };
}

/** Folds the topic columns into `into` (both at once: a move changes them together); the topic column. */
function foldTopics(
  base: MessageChunk,
  patches: readonly Patch[],
  into: { topic?: Int32Array; topicKey?: Int32Array },
): Int32Array {
  const topic = base.topic.slice();
  const topicKey = base.topicKey.slice();
  for (const p of patches) {
    topic[p.index] = p.topic;
    topicKey[p.index] = p.topicKey;
  }
  into.topic = topic;
  into.topicKey = topicKey;
  return topic;
}

/** The recipient column is shared as it is unless a patch moved a message to another channel. */
function foldRecipient(base: MessageChunk, patches: readonly Patch[]): Int32Array {
  const from = base.recipient;
  if (patches.every((p) => from[p.index] === p.recipient)) return from;
  const recipient = from.slice();
  for (const p of patches) recipient[p.index] = p.recipient;
  return recipient;
}

/**
 * Message `i`'s recipient and interned topic in `c`, without folding the chunk's columns: for
 * readers of a few messages of many chunks (the search index carried through a move).
 */
export function placeAt(c: MessageChunk, i: number): { readonly recipient: number; readonly topic: number } {
  const p = pendingOf(c);
  if (p === undefined) return { recipient: c.recipient[i]!, topic: c.topic[i]! };
  for (let j = p.patches.length - 1; j >= 0; j--) {
    const q = p.patches[j]!;
    if (q.index === i) return { recipient: q.recipient, topic: q.topic };
  }
  return { recipient: p.base.recipient[i]!, topic: p.base.topic[i]! };
}
