import { IntMap } from '../collections/int-map';
import type { Reaction } from '../model/records';
import { emptyInterner, type Interner } from './interner';
import { RowTable } from './row-table';
import type { IdList } from './idlist';

/**
 * The message store: messages as columns in fixed-size chunks ordered by id, each user's flags as
 * `UserRows`. Chunks are never mutated once built; a change replaces the chunks it touches.
 */
export const MESSAGE_CHUNK = 4096;

/** Never spread a chunk: copy its columns with `chunkColumns`. */
export interface MessageChunk {
  readonly ids: Int32Array;
  /** A channel message's stream_id, or minus the conversation id of a direct message. */
  readonly recipient: Int32Array;
  /** Interned exact topic (0 for direct messages). */
  readonly topic: Int32Array;
  /** Interned lower-cased topic in `MessageStore.foldedTopics` (Zulip compares topics case-insensitively); 0 for DMs. */
  readonly topicKey: Int32Array;
  readonly sender: Int32Array;
  readonly timestamp: Float64Array;
  /** `MESSAGE_BITS`. */
  readonly bits: Uint8Array;
  readonly content: readonly string[];
}

/**
 * A chunk's columns as a plain object, to copy with a column replaced (`{ ...chunkColumns(c),
 * bits }`). Never spread a chunk itself: the newest chunk as appends leave it has its columns as
 * getters (its views are made when first read), which a spread drops.
 */
export function chunkColumns(c: MessageChunk): MessageChunk {
  return {
    ids: c.ids,
    recipient: c.recipient,
    topic: c.topic,
    topicKey: c.topicKey,
    sender: c.sender,
    timestamp: c.timestamp,
    bits: c.bits,
    content: c.content,
  };
}

export interface MessageStore {
  readonly chunks: readonly MessageChunk[];
  readonly count: number;
  /**
   * The largest message id the realm ever had (0 before its first message), deleted messages
   * included: Zulip never reuses a message id, so the next one is past this, not past the newest
   * stored.
   */
  readonly lastId: number;
  readonly topics: Interner;
  readonly conversations: Interner;
  readonly reactions: IntMap<readonly Reaction[]>;
  /** user id → that user's UserMessage rows. */
  readonly rows: RowTable;
  /** Lower-cased topics (ids start at 1), the keys of `byTopic` and the `topicKey` column. */
  readonly foldedTopics: Interner;
  /** stream id → ids of its messages. */
  readonly byChannel: IntMap<IdList>;
  /** stream id → folded topic id → ids of the topic's messages. */
  readonly byTopic: IntMap<IntMap<IdList>>;
  /** conversation id → ids of the direct messages of that conversation. */
  readonly byConversation: IntMap<IdList>;
  /** sender id → ids of the messages they sent. */
  readonly bySender: IntMap<IdList>;
  /** message id → its edit history and edit/move times (only messages ever edited or moved). */
  readonly edits: IntMap<MessageEdits>;
  /**
   * message id → its sending client's name, only for a client outside `KNOWN_CLIENTS` (the
   * others are in the message's bits: client-names.ts).
   */
  readonly clients: IntMap<string>;
}

/**
 * One entry of a message's edit history, as Zulip stores it (`EditHistoryEvent`): who and when,
 * plus the fields the edit changed (previous and new topic and channel, previous content).
 */
export interface EditHistoryEntry {
  readonly user_id: number | null;
  readonly timestamp: number;
  readonly prev_content?: string;
  readonly prev_rendered_content?: string;
  readonly prev_topic?: string;
  readonly topic?: string;
  readonly prev_stream?: number;
  readonly stream?: number;
}

/** A message's edits: the history newest first, and Zulip's `last_edit_time` / `last_moved_time`. */
export interface MessageEdits {
  readonly history: readonly EditHistoryEntry[];
  readonly last_edit_timestamp?: number;
  readonly last_moved_timestamp?: number;
}

export const EMPTY_STORE: MessageStore = {
  chunks: [],
  count: 0,
  lastId: 0,
  topics: emptyInterner,
  conversations: emptyInterner,
  reactions: IntMap.empty(),
  rows: RowTable.empty(),
  foldedTopics: emptyInterner,
  byChannel: IntMap.empty(),
  byTopic: IntMap.empty(),
  byConversation: IntMap.empty(),
  bySender: IntMap.empty(),
  edits: IntMap.empty(),
  clients: IntMap.empty(),
};
