import { nameOf } from '../messages/interner';
import { getRowFlags, type UserRows } from '../messages/rows';
import type { MessageStore } from '../messages/store';
import { locateMessage } from '../messages/store-read';

/** One entry of GET /users/me/{stream_id}/topics. */
export interface TopicHistoryEntry {
  readonly name: string;
  readonly max_id: number;
}

/**
 * Zulip's `get_topic_history_for_stream` and `generate_topic_history_from_db_rows`
 * (zerver/lib/topic.py): a channel's topics, newest first by their latest message id. Topics that
 * differ only by case are one topic, named as its most recent message spells it. With shared
 * history (`publicHistory`) every message of the channel counts; otherwise only messages the
 * user holds a row for (`rows`), so a topic the user never received is not listed.
 */
export function topicHistory(
  store: MessageStore,
  streamId: number,
  publicHistory: boolean,
  rows: UserRows | undefined,
): TopicHistoryEntry[] {
  const byTopic = store.byTopic.get(streamId);
  if (byTopic === undefined) return [];
  const out: TopicHistoryEntry[] = [];
  for (const list of byTopic.values()) {
    const maxId = publicHistory ? lastId(list.chunks) : lastHeldId(list.chunks, rows);
    if (maxId === undefined) continue;
    const at = locateMessage(store, maxId);
    if (at === undefined) continue;
    out.push({ name: nameOf(store.topics, at.chunk.topic[at.index]!), max_id: maxId });
  }
  return out.sort((a, b) => b.max_id - a.max_id);
}

function lastId(chunks: readonly Int32Array[]): number | undefined {
  for (let c = chunks.length - 1; c >= 0; c--) {
    const ids = chunks[c]!;
    if (ids.length > 0) return ids[ids.length - 1];
  }
  return undefined;
}

/** The largest id of the list the user holds a row for (walking down from the newest). */
function lastHeldId(chunks: readonly Int32Array[], rows: UserRows | undefined): number | undefined {
  if (rows === undefined || rows.count === 0) return undefined;
  for (let c = chunks.length - 1; c >= 0; c--) {
    const ids = chunks[c]!;
    for (let i = ids.length - 1; i >= 0; i--) if (getRowFlags(rows, ids[i]!) !== undefined) return ids[i];
  }
  return undefined;
}
