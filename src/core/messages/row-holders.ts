import type { RowTable } from './row-table';
import { chunkContaining, lowerBound } from './rows';
import type { MessageChunk, MessageStore } from './store';

/**
 * Who may hold UserMessage rows, by recipient: a derived index over `store.rows` answering "which
 * users have a row for these messages" without probing every user's rows.
 *
 * It maps each recipient (a stream id, or minus a conversation id; 0 for rows whose message is not
 * in the store) to the users who hold — or once held — a row for one of its messages. It is a
 * *superset*: callers still check each candidate's rows, so a stale extra holder costs one binary
 * search and the index never has to shrink. That is why one index object can be shared, and only
 * ever grown, by every store descending from the one it was built for (older states merely see a
 * larger superset).
 *
 * Cached per `store.rows` instance (a `WeakMap`): the row mutators of this folder (`changeFlag`,
 * `deleteMessages`, `markChannelsRead`) carry it to the rows they produce, adding the users of new
 * rows. Rows produced any other way miss the cache and the index is rebuilt from them (one pass
 * over every row), so an answer is never wrong, only occasionally slow. Assumes what holds here:
 * a message id keeps its recipient for as long as it exists and ids are never reused.
 */
export interface RowHolders {
  /** recipient → user ids (0: rows for messages missing from the store). */
  readonly byRecipient: Map<number, Set<number>>;
  /**
   * recipient → the user list most recently added for it. A channel's subscriber list is one
   * array kept with its subscription map, so a run of sends to an unchanged channel adds its users
   * once, not once per send.
   */
  readonly lastAdded: Map<number, ArrayLike<number>>;
}

const cache = new WeakMap<RowTable, RowHolders>();

const NO_HOLDERS: ReadonlySet<number> = new Set();

/** The index for `store.rows`: cached, or built now (one pass over every row of the store). */
export function rowHolders(store: MessageStore): RowHolders {
  let index = cache.get(store.rows);
  if (index === undefined) {
    index = buildRowHolders(store);
    cache.set(store.rows, index);
  }
  return index;
}

/**
 * `next` is `from.rows` after a change: when `from.rows` has an index, share it with `next`, adding
 * `userId` as a holder of the recipients of `createdIds` (rows the change created; none for a
 * change that only updates or removes rows). Without an index nothing happens (built on first use).
 */
export function carryRowHolders(
  from: MessageStore,
  next: RowTable,
  userId?: number,
  createdIds?: ArrayLike<number>,
): void {
  if (next === from.rows) return;
  const index = cache.get(from.rows);
  if (index === undefined) return;
  if (userId !== undefined && createdIds !== undefined && createdIds.length > 0) {
    const locate = recipientCursor(from.chunks);
    let last: number | undefined;
    for (let k = 0; k < createdIds.length; k++) {
      const r = locate(createdIds[k]!);
      if (r === last) continue;
      last = r;
      holdersFor(index, r).add(userId);
    }
  }
  cache.set(next, index);
}

/**
 * `next` is `from.rows` after appending one message to `recipient` with rows for `userIds`: when
 * `from.rows` has an index, share it with `next`, adding those users as the recipient's holders.
 */
export function carryRowHoldersOnAppend(
  from: MessageStore,
  next: RowTable,
  recipient: number,
  userIds: ArrayLike<number>,
): void {
  if (next === from.rows) return;
  const index = cache.get(from.rows);
  if (index === undefined) return;
  if (index.lastAdded.get(recipient) !== userIds) {
    const holders = holdersFor(index, recipient);
    for (let k = 0; k < userIds.length; k++) holders.add(userIds[k]!);
    index.lastAdded.set(recipient, userIds);
  }
  cache.set(next, index);
}

/**
 * Users who may hold a row for one of `ids` (a superset of the real holders, unordered): the
 * holders of the ids' recipients and of rows whose message is missing.
 */
export function rowHolderCandidates(store: MessageStore, ids: Iterable<number>): Set<number> {
  const index = rowHolders(store);
  const locate = recipientCursor(store.chunks);
  const recipients = new Set<number>([0]);
  for (const id of ids) recipients.add(locate(id));
  const out = new Set<number>();
  for (const r of recipients) for (const u of index.byRecipient.get(r) ?? NO_HOLDERS) out.add(u);
  return out;
}

