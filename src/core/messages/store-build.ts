import { IntMap } from '../collections/int-map';
import { StrMap } from '../collections/str-map';
import type { Reaction } from '../model/records';
import { emptyInterner, type Interner } from './interner';
import { MESSAGE_BITS } from './flags';
import { frozenReactions } from './frozen-reactions';
import { buildRows } from './rows';
import { RowTable } from './row-table';
import { buildIdList, type IdList } from './idlist';
import { pushTo } from './multimap';
import { allocChunk, chunkOf } from './store-chunks';
import { flatString } from '../text/flat-string';
import { MESSAGE_CHUNK, MessageStore, type MessageChunk, type MessageEdits } from './store-types';

/** Each user's rows as parallel arrays sorted by message id. */
export type RowsInput = ReadonlyMap<number, { ids: ArrayLike<number>; flags: ArrayLike<number> }>;

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
  rows: RowsInput,
  reactionList: Iterable<readonly [number, readonly Reaction[]]> = [],
  lastId = 0,
  /** [message id, its edits] (snapshots and checkpoints carry the edit history). */
  editList: Iterable<readonly [number, MessageEdits]> = [],
  /** [message id, client name] for messages whose bits say `OTHER_CLIENT` (client-names.ts). */
  clientList: Iterable<readonly [number, string]> = [],
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
    // Stored frozen (frozen-reactions.ts): reads share the stored list instead of copying it.
    reactions = reactions.set(id, frozenReactions(list));
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
    chunks.push(chunkOf(c, content));
  }
  const entries = [...rows].sort((a, b) => a[0] - b[0]);
  const userRows = RowTable.of(
    IntMap.from(entries.map(([userId, r]) => [userId, buildRows(r.ids, r.flags)] as const)),
  );
  // A class instance, frozen (shallowly: the typed arrays cannot be): immer never walks into it.
  return MessageStore.of({
    chunks,
    count: n,
    // Ids are sorted: the last is the largest stored; a caller that knows of larger (deleted) ones says so.
    lastId: Math.max(lastId, n > 0 ? cols.ids[n - 1]! : 0),
    topics: internerFrom(topicIds),
    conversations: internerFrom(convIds),
    reactions,
    rows: userRows,
    foldedTopics: internerFrom(foldedIds),
    byChannel: idLists(byChannel),
    byTopic: IntMap.from([...byTopic].sort((a, b) => a[0] - b[0]).map(([s, m]) => [s, idLists(m)] as const)),
    byConversation: idLists(byConversation),
    bySender: idLists(bySender),
    edits: IntMap.from(editList),
    clients: IntMap.from([...clientList].sort((a, b) => a[0] - b[0])),
  });
}

function idLists(map: Map<number, number[]>): IntMap<IdList> {
  return IntMap.from([...map].sort((a, b) => a[0] - b[0]).map(([k, ids]) => [k, buildIdList(ids)] as const));
}

/** A persistent interner from a local name → id map whose ids are 1..size. */
function internerFrom(map: Map<string, number>): Interner {
  if (map.size === 0) return emptyInterner;
  // Each name kept as a string of its own (`flatString`): the table outlives what it was built from.
  const kept = [...map].map(([name, id]) => [flatString(name), id] as const);
  return { ids: StrMap.from(kept), names: IntMap.from(kept.map(([name, id]) => [id, name] as const)) };
}
