import { FLAG_BITS } from '../../core/messages/flags';
import { nameOf } from '../../core/messages/interner';
import { MessageCursor, type MessageStore } from '../../core/messages/store';
import { isUnreadMuted } from '../../core/messages/unread-muting';
import type { NarrowContext } from '../../narrow';

/**
 * `message_details` of an unread event: for channel messages the channel, topic and whether the
 * row is unmuted in Zulip's unread data (`isUnreadMuted`: topic policy over channel muting); for
 * DMs the other participants; `mentioned` when the user was mentioned (wildcard mentions only
 * when the row is not muted, as in Zulip's `extract_unread_data_from_um_rows`).
 *
 * `changed` (ascending) is a subset of `ids` (ascending), whose row flags are `flags` (-1: no row):
 * one merge walk gives each message's flags without searching the rows. Zulip sends an object keyed
 * by message id; V8 keeps an object with sparse integer keys as a dictionary whatever we do, so it
 * is created as one at once (the highest key first): growing it key by key in ascending order
 * re-decided its representation at every key and cost ~3× more.
 */
export function messageDetails(
  ctx: NarrowContext,
  store: MessageStore,
  changed: readonly number[],
  ids: ArrayLike<number>,
  flags: ArrayLike<number>,
): Record<number, Record<string, unknown>> {
  const me = ctx.userId;
  const out: Record<number, Record<string, unknown>> = {};
  const n = changed.length;
  if (n === 0) return out;
  out[changed[n - 1]!] = EMPTY_DETAILS;
  const cursor = new MessageCursor(store);
  const topicNames = new Map<number, string>();
  // stream id → folded topic id → muted in unread data (Zulip's `is_row_muted`).
  const rowMuted = new Map<number, Map<number, boolean>>();
  let k = 0;
  for (let j = 0; j < n; j++) {
    const id = changed[j]!;
    while (k < ids.length && ids[k] !== id) k++;
    const f = k < ids.length ? flags[k]! : -1;
    if (!cursor.seek(id)) {
      if (j === n - 1) delete out[id];
      continue;
    }
    const c = cursor.chunk!;
    const i = cursor.index;
    const r = c.recipient[i]!;
    const rowFlags = f < 0 ? 0 : f;
    const direct = (rowFlags & FLAG_BITS.mentioned) !== 0;
    const wildcard =
      (rowFlags & (FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned)) !== 0;
    let details: Record<string, unknown>;
    if (r > 0) {
      const topic = topicNames.get(c.topic[i]!) ?? cacheName(topicNames, store, c.topic[i]!);
      let perChannel = rowMuted.get(r);
      if (perChannel === undefined) rowMuted.set(r, (perChannel = new Map()));
      let muted = perChannel.get(c.topicKey[i]!);
      if (muted === undefined)
        perChannel.set(c.topicKey[i]!, (muted = isUnreadMuted(ctx.state, me, r, topic)));
      details = { type: 'stream', stream_id: r, topic, unmuted_stream_msg: !muted };
      // Wildcard mentions count only when the row is not muted, by the same rule.
      if (direct || (wildcard && !muted)) details['mentioned'] = true;
    } else {
      details = { type: 'private', user_ids: ctx.members(-r).filter((u) => u !== me) };
      if (direct || wildcard) details['mentioned'] = true;
    }
    out[id] = details;
  }
  return out;
}

const EMPTY_DETAILS: Record<string, unknown> = Object.freeze({});

function cacheName(cache: Map<number, string>, store: MessageStore, topicId: number): string {
  const name = nameOf(store.topics, topicId);
  cache.set(topicId, name);
  return name;
}
