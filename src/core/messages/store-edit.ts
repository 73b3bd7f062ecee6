import { IntMap } from '../collections/int-map';
import { insertIds, removeIds, type IdList } from './idlist';
import type { Interner } from './interner';
import { growRowHolders, rowHolderCandidates } from './row-holders';
import { lowerBound } from './rows';
import { movedChunk, topicKeys } from './moved-columns';
import { chunkIndexOf } from './store-chunks';
import { messagesChanged } from './store-hooks';
import { chunkColumns, type MessageEdits, type MessageStore } from './store-types';
import { CLIENT_MASK } from './client-names';

/**
 * Editing stored messages in place (PATCH /messages/{id}): content, topic, edit history. A content
 * edit copies the chunk's changed columns; a move only records patches on the chunks it touches
 * (`moved-columns.ts`, folded into their columns when first read), and
 * the channel and topic id lists rebuild only their chunks that lose or gain an id (`removeIds`,
 * `insertIds`): the cost follows the edited messages, never the organization nor the channel.
 */

/** The table with `name` interned (ids are never reused: the next is one past the largest). */
export function intern(table: Interner, name: string): [Interner, number] {
  const known = table.ids.get(name);
  if (known !== undefined) return [table, known];
  const next = table.names.maxKey() + 1;
  return [{ ids: table.ids.set(name, next), names: table.names.set(next, name) }, next];
}

/** The store with message `id`'s content and `MESSAGE_BITS` replaced (its sending client kept). */
export function replaceContent(store: MessageStore, id: number, content: string, bits: number): MessageStore {
  const ci = chunkIndexOf(store.chunks, id);
  if (ci < 0) return store;
  const c = store.chunks[ci]!;
  const i = lowerBound(c.ids, id);
  if (c.ids[i] !== id) return store;
  const texts = c.content.slice(0, c.ids.length);
  texts[i] = content;
  const bitColumn = new Uint8Array(c.bits);
  bitColumn[i] = (c.bits[i]! & CLIENT_MASK) | (bits & ~CLIENT_MASK);
  const chunks = store.chunks.slice();
  chunks[ci] = chunkColumns(c, { content: texts, bits: bitColumn });
  return messagesChanged(store, store.with({ chunks }), [id], 'content');
}

/**
 * The store with channel messages `ids` (ascending, all in channel `streamId`) moved to `topic`
 * (and to `newStreamId` when given): the columns, the channel and topic lists follow.
 */
export function moveMessages(
  store: MessageStore,
  streamId: number,
  ids: readonly number[],
  topic: string,
  newStreamId: number = streamId,
): MessageStore {
  if (ids.length === 0) return store;
  const [topics, topicId] = intern(store.topics, topic);
  const [foldedTopics, topicKey] = intern(store.foldedTopics, topic.toLowerCase());
  // Old folded topic → the ids leaving it.
  const leaving = new Map<number, Set<number>>();
  const chunks = store.chunks.slice();
  // chunk index → its moved messages (the chunk gets them as patches, `movedChunk`).
  const patches = new Map<number, { index: number; topic: number; topicKey: number; recipient: number }[]>();
  // The ids ascend: each chunk is found once, and its patches looked up once (`topicKeys`).
  let ci = -1;
  let keyAt: (i: number) => number = () => 0;
  for (const id of ids) {
    if (ci < 0 || ci + 1 >= store.chunks.length || store.chunks[ci + 1]!.ids[0]! <= id) {
      const at = chunkIndexOf(store.chunks, id);
      if (at < 0) continue;
      if (at !== ci) keyAt = topicKeys(store.chunks[at]!);
      ci = at;
    }
    const c = store.chunks[ci]!;
    const i = lowerBound(c.ids, id);
    if (c.ids[i] !== id) continue;
    const oldKey = keyAt(i);
    let set = leaving.get(oldKey);
    if (set === undefined) leaving.set(oldKey, (set = new Set()));
    set.add(id);
    let list = patches.get(ci);
    if (list === undefined) patches.set(ci, (list = []));
    list.push({ index: i, topic: topicId, topicKey, recipient: newStreamId });
  }
  for (const [ci, list] of patches) chunks[ci] = movedChunk(store.chunks[ci]!, list);

  let byTopic = store.byTopic;
  let byChannel = store.byChannel;
  const moved = new Set(ids);
  // Leave the old topics (and the old channel when moving between channels).
  let oldTopics = byTopic.get(streamId) ?? IntMap.empty<IdList>();
  for (const [key, set] of leaving) {
    const list = oldTopics.get(key);
    if (list === undefined) continue;
    const next = removeIds(list, set);
    oldTopics = next.count === 0 ? oldTopics.delete(key) : oldTopics.set(key, next);
  }
  byTopic = oldTopics.size === 0 ? byTopic.delete(streamId) : byTopic.set(streamId, oldTopics);
  if (newStreamId !== streamId) {
    const list = byChannel.get(streamId);
    if (list !== undefined) {
      const next = removeIds(list, moved);
      byChannel = next.count === 0 ? byChannel.delete(streamId) : byChannel.set(streamId, next);
    }
    byChannel = byChannel.set(newStreamId, insertIds(byChannel.get(newStreamId), ids));
  }
  // Join the new topic.
  const newTopics = byTopic.get(newStreamId) ?? IntMap.empty<IdList>();
  byTopic = byTopic.set(newStreamId, newTopics.set(topicKey, insertIds(newTopics.get(topicKey), ids)));
  const next = store.with({ chunks, topics, foldedTopics, byTopic, byChannel });
  // The rows stay with their messages: their possible holders now hold rows in the new channel.
  if (newStreamId !== streamId) growRowHolders(next, newStreamId, rowHolderCandidates(store, ids));
  return messagesChanged(store, next, ids, 'topic');
}

/** The store with these messages' edit records replaced. */
export function setEdits(
  store: MessageStore,
  entries: ReadonlyArray<readonly [number, MessageEdits]>,
): MessageStore {
  if (entries.length === 0) return store;
  return store.with({ edits: store.edits.setAll(entries) });
}
