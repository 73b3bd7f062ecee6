import { IntMap } from '../collections/int-map';
import { isOtherClient } from './client-names';
import { carryConversationIndexes } from '../indexes/conversation-indexes';
import { ID_CHUNK, type IdList } from './idlist';
import { conversationKey, foldedTopicId, type Interner } from './interner';
import { carryRowHoldersOnAppend } from './row-holders';
import { carrySearchIndex } from '../search/search-index';
import { flatString } from '../text/flat-string';
import { chunkColumns, MESSAGE_CHUNK, MessageStore, type MessageChunk } from './store-types';

/** A new message, newer than every message in the store. */
export interface AppendedMessage {
  readonly id: number;
  readonly sender: number;
  readonly timestamp: number;
  /** `MESSAGE_BITS`. */
  readonly bits: number;
  readonly content: string;
  /** A channel message's channel, or null for a direct message. */
  readonly streamId: number | null;
  /** Channel messages: the topic. */
  readonly topic: string;
  /** Direct messages: every participant, sender included. */
  readonly participants: readonly number[];
  /** The sending client's name, kept in `MessageStore.clients` when `bits` says `OTHER_CLIENT`. */
  readonly client?: string | undefined;
}

/**
 * A message's UserMessage rows as two parallel columns (one user each, any order): no object per
 * recipient. `flags` may be longer than `userIds` (a reused buffer); only the first entries count.
 */
export interface RowBatch {
  readonly userIds: ArrayLike<number>;
  readonly flags: ArrayLike<number>;
}

/**
 * The id the next message takes: one past the largest the realm ever had (`lastId`), so the id of
 * a deleted newest message is never reused; never less than one past the newest stored.
 */
export function nextMessageId(store: MessageStore): number {
  return Math.max(store.lastId, newestStoredId(store)) + 1;
}

/** The newest stored message's id, or 0 when the store is empty. */
export function newestStoredId(store: MessageStore): number {
  const last = store.lastChunk;
  return last === undefined ? 0 : newestInChunk(last, 'ids');
}

/**
 * The last entry of one of a chunk's number columns (an empty chunk: 0), read without making the
 * column's view when appends built the chunk: a send asks this of the previous state's newest
 * chunk, which is never read otherwise.
 */
export function newestInChunk(chunk: MessageChunk, column: 'ids' | 'timestamp'): number {
  return TailChunk.newest(chunk, column);
}

/** How many messages a chunk holds (`ids.length`), without making a view of an appended chunk's ids. */
export function chunkLength(chunk: MessageChunk): number {
  return TailChunk.lengthOf(chunk);
}

/**
 * Appends one message and its UserMessage rows (`rows`: a `RowBatch`, or [user id, flag bits]
 * pairs; one per user, any order). The cost is O(rows + log n) with no object per recipient: the
 * last message chunk, each recipient's row buffer and the last chunk of each index list grow in
 * place (`grow.ts`, `row-tail.ts`); the new state's row lengths are copied 32 users at a time
 * (`RowTable.appendAll`), and the interners learn a new topic or conversation. Every index
 * (`byChannel`, `byTopic`, `byConversation`, `bySender`, row holders, direct-message partners, the
 * search index) stays in step.
 */
export function appendMessage(
  store: MessageStore,
  message: AppendedMessage,
  rows: RowBatch | ReadonlyArray<readonly [number, number]>,
): MessageStore {
  const batch = 'userIds' in rows ? rows : { userIds: rows.map(([u]) => u), flags: rows.map(([, f]) => f) };
  const { id } = message;
  if (id < nextMessageId(store)) throw new RangeError(`message ${id} is not newer than the store`);
  let { topics, foldedTopics, conversations, byChannel, byTopic, byConversation } = store;
  let recipient: number;
  let topicId = 0;
  let topicKey = 0;
  if (message.streamId !== null) {
    recipient = message.streamId;
    const topic = message.topic;
    // One lookup per table, no [table, id] tuples.
    const exact = topics.ids.get(topic);
    if (exact === undefined) {
      topicId = topics.names.maxKey() + 1;
      topics = interned(topics, topic, topicId);
    } else topicId = exact;
    // The send's checks asked the same table for this topic: `foldedTopicId` answers from its memo.
    const folded = foldedTopicId(foldedTopics, topic);
    if (folded === undefined) {
      topicKey = foldedTopics.names.maxKey() + 1;
      foldedTopics = interned(foldedTopics, topic.toLowerCase(), topicKey);
    } else topicKey = folded;
    byChannel = byChannel.setWith(recipient, appendId, id);
    const perTopic = byTopic.get(recipient) ?? IntMap.empty<IdList>();
    byTopic = byTopic.set(recipient, perTopic.setWith(topicKey, appendId, id));
  } else {
    const key = conversationKey(message.participants);
    let cid: number;
    const before = conversations;
    [conversations, cid] = intern(conversations, key);
    if (conversations !== before) carryConversationIndexes(before, conversations, message.participants);
    recipient = -cid;
    byConversation = byConversation.setWith(cid, appendId, id);
  }
  const bySender = store.bySender.setWith(message.sender, appendId, id);
  const { older, last } = MessageStore.appendPoint(store);
  const newest = appendToChunk(last, message, recipient, topicId, topicKey);

  const { userIds, flags } = batch;
  const userRows = store.rows.appendAll(userIds, id, flags);
  carryRowHoldersOnAppend(store, userRows, recipient, userIds);
  const next = MessageStore.appended(
    {
      count: store.count + 1,
      lastId: id,
      topics,
      conversations,
      reactions: store.reactions,
      rows: userRows,
      foldedTopics,
      byChannel,
      byTopic,
      byConversation,
      bySender,
      edits: store.edits,
      clients:
        isOtherClient(message.bits) && message.client !== undefined
          ? store.clients.set(id, message.client)
          : store.clients,
    },
    // A full chunk joins the older ones (a copy of the list once per 4,096 messages).
    newest.fresh && last !== undefined ? [...older, last] : older,
    newest.chunk,
  );
  carrySearchIndex(store, next, [id]);
  return next;
}

