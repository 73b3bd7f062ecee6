import { IntMap } from '../collections/int-map';
import type { Reaction } from '../model/records';
import { conversationKey, conversationParticipants, emptyInterner, intern, nameOf, type Interner } from './interner';
import { MESSAGE_BITS } from './flags';
import { buildRows, deleteRows, lowerBound, type UserRows } from './rows';

/**
 * The message store: messages as columns in fixed-size chunks ordered by id, each user's flags as
 * `UserRows`. Chunks are never mutated once built; a change replaces the chunks it touches.
 */
export const MESSAGE_CHUNK = 4096;

export interface MessageChunk {
  readonly ids: Int32Array;
  /** A channel message's stream_id, or minus the conversation id of a direct message. */
  readonly recipient: Int32Array;
  /** Interned exact topic (0 for direct messages). */
  readonly topic: Int32Array;
  readonly sender: Int32Array;
  readonly timestamp: Float64Array;
  /** `MESSAGE_BITS`. */
  readonly bits: Uint8Array;
  readonly content: readonly string[];
}

export interface MessageStore {
  readonly chunks: readonly MessageChunk[];
  readonly count: number;
  readonly topics: Interner;
  readonly conversations: Interner;
  readonly reactions: IntMap<readonly Reaction[]>;
  /** user id → that user's UserMessage rows. */
  readonly rows: IntMap<UserRows>;
}

/** One message, decoded from the columns. */
export interface MessageRecord {
  readonly id: number;
  readonly sender_id: number;
  /** Present for channel messages. */
  readonly stream_id: number | null;
  readonly topic: string;
  /** Direct messages: every participant, sender included, sorted. */
  readonly participants: readonly number[] | null;
  readonly content: string;
  readonly timestamp: number;
  readonly has_link: boolean;
  readonly has_attachment: boolean;
  readonly has_image: boolean;
  readonly reactions: readonly Reaction[];
}

export interface MessageInput {
  readonly id: number;
  readonly sender_id: number;
  readonly stream_id?: number | undefined;
  readonly topic?: string | undefined;
  /** Direct messages: participants other than (or including) the sender. */
  readonly to?: readonly number[] | undefined;
  readonly content: string;
  readonly timestamp: number;
  readonly has_link?: boolean | undefined;
  readonly has_attachment?: boolean | undefined;
  readonly has_image?: boolean | undefined;
  readonly reactions?: readonly Reaction[] | undefined;
}

export const EMPTY_STORE: MessageStore = {
  chunks: [],
  count: 0,
  topics: emptyInterner,
  conversations: emptyInterner,
  reactions: IntMap.empty(),
  rows: IntMap.empty(),
};

/**
 * Builds a store in one pass. `messages` must be sorted by id; `rows` gives each user's rows as
 * parallel arrays sorted by message id.
 */
export function buildMessageStore(
  messages: readonly MessageInput[],
  rows: ReadonlyMap<number, { ids: ArrayLike<number>; flags: ArrayLike<number> }>,
): MessageStore {
  let topics = emptyInterner;
  let conversations = emptyInterner;
  // Interning through the persistent tables for every message would be slow; use a local Map first.
  const topicIds = new Map<string, number>();
  const convIds = new Map<string, number>();
  const chunks: MessageChunk[] = [];
  let reactions = IntMap.empty<readonly Reaction[]>();
  for (let start = 0; start < messages.length; start += MESSAGE_CHUNK) {
    const n = Math.min(MESSAGE_CHUNK, messages.length - start);
    const c = allocChunk(n);
    const content: string[] = new Array<string>(n);
    for (let i = 0; i < n; i++) {
      const m = messages[start + i]!;
      c.ids[i] = m.id;
      c.sender[i] = m.sender_id;
      c.timestamp[i] = m.timestamp;
      content[i] = m.content;
      if (m.stream_id !== undefined) {
        const t = m.topic ?? '';
        let tid = topicIds.get(t);
        if (tid === undefined) {
          [topics, tid] = intern(topics, t);
          topicIds.set(t, tid);
        }
        c.recipient[i] = m.stream_id;
        c.topic[i] = tid;
      } else {
        const key = conversationKey([m.sender_id, ...(m.to ?? [])]);
        let cid = convIds.get(key);
        if (cid === undefined) {
          [conversations, cid] = intern(conversations, key);
          convIds.set(key, cid);
        }
        c.recipient[i] = -cid;
      }
      const hasReaction = (m.reactions?.length ?? 0) > 0;
      if (hasReaction) reactions = reactions.set(m.id, m.reactions!);
      c.bits[i] =
        (m.has_link ? MESSAGE_BITS.has_link : 0) |
        (m.has_attachment ? MESSAGE_BITS.has_attachment : 0) |
        (m.has_image ? MESSAGE_BITS.has_image : 0) |
        (hasReaction ? MESSAGE_BITS.has_reaction : 0);
    }
    chunks.push({ ...c, content });
  }
  let userRows = IntMap.empty<UserRows>();
  for (const [userId, r] of [...rows].sort((a, b) => a[0] - b[0])) {
    userRows = userRows.set(userId, buildRows(r.ids, r.flags));
  }
  return { chunks, count: messages.length, topics, conversations, reactions, rows: userRows };
}