/**
 * Builds the index from scratch: one pass over every row. Message ids are looked up in a dense
 * id → recipient table (ids are nearly consecutive) and each (user, recipient) pair is noticed
 * with a typed "last user" stamp, so a row costs a few array reads: ~28M rows in well under a
 * second. Sparse ids (a table over 4× the message count) fall back to a forward search per row.
 */
export function buildRowHolders(store: MessageStore): RowHolders {
  const index: RowHolders = { byRecipient: new Map(), lastAdded: new Map() };
  const chunks = store.chunks;
  const first = chunks[0]?.ids[0] ?? 0;
  const lastChunk = chunks[chunks.length - 1];
  const span = lastChunk === undefined ? 0 : lastChunk.ids[lastChunk.ids.length - 1]! - first + 1;
  let table: Int32Array | undefined;
  let maxStream = 0;
  let maxConversation = 0;
  if (span <= 4 * store.count + 1024) {
    table = new Int32Array(span);
    for (const c of chunks) {
      for (let i = 0; i < c.ids.length; i++) {
        const r = c.recipient[i]!;
        table[c.ids[i]! - first] = r;
        if (r > maxStream) maxStream = r;
        else if (-r > maxConversation) maxConversation = -r;
      }
    }
  } else {
    for (const c of chunks) {
      for (let i = 0; i < c.ids.length; i++) {
        const r = c.recipient[i]!;
        if (r > maxStream) maxStream = r;
        else if (-r > maxConversation) maxConversation = -r;
      }
    }
  }
  // (recipient + maxConversation) → 1 + the last user added for it: each pair is added once.
  const offset = maxConversation;
  const stamps = new Int32Array(maxStream + maxConversation + 1);
  const dense = table;
  const recipientOf: (id: number) => number =
    dense === undefined
      ? recipientCursor(chunks)
      : (id) => {
          const k = id - first;
          return k >= 0 && k < span ? dense[k]! : 0;
        };
  for (const [userId, rows] of store.rows) {
    const stamp = userId + 1;
    let last = NaN;
    for (const c of rows.chunks) {
      const ids = c.ids;
      for (let i = 0; i < ids.length; i++) {
        const r = recipientOf(ids[i]!);
        if (r === last) continue;
        last = r;
        if (stamps[r + offset] === stamp) continue;
        stamps[r + offset] = stamp;
        holdersFor(index, r).add(userId);
      }
    }
  }
  return index;
}

function holdersFor(index: RowHolders, recipient: number): Set<number> {
  let set = index.byRecipient.get(recipient);
  if (set === undefined) index.byRecipient.set(recipient, (set = new Set()));
  return set;
}

/**
 * The recipient of message `id` (0 when it is not in the store), as a function fastest for ids
 * asked in ascending order: it continues from the previous position (a direct probe first, since
 * ids inside a chunk are usually consecutive) instead of searching from scratch.
 */
function recipientCursor(chunks: readonly MessageChunk[]): (id: number) => number {
  let ci = 0;
  let pos = 0;
  return (id) => {
    let c = chunks[ci];
    if (c === undefined) return 0;
    if (id < c.ids[0]! || id > c.ids[c.ids.length - 1]!) {
      ci = chunkContaining(chunks, id);
      c = chunks[ci]!;
      pos = 0;
    }
    const ids = c.ids;
    const guess = id - ids[0]!;
    if (ids[guess] === id) pos = guess;
    else if (ids[pos] !== id) pos = id > ids[pos]! ? lowerBound(ids, id, pos) : lowerBound(ids, id, 0, pos);
    return ids[pos] === id ? c.recipient[pos]! : 0;
  };
}

/**
 * Adds `userIds` to the possible holders of rows in `recipient` for `store`'s rows (and so for
 * every store sharing them): messages moved to another channel keep their rows, which the index
 * must then find under the new channel. Growing a superset is always safe.
 */
export function growRowHolders(store: MessageStore, recipient: number, userIds: Iterable<number>): void {
  const index = cache.get(store.rows);
  if (index === undefined) return;
  const holders = holdersFor(index, recipient);
  for (const u of userIds) holders.add(u);
}
