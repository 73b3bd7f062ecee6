import { FLAG_BITS } from '../../core/messages/flags';
import { nameOf } from '../../core/messages/interner';
import { MessageCursor, type MessageStore } from '../../core/messages/store';
import { isUnreadMuted } from '../../core/messages/unread-muting';
import type { NarrowContext } from '../../narrow';
import { intKeyedObject } from '../../core/collections/int-keyed';

/** One message's entry in `message_details` (shared, frozen: see `messageDetails`). */
export type MessageDetail = Readonly<Record<string, unknown>>;

/** The two entries of one conversation: without and with `mentioned`. */
type Pair = [MessageDetail | undefined, MessageDetail | undefined];

/**
 * `message_details` of an unread event: for channel messages the channel, topic and whether the
 * row is unmuted in Zulip's unread data (`isUnreadMuted`: topic policy over channel muting); for
 * DMs the other participants; `mentioned` when the user was mentioned (wildcard mentions only
 * when the row is not muted, as in Zulip's `extract_unread_data_from_um_rows`).
 *
 * `changed` (ascending) is a subset of `ids` (ascending), whose row flags are `flags` (-1: no row):
 * one merge walk gives each message's flags without searching the rows. Zulip sends an object keyed
 * by message id, built at once (`intKeyedObject`: key by key cost more than the rest together).
 *
 * The messages of one conversation have equal entries, so they share one frozen object (the JSON
 * is the same): a 5,000-message window over 50 topics allocates ~50 entries, not 5,000, which is
 * most of the garbage a mark-unread request made (issue 31: a flood of them).
 */
export function messageDetails(
  ctx: NarrowContext,
  store: MessageStore,
  changed: readonly number[],
  ids: ArrayLike<number>,
  flags: ArrayLike<number>,
): Record<number, MessageDetail> {
  const me = ctx.userId;
  const n = changed.length;
  const keys: number[] = [];
  const values: MessageDetail[] = [];
  const cursor = new MessageCursor(store);
  // stream id → folded topic id → muted in unread data (Zulip's `is_row_muted`).
  const rowMuted = new Map<number, Map<number, boolean>>();
  // stream id → exact topic id (its name as shown) → entries; and DM recipient → entries.
  const channelEntries = new Map<number, Map<number, Pair>>();
  const directEntries = new Map<number, Pair>();
  let k = 0;
  for (let j = 0; j < n; j++) {
    const id = changed[j]!;
    while (k < ids.length && ids[k] !== id) k++;
    const f = k < ids.length ? flags[k]! : -1;
    if (!cursor.seek(id)) continue;
    const c = cursor.chunk!;
    const i = cursor.index;
    const r = c.recipient[i]!;
    const rowFlags = f < 0 ? 0 : f;
    const direct = (rowFlags & FLAG_BITS.mentioned) !== 0;
    const wildcard =
      (rowFlags & (FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned)) !== 0;
    if (r > 0) {
      let perChannel = rowMuted.get(r);
      if (perChannel === undefined) rowMuted.set(r, (perChannel = new Map()));
      const topicId = c.topic[i]!;
      let entries = channelEntries.get(r);
      if (entries === undefined) channelEntries.set(r, (entries = new Map()));
      let pair = entries.get(topicId);
      if (pair === undefined) entries.set(topicId, (pair = [undefined, undefined]));
      let muted = perChannel.get(c.topicKey[i]!);
      if (muted === undefined) {
        muted = isUnreadMuted(ctx.state, me, r, nameOf(store.topics, topicId));
        perChannel.set(c.topicKey[i]!, muted);
      }
      // Wildcard mentions count only when the row is not muted, by the same rule.
      const mentioned = direct || (wildcard && !muted);
      keys.push(id);
      values.push(
        (pair[mentioned ? 1 : 0] ??= channelDetail(r, nameOf(store.topics, topicId), !muted, mentioned)),
      );
    } else {
      let pair = directEntries.get(-r);
      if (pair === undefined) directEntries.set(-r, (pair = [undefined, undefined]));
      const mentioned = direct || wildcard;
      keys.push(id);
      values.push(
        (pair[mentioned ? 1 : 0] ??= Object.freeze({
          type: 'private',
          user_ids: Object.freeze(ctx.members(-r).filter((u) => u !== me)),
          ...(mentioned ? { mentioned: true } : {}),
        })),
      );
    }
  }
  return intKeyedObject(keys, values);
}

function channelDetail(streamId: number, topic: string, unmuted: boolean, mentioned: boolean): MessageDetail {
  return Object.freeze(
    mentioned
      ? { type: 'stream', stream_id: streamId, topic, unmuted_stream_msg: unmuted, mentioned: true }
      : { type: 'stream', stream_id: streamId, topic, unmuted_stream_msg: unmuted },
  );
}
