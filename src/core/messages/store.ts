import { IntMap } from '../collections/int-map';
import { StrMap } from '../collections/str-map';
import type { Reaction } from '../model/records';
import {
  conversationKey,
  conversationParticipants,
  emptyInterner,
  intern,
  nameOf,
  type Interner,
} from './interner';
import { MESSAGE_BITS } from './flags';
import { buildRows, deleteRows, lowerBound, type UserRows } from './rows';
import { buildIdList, removeIds, type IdList } from './idlist';
import { carryRowHolders, rowHolderCandidates } from './row-holders';

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
  /** Interned lower-cased topic in `MessageStore.foldedTopics` (Zulip compares topics case-insensitively); 0 for DMs. */
  readonly topicKey: Int32Array;
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
  foldedTopics: emptyInterner,
  byChannel: IntMap.empty(),
  byTopic: IntMap.empty(),
  byConversation: IntMap.empty(),
  bySender: IntMap.empty(),
};

/**
 * Builds a store in one pass. `messages` must be sorted by id; `rows` gives each user's rows as
 * parallel arrays sorted by message id.
 */
export function buildMessageStore(
  messages: readonly MessageInput[],
  rows: ReadonlyMap<number, { ids: ArrayLike<number>; flags: ArrayLike<number> }>,
): MessageStore {
  const n = messages.length;
  const cols = {
    ids: new Int32Array(n),
    recipient: new Int32Array(n),
    sender: new Int32Array(n),
    timestamp: new Float64Array(n),
    bits: new Uint8Array(n),
    content: new Array<string>(n),
    topics: new Array<string>(n),
    conversations: new Array<string>(n),
  };
  const reactions: Array<readonly [number, readonly Reaction[]]> = [];
  for (let i = 0; i < n; i++) {
    const m = messages[i]!;
    cols.ids[i] = m.id;
    cols.sender[i] = m.sender_id;
    cols.timestamp[i] = m.timestamp;
    cols.content[i] = m.content;
    if (m.stream_id !== undefined) {
      cols.recipient[i] = m.stream_id;
      cols.topics[i] = m.topic ?? '';
    } else {
      cols.conversations[i] = conversationKey([m.sender_id, ...(m.to ?? [])]);
    }
    const hasReaction = (m.reactions?.length ?? 0) > 0;
    if (hasReaction) reactions.push([m.id, m.reactions!]);
    cols.bits[i] =
      (m.has_link ? MESSAGE_BITS.has_link : 0) |
      (m.has_attachment ? MESSAGE_BITS.has_attachment : 0) |
      (m.has_image ? MESSAGE_BITS.has_image : 0) |
      (hasReaction ? MESSAGE_BITS.has_reaction : 0);
  }
  return buildMessageStoreFromColumns(cols, rows, reactions);
}

/** Messages as columns, for builders that never make a million objects (the simulator). */
export interface MessageColumnsInput {
  readonly ids: ArrayLike<number>;
  /** stream id for channel messages; ignored (any value) for direct messages. */
  readonly recipient: ArrayLike<number>;
  readonly sender: ArrayLike<number>;
  readonly timestamp: ArrayLike<number>;
  /** `MESSAGE_BITS` (has_reaction is recomputed from `reactions`). */
  readonly bits: ArrayLike<number>;
  readonly content: ArrayLike<string>;
  /** Channel messages: the topic; direct messages: undefined. */
  readonly topics: ArrayLike<string | undefined>;
  /** Direct messages: the conversation key (`conversationKey`); channel messages: undefined. */
  readonly conversations: ArrayLike<string | undefined>;
}

/**
 * Builds a store from columns sorted by id, with each user's rows (ascending ids, flag bits) and
 * the reactions of messages that have any. Interns topics and conversations through local maps
 * first (the persistent tables are built once at the end) and fills the channel, topic and
 * conversation indexes in the same pass.
 */
