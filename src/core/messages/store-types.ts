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
 * A plain chunk of these columns. Every plain chunk is made here, by this one literal, so that all
 * share one hidden class: readers load a chunk's columns per message (a register's unread walk, a
 * fetch, a narrow scan), and chunks made by spreads had a hidden class each (seen with
 * `%HaveSameMap`: 245 chunks, 245 classes), which made every such load megamorphic — a
 * register's walk over 50,000 unread rows ran 3× slower for it.
 */
export function messageChunk(
  ids: Int32Array,
  recipient: Int32Array,
  topic: Int32Array,
  topicKey: Int32Array,
  sender: Int32Array,
  timestamp: Float64Array,
  bits: Uint8Array,
  content: readonly string[],
): MessageChunk {
  return { ids, recipient, topic, topicKey, sender, timestamp, bits, content };
}

/**
 * Chunk `c`'s columns as a plain chunk, with the columns in `patch` replaced (a copy of a chunk
 * with new bits, new content, moved topics). Never spread a chunk: the newest chunk as appends
 * leave it and a moved chunk have some columns as getters, which a spread drops, and a spread
 * gives its copy a hidden class of its own (see `messageChunk`). A column `patch` replaces is not
 * read from `c` (a moved chunk's is not folded for nothing).
 */
export function chunkColumns(c: MessageChunk, patch: Partial<MessageChunk> = {}): MessageChunk {
  return messageChunk(
    patch.ids ?? c.ids,
    patch.recipient ?? c.recipient,
    patch.topic ?? c.topic,
    patch.topicKey ?? c.topicKey,
    patch.sender ?? c.sender,
    patch.timestamp ?? c.timestamp,
    patch.bits ?? c.bits,
    patch.content ?? c.content,
  );
}

/** What a message store holds: `MessageStore.of` takes these and `MessageStore.with` patches them. */
export interface MessageStoreFields {
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
 * The message store. Its chunk list is kept as the chunks before the newest and, for a store an
 * append made, the newest chunk apart: a send replaces only the newest, so it copies no list of
 * chunks (the list grows a chunk every 4,096 messages: a copy per send cost more the longer the
 * realm lived). `chunks` puts the list together when first read and keeps it.
 *
 * A class with private fields, so a spread of a store does not type-check as a store (it would
 * drop `chunks`, a getter): change one with `store.with({ rows })`.
 */
export class MessageStore implements MessageStoreFields {
  readonly #older: readonly MessageChunk[];
  readonly #newest: MessageChunk | undefined;
  #chunks: readonly MessageChunk[] | undefined;

  // Positional, not an object of fields: a send makes one store, and an object per send to carry
  // the fields was an allocation of its own.
  private constructor(
    older: readonly MessageChunk[],
    newest: MessageChunk | undefined,
    readonly count: number,
    readonly lastId: number,
    readonly topics: Interner,
    readonly conversations: Interner,
    readonly reactions: IntMap<readonly Reaction[]>,
    readonly rows: RowTable,
    readonly foldedTopics: Interner,
    readonly byChannel: IntMap<IdList>,
    readonly byTopic: IntMap<IntMap<IdList>>,
    readonly byConversation: IntMap<IdList>,
    readonly bySender: IntMap<IdList>,
    readonly edits: IntMap<MessageEdits>,
    readonly clients: IntMap<string>,
  ) {
    this.#older = older;
    this.#newest = newest;
    this.#chunks = newest === undefined ? older : undefined;
    Object.freeze(this);
  }

  /** A store of these fields. */
  static of(f: MessageStoreFields): MessageStore {
    return MessageStore.make(f, f.chunks, undefined);
  }

  /**
   * A store an append made: `older` (shared with the store before) and `newest`, the chunk the
   * message went into; every other field as `f` has it.
   */
  static appended(
    f: Omit<MessageStoreFields, 'chunks'>,
    older: readonly MessageChunk[],
    newest: MessageChunk,
  ): MessageStore {
    return MessageStore.make(f, older, newest);
  }

  private static make(
    f: Omit<MessageStoreFields, 'chunks'>,
    older: readonly MessageChunk[],
    newest: MessageChunk | undefined,
  ): MessageStore {
    return new MessageStore(
      older,
      newest,
      f.count,
      f.lastId,
      f.topics,
      f.conversations,
      f.reactions,
      f.rows,
      f.foldedTopics,
      f.byChannel,
      f.byTopic,
      f.byConversation,
      f.bySender,
      f.edits,
      f.clients,
    );
  }

  /** This store with the fields of `patch` replaced (the chunk list kept as it is when `patch` has none). */
  with(patch: Partial<MessageStoreFields>): MessageStore {
    const chunks = patch.chunks;
    // A spread of the store has its public fields (not the private chunk list, nor the getter).
    return MessageStore.make(
      { ...this, ...patch },
      chunks ?? this.#older,
      chunks === undefined ? this.#newest : undefined,
    );
  }

  /** Every chunk, oldest first. */
  get chunks(): readonly MessageChunk[] {
    return (this.#chunks ??= [...this.#older, this.#newest!]);
  }

  /** The newest chunk (undefined when there is none), without putting the list together. */
  get lastChunk(): MessageChunk | undefined {
    return this.#newest ?? this.#older[this.#older.length - 1];
  }

  /** How many chunks `chunks` has, without putting the list together. */
  get chunkCount(): number {
    return this.#older.length + (this.#newest === undefined ? 0 : 1);
  }

  /**
   * The chunks before the newest that an append keeps, and the chunk it appends to (undefined:
   * start a new one): the list is copied only when a chunk fills or the store was not made by
   * an append (once, not per send).
   */
  static appendPoint(store: MessageStore): {
    readonly older: readonly MessageChunk[];
    readonly last: MessageChunk | undefined;
  } {
    const newest = store.#newest;
    if (newest !== undefined) return { older: store.#older, last: newest };
    const older = store.#older;
    const last = older[older.length - 1];
    return { older: last === undefined ? older : older.slice(0, -1), last };
  }

  /**
   * An object standing for this store's chunk list: the same for two stores exactly when their
   * lists are the same (caches of what is derived from the messages are keyed by it).
   */
  get chunksKey(): object {
    return this.#newest ?? this.#older;
  }

  /** The fields as a plain object (what serializers and test diffs show). */
  toJSON(): MessageStoreFields {
    return { ...this, chunks: this.chunks };
  }
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

export const EMPTY_STORE: MessageStore = MessageStore.of({
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
});
