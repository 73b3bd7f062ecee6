import { IntMap } from '../collections/int-map';
import { insertIds, removeIds, type IdList } from './idlist';
import type { Interner } from './interner';
import { growRowHolders, rowHolderCandidates } from './row-holders';
import { lowerBound } from './rows';
import { chunkIndexOf } from './store-chunks';
import { messagesChanged } from './store-hooks';
import type { MessageChunk, MessageEdits, MessageStore } from './store-types';

/**
 * Editing stored messages in place (PATCH /messages/{id}): content, topic, edit history. Like
 * deletion, only the chunks holding an edited message are copied (their changed columns only), and
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

/** The store with message `id`'s content and `MESSAGE_BITS` replaced. */
export function replaceContent(store: MessageStore, id: number, content: string, bits: number): MessageStore {
  const ci = chunkIndexOf(store.chunks, id);
  if (ci < 0) return store;
  const c = store.chunks[ci]!;
  const i = lowerBound(c.ids, id);
  if (c.ids[i] !== id) return store;
  const texts = c.content.slice(0, c.ids.length);
  texts[i] = content;
  const bitColumn = new Uint8Array(c.bits);
  bitColumn[i] = bits;
  const chunks = store.chunks.slice();
  chunks[ci] = { ...c, content: texts, bits: bitColumn };
  return messagesChanged(store, Object.freeze({ ...store, chunks }), [id], 'content');
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
  const crossing = newStreamId !== streamId;
  // Only the columns that change are copied (the recipient only for a move between channels).
  const copies = new Map<number, { topic: Int32Array; topicKey: Int32Array; recipient: Int32Array }>();
  for (const id of ids) {
    const ci = chunkIndexOf(store.chunks, id);
    if (ci < 0) continue;
    const c = store.chunks[ci]!;
    const i = lowerBound(c.ids, id);
    if (c.ids[i] !== id) continue;
    let copy = copies.get(ci);
    if (copy === undefined) {
      copy = {
        topic: c.topic.slice(),
        topicKey: c.topicKey.slice(),
        recipient: crossing ? c.recipient.slice() : c.recipient,
      };
      copies.set(ci, copy);
    }
    const oldKey = c.topicKey[i]!;
    let set = leaving.get(oldKey);
    if (set === undefined) leaving.set(oldKey, (set = new Set()));
    set.add(id);
    copy.topic[i] = topicId;
    copy.topicKey[i] = topicKey;
    if (crossing) copy.recipient[i] = newStreamId;
  }
  for (const [ci, copy] of copies) chunks[ci] = { ...(store.chunks[ci] as MessageChunk), ...copy };

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
  const next = Object.freeze({ ...store, chunks, topics, foldedTopics, byTopic, byChannel });
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
  return Object.freeze({ ...store, edits: store.edits.setAll(entries) });
}
