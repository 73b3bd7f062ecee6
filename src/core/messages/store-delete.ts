import { IntMap } from '../collections/int-map';
import { deleteRows, lowerBound } from './rows';
import { removeIds, type IdList } from './idlist';
import { carryRowHolders, rowHolderCandidates } from './row-holders';
import { addTo, pushTo } from './multimap';
import { chunkIndexOf, withoutPositions } from './store-chunks';
import { messagesChanged } from './store-hooks';
import type { MessageStore } from './store-types';

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
  let clients = store.clients;
  if (clients.size > 0) for (const id of ids) clients = clients.delete(id);
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
  const after = store.with({
    chunks,
    count: store.count - found,
    rows,
    reactions,
    clients,
    byChannel,
    byTopic,
    byConversation,
    bySender,
  });
  return messagesChanged(
    store,
    after,
    [...ids].sort((a, b) => a - b),
    'delete',
  );
}

/** `map` with `ids` removed from the list under `key`; an emptied list is dropped. */
function shrink(map: IntMap<IdList>, key: number, ids: ReadonlySet<number>): IntMap<IdList> {
  const list = map.get(key);
  if (list === undefined) return map;
  const next = removeIds(list, ids);
  if (next === list) return map;
  return next.count === 0 ? map.delete(key) : map.set(key, next);
}
