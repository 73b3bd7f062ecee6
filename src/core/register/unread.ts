import { FLAG_BITS } from '../messages/flags';
import { chunkIndexOf } from '../messages/store-chunks';
import { lowerBound } from '../messages/rows';
import { conversationParticipants, nameOf } from '../messages/interner';
import { forEachRow } from '../messages/rows';
import { isUnreadMuted } from '../messages/unread-muting';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../model/realm';
import type { RealmState } from '../state';

/** Zulip's `MAX_UNREAD_MESSAGES`: register reports at most this many (the newest). */
export const MAX_UNREAD_MESSAGES = 50000;

export interface UnreadMsgs {
  readonly pms: Array<{ other_user_id: number; sender_id: number; unread_message_ids: number[] }>;
  readonly streams: Array<{ stream_id: number; topic: string; unread_message_ids: number[] }>;
  readonly huddles: Array<{ user_ids_string: string; unread_message_ids: number[] }>;
  readonly mentions: number[];
  readonly count: number;
  readonly old_unreads_missing: boolean;
}

const MENTION = FLAG_BITS.mentioned;
const WILDCARD = FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned;

/**
 * `unread_msgs` as Zulip's `get_raw_unread_data` + `aggregate_unread_data` build it: the user's
 * unread rows, leaving out channels the user was subscribed to and left (Zulip's inactive
 * recipients), grouped by (channel, topic), by DM partner and by group DM, each list sorted by its
 * key; `count` leaves out muted channel messages (`isUnreadMuted`); `mentions` holds direct
 * mentions, and wildcard mentions outside muted conversations. O(the user's rows).
 */
export function unreadMsgs(state: RealmState, userId: number, emptyTopicName: boolean): UnreadMsgs {
  const rows = state.messages.rows.get(userId);
  // Parallel arrays, not an object per unread row.
  const unreadIds: number[] = [];
  const unreadBits: number[] = [];
  if (rows)
    forEachRow(rows, (id, bits) => {
      if ((bits & FLAG_BITS.read) === 0) {
        unreadIds.push(id);
        unreadBits.push(bits);
      }
    });
  const missing = unreadIds.length > MAX_UNREAD_MESSAGES;
  const from = missing ? unreadIds.length - MAX_UNREAD_MESSAGES : 0;

  const streams = new Map<string, { stream_id: number; topic: string; unread_message_ids: number[] }>();
  // channel → stored topic → its bucket and muting, decided once per topic rather than per message.
  const topicsSeen = new Map<number, Map<string, { ids: number[]; muted: boolean }> | null>();
  const pms = new Map<number, number[]>();
  const huddles = new Map<string, number[]>();
  const mentions: number[] = [];
  let count = 0;
  const chunks = state.messages.chunks;
  let ci = -1;
  let pos = 0;
  let lastId = -1;
  for (let k = from; k < unreadIds.length; k++) {
    const id = unreadIds[k]!;
    const bits = unreadBits[k]!;
    // The recipient and topic straight from the columns: decoding a whole message (content,
    // reactions, participants) per unread row was most of a register's time.
    // Rows come in id order: stay in the current message chunk and search forward from the last
    // hit (a fresh chunk search only when the id leaves it, or were an id ever out of order).
    let chunk = chunks[ci];
    if (chunk === undefined || id < lastId || chunk.ids[chunk.ids.length - 1]! < id) {
      ci = chunkIndexOf(chunks, id);
      chunk = chunks[ci];
      pos = 0;
      if (chunk === undefined) continue;
    }
    lastId = id;
    const index = lowerBound(chunk.ids, id, pos);
    if (index >= chunk.ids.length || chunk.ids[index] !== id) continue;
    pos = index + 1;
    const at = { chunk, index };
    const recipient = at.chunk.recipient[at.index]!;
    let muted = false;
    if (recipient > 0) {
      const streamId = recipient;
      let seen = topicsSeen.get(streamId);
      if (seen === undefined) {
        // null: a channel the user left (Zulip's inactive recipient), whose unreads are not listed.
        const sub = state.subscriptions.get(streamId)?.get(userId);
        topicsSeen.set(streamId, (seen = sub !== undefined && !sub.active ? null : new Map()));
      }
      if (seen === null) continue;
      const rawTopic = nameOf(state.messages.topics, at.chunk.topic[at.index]!);
      let entry = seen.get(rawTopic);
      if (entry === undefined) {
        const topic = rawTopic === '' && !emptyTopicName ? EMPTY_TOPIC_DISPLAY_NAME : rawTopic;
        const key = `${streamId}\u0000${topic}`;
        let bucket = streams.get(key);
        if (!bucket) streams.set(key, (bucket = { stream_id: streamId, topic, unread_message_ids: [] }));
        entry = { ids: bucket.unread_message_ids, muted: isUnreadMuted(state, userId, streamId, rawTopic) };
        seen.set(rawTopic, entry);
      }
      muted = entry.muted;
      entry.ids.push(id);
      if (!muted) count++;
    } else {
      const participants = conversationParticipants(nameOf(state.messages.conversations, -recipient));
      const others = participants.filter((p) => p !== userId);
      if (others.length <= 1) {
        const other = others[0] ?? userId;
        const list = pms.get(other) ?? [];
        list.push(id);
        pms.set(other, list);
      } else {
        const key = [...participants].sort((a, b) => a - b).join(',');
        const list = huddles.get(key) ?? [];
        list.push(id);
        huddles.set(key, list);
      }
      count++;
    }
    if ((bits & MENTION) !== 0 || ((bits & WILDCARD) !== 0 && !muted)) mentions.push(id);
  }
  const byKey = <T>(a: [string | number, T], b: [string | number, T]) =>
    a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
  return {
    pms: [...pms.entries()]
      .sort(byKey)
      .map(([other, ids]) => ({ other_user_id: other, sender_id: other, unread_message_ids: ids })),
    streams: [...streams.values()].sort((a, b) =>
      a.stream_id !== b.stream_id
        ? a.stream_id - b.stream_id
        : a.topic < b.topic
          ? -1
          : a.topic > b.topic
            ? 1
            : 0,
    ),
    huddles: [...huddles.entries()]
      .sort(byKey)
      .map(([key, ids]) => ({ user_ids_string: key, unread_message_ids: ids })),
    mentions,
    count,
    old_unreads_missing: missing,
  };
}