/** `table` with `name` added as `id` (one past the largest: ids are never reused). */
function interned(table: Interner, name: string, id: number): Interner {
  const kept = flatString(name);
  return { ids: table.ids.set(kept, id), names: table.names.set(id, kept) };
}

/** The table with `name` interned (ids are never reused: the next is one past the largest). */
function intern(table: Interner, name: string): [Interner, number] {
  const known = table.ids.get(name);
  if (known !== undefined) return [table, known];
  const next = table.names.maxKey() + 1;
  return [interned(table, name, next), next];
}

/**
 * The full-size buffers behind the newest message chunk, shared by every state whose last chunk is
 * a view of them (the frontier rule of `grow.ts`, once for all eight columns instead of per column):
 * a state appends in place only when its chunk ends at `frontier`; any other chunk (a fork, or one
 * rebuilt by an edit or deletion) is copied into fresh buffers once. Derived from `MessageChunk`, so a
 * new column is one place to add (and the literals below fail to compile until it is filled in).
 */
type MessageTail = Omit<MessageChunk, 'content'> & {
  /** Plain and growable here; each chunk sees its own prefix of it. */
  readonly content: string[];
  /**
   * Each column's buffer, read once when the tail is made: a view built on a kept buffer costs
   * about half of one built on `column.buffer` (the getter is a call per column per send).
   */
  readonly buffers: { readonly [K in keyof Omit<MessageChunk, 'content'>]: ArrayBufferLike };
  frontier: number;
};

/**
 * The newest chunk as appends leave it: its tail and how many of the tail's messages it holds, in
 * private fields (a field, not a side table: a `WeakMap` entry per send cost more than the rest of
 * the chunk append). Readers see a `MessageChunk` whose columns are getters making views of the
 * tail's prefix, so a spread of it has no columns: copy one with `chunkColumns` (store-types.ts).
 */
class TailChunk implements MessageChunk {
  readonly #tail: MessageTail;
  readonly #n: number;
  #ids: Int32Array | undefined;
  #recipient: Int32Array | undefined;
  #topic: Int32Array | undefined;
  #topicKey: Int32Array | undefined;
  #sender: Int32Array | undefined;
  #timestamp: Float64Array | undefined;
  #bits: Uint8Array | undefined;

  constructor(tail: MessageTail, n: number) {
    this.#tail = tail;
    this.#n = n;
  }

