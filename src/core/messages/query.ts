import { idListToArray } from './idlist';
import { getRowFlags } from './rows';
import type { MessageStore } from './store';

/**
 * Message lookups by channel and topic, answered from the store's indexes (no organization-wide
 * scan). Callers should use these rather than walk the chunks themselves.
 */

/** Ids of a channel's messages, ascending. */
export function channelMessageIds(store: MessageStore, streamId: number): number[] {
  const list = store.byChannel.get(streamId);
  return list ? idListToArray(list) : [];
}

/** Ids of a topic's messages (Zulip matches topics case-insensitively), ascending. */
export function topicMessageIds(store: MessageStore, streamId: number, topic: string): number[] {
  const key = store.foldedTopics.ids.get(topic.toLowerCase());
  if (key === undefined) return [];
  const list = store.byTopic.get(streamId)?.get(key);
  return list ? idListToArray(list) : [];
}

/** The oldest message of a channel, or null (the `first_message_id` of a stream). */
export function firstMessageIdInChannel(store: MessageStore, streamId: number): number | null {
  return store.byChannel.get(streamId)?.chunks[0]?.[0] ?? null;
}

/** Users holding a row for any of the given messages, ascending (who receives a delete_message event). */
export function usersWithRows(store: MessageStore, ids: readonly number[]): number[] {
  const out: number[] = [];
  for (const [userId, rows] of store.rows) {
    if (ids.some((id) => getRowFlags(rows, id) !== undefined)) out.push(userId);
  }
  return out;
}
