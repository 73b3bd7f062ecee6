import { IntMap } from '../collections/int-map';
import { carryConversationIndexes } from '../indexes/conversation-indexes';
import { appendPlain, appendTyped, startPlain, startTyped } from './grow';
import { ID_CHUNK, type IdList } from './idlist';
import { conversationKey, type Interner } from './interner';
import { carryRowHoldersOnAppend } from './row-holders';
import { carrySearchIndex } from '../search/search-index';
import { ROW_CHUNK, type RowChunk, type UserRows } from './rows';
import { MESSAGE_CHUNK, type MessageChunk, type MessageStore } from './store-types';

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
  const last = store.chunks[store.chunks.length - 1];
  return last === undefined ? 0 : last.ids[last.ids.length - 1]!;
}

/**
 * Appends one message and its UserMessage rows (`rows`: [user id, flag bits], any order, one per
 * user). The cost is O(rows · log users + log n): the last message chunk, each recipient's last row
 * chunk and the last chunk of each index list grow in place (`grow.ts`), the persistent maps copy
 * one path each (the rows' map once for all recipients), and the interners learn a new topic or conversation. Every index (`byChannel`,
 * `byTopic`, `byConversation`, `bySender`, row holders, direct-message partners, the search index) stays in step.
 */
export function appendMessage(
  store: MessageStore,
  message: AppendedMessage,
  rows: ReadonlyArray<readonly [number, number]>,
): MessageStore {
  const { id } = message;
  if (id < nextMessageId(store)) throw new RangeError(`message ${id} is not newer than the store`);
  let { topics, foldedTopics, conversations, byChannel, byTopic, byConversation } = store;
  let recipient: number;
  let topicId = 0;
  let topicKey = 0;
  if (message.streamId !== null) {
    recipient = message.streamId;
    [topics, topicId] = intern(topics, message.topic);
    [foldedTopics, topicKey] = intern(foldedTopics, message.topic.toLowerCase());
    byChannel = byChannel.set(recipient, appendId(byChannel.get(recipient), id));
    const perTopic = byTopic.get(recipient) ?? IntMap.empty<IdList>();
    byTopic = byTopic.set(recipient, perTopic.set(topicKey, appendId(perTopic.get(topicKey), id)));
  } else {
    const key = conversationKey(message.participants);
    let cid: number;
    const before = conversations;
    [conversations, cid] = intern(conversations, key);
    if (conversations !== before) carryConversationIndexes(before, conversations, message.participants);
    recipient = -cid;
    byConversation = byConversation.set(cid, appendId(byConversation.get(cid), id));
  }
  const bySender = store.bySender.set(message.sender, appendId(store.bySender.get(message.sender), id));
  const chunks = appendToChunks(store.chunks, message, recipient, topicId, topicKey);

  const before = store.rows;
  const userRows = before.setAll(
    rows.map(([userId, flags]) => [userId, appendRow(before.get(userId), id, flags)] as const),
  );
  carryRowHoldersOnAppend(
    store,
    userRows,
    recipient,
    rows.map(([u]) => u),
  );
  const next: MessageStore = Object.freeze({
    ...store,
    chunks,
    count: store.count + 1,
    lastId: id,
    topics,
    conversations,
    foldedTopics,
    rows: userRows,
    byChannel,
    byTopic,
    byConversation,
    bySender,
  });
  carrySearchIndex(store, next, [id]);
  return next;
}

/** The table with `name` interned (ids are never reused: the next is one past the largest). */
function intern(table: Interner, name: string): [Interner, number] {
  const known = table.ids.get(name);
  if (known !== undefined) return [table, known];
  const next = table.names.maxKey() + 1;
  return [{ ids: table.ids.set(name, next), names: table.names.set(next, name) }, next];
}

function appendToChunks(
  chunks: readonly MessageChunk[],
  m: AppendedMessage,
  recipient: number,
  topicId: number,
  topicKey: number,
): readonly MessageChunk[] {
  const last = chunks[chunks.length - 1];
  const out = chunks.slice();
  if (last === undefined || last.ids.length >= MESSAGE_CHUNK) {
    const cap = MESSAGE_CHUNK;
    out.push({
      ids: startTyped(Int32Array, m.id, cap),
      recipient: startTyped(Int32Array, recipient, cap),
      topic: startTyped(Int32Array, topicId, cap),
      topicKey: startTyped(Int32Array, topicKey, cap),
      sender: startTyped(Int32Array, m.sender, cap),
      timestamp: startTyped(Float64Array, m.timestamp, cap),
      bits: startTyped(Uint8Array, m.bits, cap),
      content: startPlain(m.content),
    });
    return out;
  }
  const n = last.ids.length;
  out[out.length - 1] = {
    ids: appendTyped(last.ids, m.id, MESSAGE_CHUNK),
    recipient: appendTyped(last.recipient, recipient, MESSAGE_CHUNK),
    topic: appendTyped(last.topic, topicId, MESSAGE_CHUNK),
    topicKey: appendTyped(last.topicKey, topicKey, MESSAGE_CHUNK),
    sender: appendTyped(last.sender, m.sender, MESSAGE_CHUNK),
    timestamp: appendTyped(last.timestamp, m.timestamp, MESSAGE_CHUNK),
    bits: appendTyped(last.bits, m.bits, MESSAGE_CHUNK),
    content: appendPlain(last.content, n, m.content),
  };
  return out;
}

/** An id list with `id` (larger than all of its ids) appended. */
export function appendId(list: IdList | undefined, id: number): IdList {
  if (list === undefined || list.count === 0) return { chunks: [startTyped(Int32Array, id, 16)], count: 1 };
  const chunks = list.chunks.slice();
  const last = chunks[chunks.length - 1]!;
  if (last.length >= ID_CHUNK) chunks.push(startTyped(Int32Array, id, 16));
  else chunks[chunks.length - 1] = appendTyped(last, id, ID_CHUNK);
  return { chunks, count: list.count + 1 };
}

/** A user's rows with a row for `id` (larger than all of theirs) appended. */
function appendRow(rows: UserRows | undefined, id: number, flags: number): UserRows {
  if (rows === undefined || rows.count === 0) {
    return {
      chunks: [{ ids: startTyped(Int32Array, id, 8), flags: startTyped(Uint16Array, flags, 8) }],
      count: 1,
    };
  }
  const chunks: RowChunk[] = rows.chunks.slice();
  const last = chunks[chunks.length - 1]!;
  if (last.ids.length >= ROW_CHUNK) {
    chunks.push({ ids: startTyped(Int32Array, id, 8), flags: startTyped(Uint16Array, flags, 8) });
  } else {
    chunks[chunks.length - 1] = {
      ids: appendTyped(last.ids, id, ROW_CHUNK),
      flags: appendTyped(last.flags, flags, ROW_CHUNK),
    };
  }
  return { chunks, count: rows.count + 1 };
}