function allocChunk(n: number) {
  return {
    ids: new Int32Array(n),
    recipient: new Int32Array(n),
    topic: new Int32Array(n),
    sender: new Int32Array(n),
    timestamp: new Float64Array(n),
    bits: new Uint8Array(n),
  };
}

/** Where message `id` lives, or undefined. */
export function locateMessage(store: MessageStore, id: number): { chunk: MessageChunk; index: number } | undefined {
  const chunks = store.chunks;
  let lo = 0;
  let hi = chunks.length - 1;
  if (hi < 0) return undefined;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (chunks[mid]!.ids[0]! <= id) lo = mid;
    else hi = mid - 1;
  }
  const chunk = chunks[lo]!;
  const index = lowerBound(chunk.ids, id);
  return index < chunk.ids.length && chunk.ids[index] === id ? { chunk, index } : undefined;
}

export function getMessage(store: MessageStore, id: number): MessageRecord | undefined {
  const at = locateMessage(store, id);
  return at && decode(store, at.chunk, at.index);
}

function decode(store: MessageStore, c: MessageChunk, i: number): MessageRecord {
  const recipient = c.recipient[i]!;
  const bits = c.bits[i]!;
  const id = c.ids[i]!;
  return {
    id,
    sender_id: c.sender[i]!,
    stream_id: recipient > 0 ? recipient : null,
    topic: recipient > 0 ? nameOf(store.topics, c.topic[i]!) : '',
    participants: recipient > 0 ? null : conversationParticipants(nameOf(store.conversations, -recipient)),
    content: c.content[i]!,
    timestamp: c.timestamp[i]!,
    has_link: (bits & MESSAGE_BITS.has_link) !== 0,
    has_attachment: (bits & MESSAGE_BITS.has_attachment) !== 0,
    has_image: (bits & MESSAGE_BITS.has_image) !== 0,
    reactions: store.reactions.get(id) ?? [],
  };
}

/** Every message in ascending id order. */
export function* allMessages(store: MessageStore): IterableIterator<MessageRecord> {
  for (const c of store.chunks) for (let i = 0; i < c.ids.length; i++) yield decode(store, c, i);
}

/** The largest message id, or 0 (the "max_message_id" of an empty realm). */
export function maxMessageId(store: MessageStore): number {
  const last = store.chunks[store.chunks.length - 1];
  return last ? last.ids[last.ids.length - 1]! : 0;
}

/**
 * Removes messages and every user's rows for them. Chunks without a deleted message are shared;
 * the cost is proportional to the chunks touched plus one binary search per user with rows.
 */
export function deleteMessages(store: MessageStore, ids: ReadonlySet<number>): MessageStore {
  if (ids.size === 0) return store;
  const chunks: MessageChunk[] = [];
  let count = 0;
  for (const c of store.chunks) {
    let hits = 0;
    for (let i = 0; i < c.ids.length; i++) if (ids.has(c.ids[i]!)) hits++;
    if (hits === 0) {
      chunks.push(c);
      count += c.ids.length;
      continue;
    }
    const n = c.ids.length - hits;
    if (n === 0) continue;
    const out = allocChunk(n);
    const content: string[] = [];
    let j = 0;
    for (let i = 0; i < c.ids.length; i++) {
      if (ids.has(c.ids[i]!)) continue;
      out.ids[j] = c.ids[i]!;
      out.recipient[j] = c.recipient[i]!;
      out.topic[j] = c.topic[i]!;
      out.sender[j] = c.sender[i]!;
      out.timestamp[j] = c.timestamp[i]!;
      out.bits[j] = c.bits[i]!;
      content.push(c.content[i]!);
      j++;
    }
    chunks.push({ ...out, content });
    count += n;
  }
  let rows = store.rows;
  for (const [userId, r] of store.rows) {
    const next = deleteRows(r, ids);
    if (next !== r) rows = next.count === 0 ? rows.delete(userId) : rows.set(userId, next);
  }
  let reactions = store.reactions;
  for (const id of ids) reactions = reactions.delete(id);
  return { ...store, chunks, count, rows, reactions };
}

/** Users who have a row for message `id` (Zulip's UserMessage holders), ascending. */
export function usersWithRow(store: MessageStore, id: number, hasRow: (rows: UserRows, id: number) => boolean): number[] {
  const out: number[] = [];
  for (const [userId, r] of store.rows) if (hasRow(r, id)) out.push(userId);
  return out;
}