export function buildMessageStoreFromColumns(
  cols: MessageColumnsInput,
  rows: ReadonlyMap<number, { ids: ArrayLike<number>; flags: ArrayLike<number> }>,
  reactionList: Iterable<readonly [number, readonly Reaction[]]> = [],
): MessageStore {
  const n = cols.ids.length;
  const topicIds = new Map<string, number>();
  const foldedIds = new Map<string, number>();
  const convIds = new Map<string, number>();
  /** exact topic id → folded topic id */
  const foldedOf: number[] = [];
  const byChannel = new Map<number, number[]>();
  const byTopic = new Map<number, Map<number, number[]>>();
  const byConversation = new Map<number, number[]>();
  const bySender = new Map<number, number[]>();
  const reactionIds = new Set<number>();
  let reactions = IntMap.empty<readonly Reaction[]>();
  for (const [id, list] of reactionList) {
    if (list.length === 0) continue;
    reactions = reactions.set(id, list);
    reactionIds.add(id);
  }
  const chunks: MessageChunk[] = [];
  for (let start = 0; start < n; start += MESSAGE_CHUNK) {
    const size = Math.min(MESSAGE_CHUNK, n - start);
    const c = allocChunk(size);
    const content: string[] = new Array<string>(size);
    for (let i = 0; i < size; i++) {
      const k = start + i;
      const id = cols.ids[k]!;
      c.ids[i] = id;
      c.sender[i] = cols.sender[k]!;
      pushTo(bySender, c.sender[i]!, id);
      c.timestamp[i] = cols.timestamp[k]!;
      content[i] = cols.content[k]!;
      const topic = cols.topics[k];
      if (topic !== undefined) {
        const streamId = cols.recipient[k]!;
        let tid = topicIds.get(topic);
        if (tid === undefined) {
          topicIds.set(topic, (tid = topicIds.size + 1));
          const folded = topic.toLowerCase();
          let f = foldedIds.get(folded);
          if (f === undefined) foldedIds.set(folded, (f = foldedIds.size + 1));
          foldedOf[tid] = f;
        }
        const fid = foldedOf[tid]!;
        c.recipient[i] = streamId;
        c.topic[i] = tid;
        c.topicKey[i] = fid;
        pushTo(byChannel, streamId, id);
        let perTopic = byTopic.get(streamId);
        if (!perTopic) byTopic.set(streamId, (perTopic = new Map()));
        pushTo(perTopic, fid, id);
      } else {
        const key = cols.conversations[k]!;
        let cid = convIds.get(key);
        if (cid === undefined) convIds.set(key, (cid = convIds.size + 1));
        c.recipient[i] = -cid;
        pushTo(byConversation, cid, id);
      }
      c.bits[i] =
        (cols.bits[k]! & ~MESSAGE_BITS.has_reaction) | (reactionIds.has(id) ? MESSAGE_BITS.has_reaction : 0);
    }
    chunks.push({ ...c, content });
  }
  const entries = [...rows].sort((a, b) => a[0] - b[0]);
  const userRows = IntMap.from(entries.map(([userId, r]) => [userId, buildRows(r.ids, r.flags)] as const));
  // Frozen (shallowly: the typed arrays cannot be) so immer never walks into the store.
  return Object.freeze({
    chunks,
    count: n,
    topics: internerFrom(topicIds),
    conversations: internerFrom(convIds),
    reactions,
    rows: userRows,
    foldedTopics: internerFrom(foldedIds),
    byChannel: idLists(byChannel),
    byTopic: IntMap.from([...byTopic].sort((a, b) => a[0] - b[0]).map(([s, m]) => [s, idLists(m)] as const)),
    byConversation: idLists(byConversation),
    bySender: idLists(bySender),
  });
}

function pushTo(map: Map<number, number[]>, key: number, id: number): void {
  const list = map.get(key);
  if (list) list.push(id);
  else map.set(key, [id]);
}

function idLists(map: Map<number, number[]>): IntMap<IdList> {
  return IntMap.from([...map].sort((a, b) => a[0] - b[0]).map(([k, ids]) => [k, buildIdList(ids)] as const));
}

/** A persistent interner from a local name → id map whose ids are 1..size. */
function internerFrom(map: Map<string, number>): Interner {
  let table = emptyInterner;
  if (map.size === 0) return table;
  const names = IntMap.from([...map].map(([name, id]) => [id, name] as const));
  void intern;
  table = { ids: StrMap.from(map), names };
  return table;
}

