import { lowerBound, lowerBoundFrom } from './rows';
import { chunkIndexOf } from './store-chunks';
import { decode, type MessageRecord } from './store-read';
import type { MessageChunk, MessageStore } from './store-types';

/**
 * A cursor for ids asked in ascending order (the usual case: a selection of messages): it steps
 * from the previous answer instead of searching from scratch, and allocates nothing per lookup.
 * Any order works: the search gallops from the previous position in either direction.
 */
export class MessageCursor {
  private ci = 0;
  /** After a successful `seek`: the chunk and index of the message. */
  chunk: MessageChunk | undefined;
  index = 0;

  constructor(private readonly store: MessageStore) {}

  /**
   * The current chunk's first and last ids, and whether its ids are consecutive (no message of
   * its range deleted): then a message's index is its offset from the first id, found without
   * reading the id column at all (one cache miss fewer per message on a large heap). Starts as
   * an empty range, so the first seek finds its chunk.
   */
  private first = 1;
  private last = 0;
  private dense = false;

  seek(id: number): boolean {
    const chunks = this.store.chunks;
    let c = chunks[this.ci];
    if (c === undefined) return false;
    if (id < this.first || id > this.last) {
      if (id < c.ids[0]! || id > c.ids[c.ids.length - 1]!) {
        // Not in the current chunk: chunks is non-empty here, so the index is never -1.
        this.ci = chunkIndexOf(chunks, id);
        c = chunks[this.ci]!;
      }
      this.first = c.ids[0]!;
      this.last = c.ids[c.ids.length - 1]!;
      this.dense = this.last - this.first === c.ids.length - 1;
      this.chunk = c;
      if (this.dense && id >= this.first && id <= this.last) {
        this.index = id - this.first;
        return true;
      }
      const dense = id - this.first;
      this.index = c.ids[dense] === id ? dense : lowerBound(c.ids, id);
      return c.ids[this.index] === id;
    }
    this.chunk = c;
    if (this.dense) {
      this.index = id - this.first;
      return true;
    }
    if (c.ids[this.index] !== id) {
      // A chunk's ids are usually consecutive (gaps only where messages were deleted), so `id`'s
      // offset from the chunk's first id is tried before galloping from the previous position.
      const dense = id - this.first;
      this.index =
        c.ids[this.index + 1] === id
          ? this.index + 1
          : c.ids[dense] === id
            ? dense
            : lowerBoundFrom(c.ids, id, this.index);
    }
    return c.ids[this.index] === id;
  }

  /** Message `id` decoded, or undefined: `getMessage` without a search per id. */
  read(id: number): MessageRecord | undefined {
    return this.seek(id) ? decode(this.store, this.chunk!, this.index) : undefined;
  }

  /** The channel of message `id` (a stream id), 0 for a direct message, -1 when there is no such message. */
  channelOf(id: number): number {
    if (!this.seek(id)) return -1;
    const r = this.chunk!.recipient[this.index]!;
    return r > 0 ? r : 0;
  }
}
