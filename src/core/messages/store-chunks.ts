import { chunkContaining } from './rows';
import { messageChunk, type MessageChunk } from './store-types';

/** Column arrays for a chunk of `n` messages (content is filled separately: it is not a typed array). */
export function allocChunk(n: number) {
  return {
    ids: new Int32Array(n),
    recipient: new Int32Array(n),
    topic: new Int32Array(n),
    topicKey: new Int32Array(n),
    sender: new Int32Array(n),
    timestamp: new Float64Array(n),
    bits: new Uint8Array(n),
  };
}

/** A plain chunk of `allocChunk`'s columns and `content` (one hidden class for all: `messageChunk`). */
export function chunkOf(c: ReturnType<typeof allocChunk>, content: readonly string[]): MessageChunk {
  return messageChunk(c.ids, c.recipient, c.topic, c.topicKey, c.sender, c.timestamp, c.bits, content);
}

/** The chunk that would hold `id` (the last one whose first id is ≤ id), or -1 when there are none. */
export function chunkIndexOf(chunks: readonly MessageChunk[], id: number): number {
  return chunkContaining(chunks, id);
}

/** A copy of chunk `c` without the messages at `positions` (any order), or undefined when none is left. */
export function withoutPositions(c: MessageChunk, positions: number[]): MessageChunk | undefined {
  const n = c.ids.length - positions.length;
  if (n === 0) return undefined;
  positions.sort((a, b) => a - b);
  const out = allocChunk(n);
  const content = new Array<string>(n);
  // Copy the runs between removed messages as blocks.
  let from = 0;
  let j = 0;
  const copyRun = (to: number) => {
    out.ids.set(c.ids.subarray(from, to), j);
    out.recipient.set(c.recipient.subarray(from, to), j);
    out.topic.set(c.topic.subarray(from, to), j);
    out.topicKey.set(c.topicKey.subarray(from, to), j);
    out.sender.set(c.sender.subarray(from, to), j);
    out.timestamp.set(c.timestamp.subarray(from, to), j);
    out.bits.set(c.bits.subarray(from, to), j);
    for (let i = from; i < to; i++) content[j++] = c.content[i]!;
  };
  for (const p of positions) {
    copyRun(p);
    from = p + 1;
  }
  copyRun(c.ids.length);
  return chunkOf(out, content);
}