  // Each column's view is made when first read: most states' newest chunk is read for its ids and
  // times only (by the next send) before it is replaced. Views by constructor, not `subarray`: no
  // species lookup (a tail's columns are whole buffers of their own, at offset 0).
  get ids(): Int32Array {
    return (this.#ids ??= new Int32Array(this.#tail.buffers.ids, 0, this.#n));
  }
  get recipient(): Int32Array {
    return (this.#recipient ??= new Int32Array(this.#tail.buffers.recipient, 0, this.#n));
  }
  get topic(): Int32Array {
    return (this.#topic ??= new Int32Array(this.#tail.buffers.topic, 0, this.#n));
  }
  get topicKey(): Int32Array {
    return (this.#topicKey ??= new Int32Array(this.#tail.buffers.topicKey, 0, this.#n));
  }
  get sender(): Int32Array {
    return (this.#sender ??= new Int32Array(this.#tail.buffers.sender, 0, this.#n));
  }
  get timestamp(): Float64Array {
    return (this.#timestamp ??= new Float64Array(this.#tail.buffers.timestamp, 0, this.#n));
  }
  get bits(): Uint8Array {
    return (this.#bits ??= new Uint8Array(this.#tail.buffers.bits, 0, this.#n));
  }
  get content(): readonly string[] {
    return this.#tail.content;
  }

  /** The chunk as a plain object of its columns (what serializers and test diffs show). */
  toJSON(): MessageChunk {
    return chunkColumns(this);
  }

  /** The tail behind `chunk` when appends built it. */
  static tailOf(chunk: MessageChunk): MessageTail | undefined {
    return chunk instanceof TailChunk ? chunk.#tail : undefined;
  }

  static lengthOf(chunk: MessageChunk): number {
    return chunk instanceof TailChunk ? chunk.#n : chunk.ids.length;
  }

  static newest(chunk: MessageChunk, column: 'ids' | 'timestamp'): number {
    // A tail's slots below a state's length are never written again (appends write at the frontier).
    if (chunk instanceof TailChunk) return chunk.#n === 0 ? 0 : chunk.#tail[column][chunk.#n - 1]!;
    const values = chunk[column];
    return values.length === 0 ? 0 : values[values.length - 1]!;
  }
}

/** `m` appended to `last` (the store's newest chunk), or to a new chunk when `fresh` (none, or full). */
function appendToChunk(
  last: MessageChunk | undefined,
  m: AppendedMessage,
  recipient: number,
  topicId: number,
  topicKey: number,
): { readonly chunk: MessageChunk; readonly fresh: boolean } {
  const length = last === undefined ? 0 : TailChunk.lengthOf(last);
  const fresh = last === undefined || length >= MESSAGE_CHUNK;
  const n = fresh ? 0 : length;
  let tail = fresh ? undefined : TailChunk.tailOf(last);
  // An immer-produced state freezes the plain content array: such a tail is copied like a fork
  // (the text is written first, and a refused write is how a frozen column is found).
  if (
    tail === undefined ||
    tail.frontier !== n ||
    n >= tail.ids.length ||
    !writeText(tail.content, n, m.content)
  ) {
    // A new chunk gets its full size at once; a copy (fork, rebuilt chunk) twice what it holds.
    tail = newMessageTail(fresh ? MESSAGE_CHUNK : Math.min(MESSAGE_CHUNK, Math.max(16, 2 * (n + 1))));
    if (!fresh) copyInto(tail, last);
    tail.content[n] = m.content;
  }
  tail.ids[n] = m.id;
  tail.recipient[n] = recipient;
  tail.topic[n] = topicId;
  tail.topicKey[n] = topicKey;
  tail.sender[n] = m.sender;
  tail.timestamp[n] = m.timestamp;
  tail.bits[n] = m.bits;
  tail.frontier = n + 1;
  return { chunk: new TailChunk(tail, n + 1), fresh };
}

/**
 * Whether `text` could be written at `n` of a tail's content column: false when the column is
 * frozen. The write is tried rather than `Object.isExtensible` asked first, a runtime call on
 * every send; a frozen array refuses it with a TypeError in strict code (and ignores it in
 * sloppy code, which the read-back catches).
 */
function writeText(content: string[], n: number, text: string): boolean {
  try {
    content[n] = text;
  } catch {
    return false;
  }
  return content[n] === text;
}

function newMessageTail(cap: number): MessageTail {
  const ids = new Int32Array(cap);
  const recipient = new Int32Array(cap);
  const topic = new Int32Array(cap);
  const topicKey = new Int32Array(cap);
  const sender = new Int32Array(cap);
  const timestamp = new Float64Array(cap);
  const bits = new Uint8Array(cap);
  return {
    ids,
    recipient,
    topic,
    topicKey,
    sender,
    timestamp,
    bits,
    content: [],
    buffers: {
      ids: ids.buffer,
      recipient: recipient.buffer,
      topic: topic.buffer,
      topicKey: topicKey.buffer,
      sender: sender.buffer,
      timestamp: timestamp.buffer,
      bits: bits.buffer,
    },
    frontier: 0,
  };
}

function copyInto(tail: MessageTail, c: MessageChunk): void {
  const n = c.ids.length;
  tail.ids.set(c.ids);
  tail.recipient.set(c.recipient);
  tail.topic.set(c.topic);
  tail.topicKey.set(c.topicKey);
  tail.sender.set(c.sender);
  tail.timestamp.set(c.timestamp);
  tail.bits.set(c.bits);
  // Content may be longer than the chunk (a shared array): only the chunk's own entries.
  for (let i = 0; i < n; i++) tail.content.push(c.content[i]!);
  tail.frontier = n;
}

/** The buffer behind an id list's last chunk as appends leave it: written below `frontier` (grow.ts's rule). */
interface IdTail {
  readonly buffer: Int32Array;
  frontier: number;
}

/**
 * An id list as appends leave it: its full chunks (`sealed`, shared by every later list until the
 * next one fills) and the first `n` ids of a tail buffer. The tail and the sealed chunks are private
 * fields (invisible to readers and to deep equality); `chunks` is put together when first read and
 * kept. So an append makes one object and no copy of the list: a channel's or a sender's list grows
 * a chunk every 4,096 messages, and copying the list of chunks per send (as the list was kept
 * before) cost every send more the longer the realm lived.
 */
class AppendedIdList implements IdList {
  readonly #sealed: readonly Int32Array[];
  readonly #tail: IdTail;
  readonly #n: number;
  #chunks: readonly Int32Array[] | undefined;

  constructor(
    sealed: readonly Int32Array[],
    readonly count: number,
    tail: IdTail,
    n: number,
  ) {
    this.#sealed = sealed;
    this.#tail = tail;
    this.#n = n;
  }

  get chunks(): readonly Int32Array[] {
    return (this.#chunks ??= [...this.#sealed, new Int32Array(this.#tail.buffer.buffer, 0, this.#n)]);
  }

  /** `id` (larger than all of the list's ids) appended to `list`, when appends built it. */
  static appended(list: IdList, id: number): IdList | undefined {
    if (!(list instanceof AppendedIdList)) return undefined;
    const n = list.#n;
    const sealed = list.#sealed;
    if (n >= ID_CHUNK) {
      // The tail is full: sealed (a view, so the buffer is shared with older lists) and a new one started.
      return withChunkStarted(
        [...sealed, new Int32Array(list.#tail.buffer.buffer, 0, n)],
        list.count,
        id,
        ID_CHUNK,
      );
    }
    let tail = list.#tail;
    if (tail.frontier !== n || n >= tail.buffer.length) {
      // A fork, or a full buffer: copied once into one with room.
      const buffer = new Int32Array(grownIdCapacity(n));
      buffer.set(tail.buffer.subarray(0, n));
      tail = { buffer, frontier: n };
    }
    tail.buffer[n] = id;
    tail.frontier = n + 1;
    return new AppendedIdList(sealed, list.count + 1, tail, n + 1);
  }

  /** The list's last id without putting its chunks together. */
  static lastOf(list: IdList): number | undefined {
    if (!(list instanceof AppendedIdList)) {
      const last = list.chunks[list.chunks.length - 1];
      return last === undefined ? undefined : last[last.length - 1];
    }
    return list.#n === 0 ? undefined : list.#tail.buffer[list.#n - 1];
  }
}

/** The largest id of a list (its last), or undefined when it is empty. */
export function lastIdOf(list: IdList): number | undefined {
  return AppendedIdList.lastOf(list);
}

/** An id list with `id` (larger than all of its ids) appended. */
export function appendId(list: IdList | undefined, id: number): IdList {
  if (list === undefined || list.count === 0) return withChunkStarted([], 0, id, FIRST_IDS);
  const appended = AppendedIdList.appended(list, id);
  if (appended !== undefined) return appended;
  // A list built or changed elsewhere: its last chunk, when not full, is copied once into a tail.
  const chunks = list.chunks;
  const last = chunks[chunks.length - 1]!;
  const n = last.length;
  if (n >= ID_CHUNK) return withChunkStarted(chunks, list.count, id, ID_CHUNK);
  const buffer = new Int32Array(grownIdCapacity(n));
  buffer.set(last);
  buffer[n] = id;
  return new AppendedIdList(chunks.slice(0, -1), list.count + 1, { buffer, frontier: n + 1 }, n + 1);
}

/** A new id list's first tail, in ids: 64 bytes, so on V8's heap rather than an off-heap buffer. */
const FIRST_IDS = 16;

/** The capacity of a tail that must hold `n` ids and grow: doubled, at least `FIRST_IDS`, at most a chunk. */
function grownIdCapacity(n: number): number {
  return Math.min(ID_CHUNK, Math.max(FIRST_IDS, 2 * n));
}

/**
 * `sealed` (full chunks, shared) and a new tail holding `id`, of `capacity` ids: `FIRST_IDS` for a new list
 * (on V8's heap, and doubled as it fills), a whole chunk after a full one. A list that filled 4,096
 * ids (a busy channel's, topic's or sender's) fills the next: one off-heap allocation per chunk
 * instead of eight growths and their copies (an allocation costs 1–46 µs on the 2-CPU bench
 * machines, most of it the guest's page faults on fresh memory).
 */
function withChunkStarted(
  sealed: readonly Int32Array[],
  count: number,
  id: number,
  capacity: number,
): IdList {
  const buffer = new Int32Array(capacity);
  buffer[0] = id;
  return new AppendedIdList(sealed, count + 1, { buffer, frontier: 1 }, 1);
}
