import type { IntMap } from '../collections/int-map';
import { FLAG_BITS, flagsToBits, type FlagName } from '../messages/flags';
import { buildMessageStore, EMPTY_STORE, type MessageStore } from '../messages/store';
import type { User } from '../model/records';
import type { IssueList } from './issues';
import type { MessageSnapshotInput } from './messages';
import { sortedIncludes } from '../indexes/id-sets';

/**
 * Builds the message store from checked snapshot messages. Rows without explicit `flags` are the ones
 * Zulip makes at send time: the channel's active subscribers (plus the sender, who has read it) or the
 * direct message's participants. Counted first, so each user's rows land in exactly-sized typed arrays.
 */
export function loadMessages(
  messages: Array<{ message: MessageSnapshotInput; index: number }>,
  userIds: ReadonlySet<number>,
  channelIds: ReadonlySet<number>,
  users: IntMap<User>,
  subscribers: ReadonlyMap<number, number[]>,
  issues: IssueList,
): MessageStore {
  const sorted = messages.length > 1 ? [...messages].sort((a, b) => a.message.id - b.message.id) : messages;
  // Who holds a row for each message, as (user, bits) pairs; counted first so each user's rows
  // land in exactly-sized typed arrays (a million messages make hundreds of millions of rows).
  const channelHolders = new Map<number, Int32Array>();
  for (const [streamId, ids] of subscribers) {
    const active = ids.filter((u) => users.get(u)?.is_active !== false);
    channelHolders.set(streamId, Int32Array.from(new Set(active)).sort());
  }
  // Holders without explicit flags: the channel's active subscribers (plus the sender), or the
  // DM's participants. Channel arrays are shared between that channel's messages.
  const holdersOf = (m: MessageSnapshotInput): ArrayLike<number> => {
    if (m.flags !== undefined)
      return Object.keys(m.flags)
        .map(Number)
        .filter((u) => userIds.has(u));
    if (m.stream_id !== undefined) {
      const subs = channelHolders.get(m.stream_id) ?? EMPTY;
      return subs;
    }
    return [...new Set([m.sender_id, ...(m.to ?? [])])].filter((u) => userIds.has(u));
  };
  const holders: Array<ArrayLike<number>> = new Array(sorted.length);
  // A channel message's sender holds a row even when not subscribed (Zulip marks it read).
  const senderExtra = new Uint8Array(sorted.length);

  const seen = new Set<number>();
  // Dense per-user counters: user ids are small integers in practice (bounded by the snapshot's).
  let maxUser = 0;
  for (const u of userIds) if (u > maxUser) maxUser = u;
  const counts = new Int32Array(maxUser + 1);
  for (const { message: m, index } of sorted) {
    const at = ['messages', index];
    if (seen.has(m.id)) issues.add([...at, 'id'], `duplicate message id ${m.id}`);
    seen.add(m.id);
    if (!userIds.has(m.sender_id)) issues.add([...at, 'sender_id'], `no user ${m.sender_id}`);
    if (m.stream_id !== undefined && !channelIds.has(m.stream_id))
      issues.add([...at, 'stream_id'], `no channel ${m.stream_id}`);
    (m.to ?? []).forEach((u, j) => {
      if (!userIds.has(u)) issues.add([...at, 'to', j], `no user ${u}`);
    });
    (m.reactions ?? []).forEach((r, j) => {
      if (!userIds.has(r.user_id)) issues.add([...at, 'reactions', j, 'user_id'], `no user ${r.user_id}`);
    });
    if (m.flags !== undefined) {
      for (const key of Object.keys(m.flags))
        if (!userIds.has(Number(key))) issues.add([...at, 'flags', key], `no user ${key}`);
    }
  }
  if (issues.items.length > 0) return EMPTY_STORE;
  for (let k = 0; k < sorted.length; k++) {
    const m = sorted[k]!.message;
    const h = (holders[k] = holdersOf(m));
    for (let i = 0; i < h.length; i++) counts[h[i]!]!++;
    if (
      m.flags === undefined &&
      m.stream_id !== undefined &&
      userIds.has(m.sender_id) &&
      !sortedIncludes(h, m.sender_id)
    ) {
      senderExtra[k] = 1;
      counts[m.sender_id]!++;
    }
  }
  const ids: Array<Int32Array | undefined> = [];
  const flags: Array<Uint16Array | undefined> = [];
  const fill = new Int32Array(maxUser + 1);
  for (let u = 0; u <= maxUser; u++) {
    if (counts[u]! > 0) {
      ids[u] = new Int32Array(counts[u]!);
      flags[u] = new Uint16Array(counts[u]!);
    }
  }
  for (let k = 0; k < sorted.length; k++) {
    const m = sorted[k]!.message;
    const h = holders[k]!;
    const dm = m.stream_id === undefined ? FLAG_BITS.is_private : 0;
    const explicit = m.flags;
    if (senderExtra[k] === 1) {
      // Merge the sender into its sorted place is unnecessary: rows are per user, ids ascending.
      const n = fill[m.sender_id]!++;
      ids[m.sender_id]![n] = m.id;
      flags[m.sender_id]![n] = FLAG_BITS.read;
    }
    for (let i = 0; i < h.length; i++) {
      const u = h[i]!;
      const n = fill[u]!++;
      ids[u]![n] = m.id;
      flags[u]![n] =
        explicit !== undefined
          ? flagsToBits(explicit[String(u)] as FlagName[]) | dm
          : (u === m.sender_id ? FLAG_BITS.read : 0) | dm;
    }
  }
  const rows = new Map<number, { ids: Int32Array; flags: Uint16Array }>();
  for (let u = 0; u <= maxUser; u++) if (ids[u]) rows.set(u, { ids: ids[u]!, flags: flags[u]! });
  return buildMessageStore(
    sorted.map((x) => x.message),
    rows,
  );
}

const EMPTY = new Int32Array(0);
