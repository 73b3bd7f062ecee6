import { idListToArray } from './idlist';
import { FLAG_BITS } from './flags';
import { getRowFlags, lowerBound, type UserRows } from './rows';
import { rowHolderCandidates } from './row-holders';
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

/**
 * Users holding a row for any of the given messages, ascending (who receives a delete_message event).
 * Probes only the rows of the messages' possible holders (`row-holders.ts`), not every user's.
 */
export function usersWithRows(store: MessageStore, ids: readonly number[]): number[] {
  if (ids.length === 0) return [];
  return holdersWhere(store, ids, (rows) => ids.some((id) => getRowFlags(rows, id) !== undefined));
}

/** Users who have a row for message `id` (Zulip's UserMessage holders), ascending. */
export function usersWithRow(
  store: MessageStore,
  id: number,
  hasRow: (rows: UserRows, id: number) => boolean,
): number[] {
  return holdersWhere(store, [id], (rows) => hasRow(rows, id));
}

/** The possible holders of `ids` (`row-holders.ts`) whose rows pass `holds`, ascending. */
function holdersWhere(
  store: MessageStore,
  ids: readonly number[],
  holds: (rows: UserRows) => boolean,
): number[] {
  const out: number[] = [];
  for (const userId of rowHolderCandidates(store, ids)) {
    const rows = store.rows.get(userId);
    if (rows !== undefined && holds(rows)) out.push(userId);
  }
  return out.sort((a, b) => a - b);
}

/**
 * The user's unread rows in a channel, ascending: the channel's id list intersected with the user's
 * rows, walking the shorter of the two and galloping through the other, so the cost is
 * O(min(channel, rows) · log) — never the organization's, nor a scan of the longer list.
 */
export function unreadInChannel(store: MessageStore, userId: number, streamId: number): number[] {
  const rows = store.rows.get(userId);
  const list = store.byChannel.get(streamId);
  if (rows === undefined || list === undefined || rows.count === 0 || list.count === 0) return [];
  const out: number[] = [];
  if (list.count <= rows.count) {
    const probe = sortedProbe(rows.chunks.map((c) => c.ids));
    for (const c of list.chunks) {
      for (let i = 0; i < c.length; i++) {
        const id = c[i]!;
        if (!probe.seek(id)) continue;
        if ((rows.chunks[probe.chunk]!.flags[probe.index]! & FLAG_BITS.read) === 0) out.push(id);
      }
    }
  } else {
    const probe = sortedProbe(list.chunks);
    for (const c of rows.chunks) {
      for (let i = 0; i < c.ids.length; i++) {
        // The flag test first: a read row needs no lookup at all.
        if ((c.flags[i]! & FLAG_BITS.read) !== 0) continue;
        const id = c.ids[i]!;
        if (probe.seek(id)) out.push(id);
      }
    }
  }
  return out;
}

/**
 * Membership in chunked ascending ids for ids asked in ascending order: each `seek` gallops forward
 * from the previous position (O(log gap)); after a hit, `chunk`/`index` locate the id.
 */
function sortedProbe(chunks: readonly Int32Array[]) {
  const state = {
    chunk: 0,
    index: 0,
    seek(id: number): boolean {
      let c = chunks[state.chunk];
      if (c === undefined) return false;
      if (id > c[c.length - 1]!) {
        // Past this chunk: binary search the later chunks for the first whose last id is ≥ id.
        let lo = state.chunk + 1;
        let hi = chunks.length;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          const m = chunks[mid]!;
          if (m[m.length - 1]! < id) lo = mid + 1;
          else hi = mid;
        }
        state.chunk = lo;
        state.index = 0;
        c = chunks[lo];
        if (c === undefined) return false;
      }
      state.index = gallop(c, id, state.index);
      return c[state.index] === id;
    },
  };
  return state;
}

/** The first index ≥ `from` whose element is ≥ id in an ascending array (whose last element is ≥ id). */
function gallop(ids: Int32Array, id: number, from: number): number {
  if (ids[from]! >= id) return from;
  let step = 1;
  let lo = from;
  let hi = from + 1;
  while (hi < ids.length && ids[hi]! < id) {
    lo = hi;
    step *= 2;
    hi = Math.min(ids.length, hi + step);
  }
  return lowerBound(ids, id, lo + 1, hi);
}
