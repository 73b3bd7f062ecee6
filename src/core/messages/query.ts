import type { MessageStore } from './store';

/**
 * Message lookups by channel and topic. These first versions scan the store; the narrow engine
 * replaces them with indexed ones (same signatures), so callers should use these, not scan themselves.
 */

/** Ids of a channel's messages, ascending. */
export function channelMessageIds(store: MessageStore, streamId: number): number[] {
  const out: number[] = [];
  for (const c of store.chunks) for (let i = 0; i < c.ids.length; i++) if (c.recipient[i] === streamId) out.push(c.ids[i]!);
  return out;
}

/** Ids of a topic's messages (Zulip matches topics case-insensitively), ascending. */
export function topicMessageIds(store: MessageStore, streamId: number, topic: string): number[] {
  const wanted = topic.toLowerCase();
  const matching = new Set<number>();
  for (const [id, name] of store.topics.names) if (name.toLowerCase() === wanted) matching.add(id);
  const out: number[] = [];
  for (const c of store.chunks) {
    for (let i = 0; i < c.ids.length; i++) {
      if (c.recipient[i] === streamId && matching.has(c.topic[i]!)) out.push(c.ids[i]!);
    }
  }
  return out;
}

/** The oldest message of a channel, or null (the `first_message_id` of a stream). */
export function firstMessageIdInChannel(store: MessageStore, streamId: number): number | null {
  for (const c of store.chunks) for (let i = 0; i < c.ids.length; i++) if (c.recipient[i] === streamId) return c.ids[i]!;
  return null;
}

/** Users holding a row for any of the given messages, ascending (who receives a delete_message event). */
export function usersWithRows(store: MessageStore, ids: readonly number[]): number[] {
  const out: number[] = [];
  const sorted = [...ids].sort((a, b) => a - b);
  for (const [userId, rows] of store.rows) {
    if (sorted.some((id) => hasRow(rows, id))) out.push(userId);
  }
  return out;
}

import { getRowFlags, type UserRows } from './rows';
function hasRow(rows: UserRows, id: number): boolean {
  return getRowFlags(rows, id) !== undefined;
}