function allocChunk(n: number) {
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

/** Where message `id` lives, or undefined. */
export function locateMessage(
  store: MessageStore,
  id: number,
): { chunk: MessageChunk; index: number } | undefined {
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

/**
 * A cursor for ids asked in ascending order (the usual case: a selection of messages): it steps
 * from the previous answer instead of searching from scratch, and allocates nothing per lookup.
 * Any order works; out-of-order ids fall back to a binary search.
 */
export class MessageCursor {
  private ci = 0;
  /** After a successful `seek`: the chunk and index of the message. */
  chunk: MessageChunk | undefined;
  index = 0;

  constructor(private readonly store: MessageStore) {}

  seek(id: number): boolean {
    const chunks = this.store.chunks;
    let c = chunks[this.ci];
    if (c === undefined) return false;
    if (id < c.ids[0]! || id > c.ids[c.ids.length - 1]!) {
      let lo = 0;
      let hi = chunks.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (chunks[mid]!.ids[0]! <= id) lo = mid;
        else hi = mid - 1;
      }
      this.ci = lo;
      c = chunks[lo]!;
      this.index = lowerBound(c.ids, id);
    } else if (c.ids[this.index] !== id) {
      this.index = c.ids[this.index + 1] === id ? this.index + 1 : lowerBound(c.ids, id);
    }
    this.chunk = c;
    return c.ids[this.index] === id;
  }

  /** The channel of message `id` (a stream id), 0 for a direct message, -1 when there is no such message. */
  channelOf(id: number): number {
    if (!this.seek(id)) return -1;
    const r = this.chunk!.recipient[this.index]!;
    return r > 0 ? r : 0;
  }
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

/**
 * Removes messages and every user's rows for them. Each id's chunk is found by binary search; only
 * the chunks (and index-list chunks) that lose a message are rebuilt, the rest are shared, and only
 * the rows of the messages' possible holders (`row-holders.ts`) are touched: the cost follows the
 * deleted messages, not the organization's message or user count.
 */
export function deleteMessages(store: MessageStore, ids: ReadonlySet<number>): MessageStore {
  if (ids.size === 0) return store;
  // chunk index → positions of its deleted messages
  const perChunk = new Map<number, number[]>();
  // Which index lists lose which ids: channel (and its folded topics), conversation, sender.
  const channels = new Map<number, { ids: Set<number>; topics: Map<number, Set<number>> }>();
  const conversations = new Map<number, Set<number>>();
  const senders = new Map<number, Set<number>>();
  let found = 0;
  for (const id of ids) {
    const ci = chunkIndexOf(store.chunks, id);
    if (ci < 0) continue;
    const c = store.chunks[ci]!;
    const i = lowerBound(c.ids, id);
    if (i >= c.ids.length || c.ids[i] !== id) continue;
    found++;
    pushTo(perChunk, ci, i);
    addTo(senders, c.sender[i]!, id);
    const r = c.recipient[i]!;
    if (r > 0) {
      let channel = channels.get(r);
      if (!channel) channels.set(r, (channel = { ids: new Set(), topics: new Map() }));
      channel.ids.add(id);
      addTo(channel.topics, c.topicKey[i]!, id);
    } else addTo(conversations, -r, id);
  }
  let chunks = store.chunks;
  if (perChunk.size > 0) {
    const next = store.chunks.slice();
    // Descending, so removing an emptied chunk does not shift the ones still to rebuild.
    for (const ci of [...perChunk.keys()].sort((a, b) => b - a)) {
      const rebuilt = withoutPositions(store.chunks[ci]!, perChunk.get(ci)!);
      if (rebuilt === undefined) next.splice(ci, 1);
      else next[ci] = rebuilt;
    }
    chunks = next;
  }
  let rows = store.rows;
  for (const userId of rowHolderCandidates(store, ids)) {
    const r = rows.get(userId);
    if (r === undefined) continue;
    const next = deleteRows(r, ids);
    if (next !== r) rows = next.count === 0 ? rows.delete(userId) : rows.set(userId, next);
  }
  carryRowHolders(store, rows);
  let reactions = store.reactions;
  for (const id of ids) reactions = reactions.delete(id);
  let byChannel = store.byChannel;
  let byTopic = store.byTopic;
  for (const [streamId, channel] of channels) {
    byChannel = shrink(byChannel, streamId, channel.ids);
    let perTopic = byTopic.get(streamId) ?? IntMap.empty<IdList>();
    for (const [t, topicIds] of channel.topics) perTopic = shrink(perTopic, t, topicIds);
    byTopic = perTopic.size === 0 ? byTopic.delete(streamId) : byTopic.set(streamId, perTopic);
  }
  let byConversation = store.byConversation;
  for (const [cid, convIds] of conversations) byConversation = shrink(byConversation, cid, convIds);
  let bySender = store.bySender;
  for (const [sender, senderIds] of senders) bySender = shrink(bySender, sender, senderIds);
  return Object.freeze({
    ...store,
    chunks,
    count: store.count - found,
    rows,
    reactions,
    byChannel,
    byTopic,
    byConversation,
    bySender,
  });
}

/** The chunk that would hold `id` (the last one whose first id is ≤ id), or -1 when there are none. */
function chunkIndexOf(chunks: readonly MessageChunk[], id: number): number {
  let lo = 0;
  let hi = chunks.length - 1;
  if (hi < 0) return -1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (chunks[mid]!.ids[0]! <= id) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** A copy of chunk `c` without the messages at `positions` (any order), or undefined when none is left. */
function withoutPositions(c: MessageChunk, positions: number[]): MessageChunk | undefined {
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
  return { ...out, content };
}

function addTo(map: Map<number, Set<number>>, key: number, id: number): void {
  const set = map.get(key);
  if (set) set.add(id);
  else map.set(key, new Set([id]));
}

function shrink(map: IntMap<IdList>, key: number, ids: ReadonlySet<number>): IntMap<IdList> {
  const list = map.get(key);
  if (list === undefined) return map;
  const next = removeIds(list, ids);
  if (next === list) return map;
  return next.count === 0 ? map.delete(key) : map.set(key, next);
}

/** Users who have a row for message `id` (Zulip's UserMessage holders), ascending. */
export function usersWithRow(
  store: MessageStore,
  id: number,
  hasRow: (rows: UserRows, id: number) => boolean,
): number[] {
  const out: number[] = [];
  for (const userId of rowHolderCandidates(store, [id])) {
    const r = store.rows.get(userId);
    if (r !== undefined && hasRow(r, id)) out.push(userId);
  }
  return out.sort((a, b) => a - b);
}
