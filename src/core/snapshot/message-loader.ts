import type { IntMap } from '../collections/int-map';
import { loadedClientBits } from '../messages/client-names';
import { FLAG_BITS, flagsToBits, MESSAGE_BITS, type FlagName } from '../messages/flags';
import { conversationKey } from '../messages/interner';
import { buildMessageStoreFromColumns } from '../messages/store-build';
import { EMPTY_STORE, type MessageEdits, type MessageStore } from '../messages/store-types';
import type { Reaction, User } from '../model/records';
import type { IssueList } from './issues';
import { DIRECT_MESSAGE, MessageKinds, NO_MESSAGE } from './message-kinds';
import { editsOf } from './message-edits';
import type { MessageSnapshotInput } from './messages';

/**
 * Builds the message store from checked snapshot messages given one at a time, so a streamed
 * import never holds the messages' `flags` objects (27 million rows in the large preset): each
 * message becomes columns, and each of its rows is appended to its user's growing typed arrays.
 * `createRealm` and the streamed import both use it, so they check (and report) alike.
 *
 * Rows without explicit `flags` are the ones Zulip makes at send time: the channel's active
 * subscribers (plus the sender, who has read it) or the direct message's participants. References
 * are checked in the order the messages come; messages may come in any id order (sorted at the end).
 */
export class MessageLoader {
  private readonly channelHolders = new Map<number, Int32Array>();
  /** Ids seen, once one came that was not above every id before it (until then none repeats). */
  private seen: Set<number> | undefined;
  private maxSeen = 0;
  private n = 0;
  private ids = new Int32Array(1024);
  private recipient = new Int32Array(1024);
  private sender = new Int32Array(1024);
  private timestamp = new Float64Array(1024);
  private bits = new Uint8Array(1024);
  private readonly content: string[] = [];
  private readonly topics: Array<string | undefined> = [];
  private readonly topicNames = new Map<string, string>();
  private readonly conversations: Array<string | undefined> = [];
  private readonly reactions: Array<readonly [number, readonly Reaction[]]> = [];
  /** [message id, client name] for clients outside `KNOWN_CLIENTS`. */
  private readonly clients: Array<readonly [number, string]> = [];
  private readonly edits: Array<readonly [number, MessageEdits]> = [];
  /** Per user: row ids and flag bits, and how many are used. */
  private readonly rowIds: Array<Int32Array | undefined> = [];
  private readonly rowFlags: Array<Uint16Array | undefined> = [];
  private readonly rowCount: number[] = [];
  private sorted = true;
  private lastId = 0;
  private readonly flagBits = new Map<string, number>();
  /**
   * Stream format 2: every well-formed message's id and whether it is direct (kept even once
   * problems stop the columns from being collected, so row lines are still checked against them),
   * then the id → kind lookup built at the first row line; and the users whose rows came.
   */
  private everyId = new Int32Array(0);
  private everyDirect = new Uint8Array(0);
  private everyCount = 0;
  private kinds: MessageKinds | undefined;
  private readonly rowUsers = new Set<number>();
  /** A message could not be read: rows that name no message may name that one (not reported). */
  private incomplete = false;
  /** Rows came whole and sorted per user (format 2): no trimming or sorting at the end. */
  private exactRows = false;

  constructor(
    private readonly userIds: ReadonlySet<number>,
    private readonly channelIds: ReadonlySet<number>,
    users: IntMap<User>,
    subscribers: ReadonlyMap<number, number[]>,
    private readonly issues: IssueList,
    /** Whether problems were reported elsewhere (the store will not be built then). */
    private readonly failed: () => boolean = () => false,
    /** The snapshot's `last_message_id`: the largest id the realm ever had, deleted ones included. */
    private readonly lastMessageId: number | undefined = undefined,
  ) {
    for (const [streamId, ids] of subscribers) {
      const active = ids.filter((u) => users.get(u)?.is_active !== false);
      this.channelHolders.set(streamId, Int32Array.from(new Set(active)).sort());
    }
  }

  /** Checks one well-formed message's references (reported at `messages[index]`) and keeps it. */
  add(m: MessageSnapshotInput, index: number): void {
    this.addRows(m, index, undefined);
  }

  /**
   * `add`, for a message whose `flags` were read apart as rows (the streamed reader's fast path):
   * `rows.users` ascending, with the bits of their flag lists. Same checks and problems.
   */
  addRows(m: MessageSnapshotInput, index: number, rows: FlagRows | undefined): void {
    const { issues, userIds } = this;
    const at = ['messages', index];
    if (m.id > this.maxSeen) {
      this.maxSeen = m.id;
      this.seen?.add(m.id);
    } else {
      this.seen ??= new Set(this.everyId.subarray(0, this.everyCount));
      if (this.seen.has(m.id)) issues.add([...at, 'id'], `duplicate message id ${m.id}`);
      this.seen.add(m.id);
    }
    this.remember(m.id, m.stream_id === undefined);
    if (!userIds.has(m.sender_id)) issues.add([...at, 'sender_id'], `no user ${m.sender_id}`);
    if (m.stream_id !== undefined && !this.channelIds.has(m.stream_id))
      issues.add([...at, 'stream_id'], `no channel ${m.stream_id}`);
    if (m.to !== undefined)
      for (let j = 0; j < m.to.length; j++)
        if (!userIds.has(m.to[j]!)) issues.add([...at, 'to', j], `no user ${m.to[j]}`);
    if (m.reactions !== undefined)
      for (let j = 0; j < m.reactions.length; j++) {
        const u = m.reactions[j]!.user_id;
        if (!userIds.has(u)) issues.add([...at, 'reactions', j, 'user_id'], `no user ${u}`);
      }
    if (m.edit_history !== undefined)
      for (let j = 0; j < m.edit_history.length; j++) {
        const u = m.edit_history[j]!.user_id;
        if (u !== null && !userIds.has(u)) issues.add([...at, 'edit_history', j, 'user_id'], `no user ${u}`);
      }
    if (m.flags !== undefined)
      for (const key in m.flags)
        if (!userIds.has(Number(key))) issues.add([...at, 'flags', key], `no user ${key}`);
    if (rows !== undefined)
      for (let j = 0; j < rows.users.length; j++) {
        const u = rows.users[j]!;
        if (!userIds.has(u)) issues.add([...at, 'flags', String(u)], `no user ${u}`);
      }
    // Once anything is wrong the store will not be built: keep checking, stop collecting.
    if (issues.items.length > 0 || this.failed()) return;
    this.keep(m, rows);
  }

  /** A message line that could not be read (not JSON, or not a message): its id is unknown. */
  lost(): void {
    this.incomplete = true;
  }

  private remember(id: number, direct: boolean): void {
    const k = this.everyCount++;
    if (k === this.everyId.length) {
      const size = Math.max(1024, k * 2);
      const ids = new Int32Array(size);
      const dm = new Uint8Array(size);
      ids.set(this.everyId);
      dm.set(this.everyDirect);
      this.everyId = ids;
      this.everyDirect = dm;
    }
    this.everyId[k] = id;
    this.everyDirect[k] = direct ? 1 : 0;
  }

  /**
   * Stream format 2: one user's rows (ascending ids, flag bits without `is_private`), after every
   * message (given with `NO_ROWS`). Checks the user exists and comes once and that every row names
   * a message, reported at `rows[line]`; marks the rows of direct messages `is_private`. The arrays
   * become the store's own.
   */
  addUserRows(line: number, user: number, ids: Int32Array, flags: Uint16Array): void {
    const { issues } = this;
    const at = ['rows', line];
    if (!this.userIds.has(user)) issues.add([...at, 'user_id'], `no user ${user}`);
    else if (this.rowUsers.has(user))
      issues.add([...at, 'user_id'], `user ${user}'s rows came on an earlier line`);
    this.rowUsers.add(user);
    if (this.kinds === undefined) {
      const every = this.everyId.subarray(0, this.everyCount);
      const direct = this.everyDirect;
      this.kinds = MessageKinds.of(every, (k) => direct[k] === 1);
    }
    const kinds = this.kinds;
    let missing = 0;
    let first = -1;
    for (let j = 0; j < ids.length; j++) {
      const kind = kinds.kindOf(ids[j]!);
      if (kind === DIRECT_MESSAGE) flags[j] = flags[j]! | FLAG_BITS.is_private;
      else if (kind === NO_MESSAGE && missing++ === 0) first = j;
    }
    if (missing > 0 && !this.incomplete)
      issues.add(
        [...at, 'rows', first],
        `no message ${ids[first]}${missing > 1 ? ` (nor for ${missing - 1} more rows of this line)` : ''}`,
      );
    if (issues.items.length > 0 || this.failed()) return;
    this.rowIds[user] = ids;
    this.rowFlags[user] = flags;
    this.rowCount[user] = ids.length;
    this.exactRows = true;
  }

  private keep(m: MessageSnapshotInput, rows: FlagRows | undefined): void {
    const k = this.n++;
    if (k === this.ids.length) this.grow();
    if (m.id < this.lastId) this.sorted = false;
    this.lastId = m.id;
    this.ids[k] = m.id;
    this.sender[k] = m.sender_id;
    this.timestamp[k] = m.timestamp;
    this.content[k] = m.content;
    const hasReaction = m.reactions !== undefined && m.reactions.length > 0;
    if (hasReaction) this.reactions.push([m.id, m.reactions!]);
    const edits = editsOf(m);
    if (edits !== undefined) this.edits.push([m.id, edits]);
    this.bits[k] =
      (m.has_link === true ? MESSAGE_BITS.has_link : 0) |
      (m.has_attachment === true ? MESSAGE_BITS.has_attachment : 0) |
      (m.has_image === true ? MESSAGE_BITS.has_image : 0) |
      (hasReaction ? MESSAGE_BITS.has_reaction : 0) |
      loadedClientBits(m.id, m.client, this.clients);
    const channel = m.stream_id !== undefined;
    if (channel) {
      this.recipient[k] = m.stream_id!;
      // One string per distinct topic: a parsed line's own copy dies young instead of being
      // kept (and copied into the old generation) until the store is built.
      const topic = m.topic ?? '';
      let shared = this.topicNames.get(topic);
      if (shared === undefined) this.topicNames.set(topic, (shared = topic));
      this.topics[k] = shared;
      this.conversations[k] = undefined;
    } else {
      this.topics[k] = undefined;
      this.conversations[k] = conversationKey([m.sender_id, ...(m.to ?? [])]);
    }
    const dm = channel ? 0 : FLAG_BITS.is_private;
    if (rows !== undefined) {
      for (let j = 0; j < rows.users.length; j++) this.row(rows.users[j]!, m.id, rows.bits[j]! | dm);
      return;
    }
    const flags = m.flags;
    if (flags !== undefined) {
      for (const key in flags) this.row(Number(key), m.id, this.bitsOf(flags[key]!) | dm);
      return;
    }
    if (channel) {
      const holders = this.channelHolders.get(m.stream_id!) ?? EMPTY;
      let senderHolds = false;
      for (let i = 0; i < holders.length; i++) {
        const u = holders[i]!;
        if (u === m.sender_id) senderHolds = true;
        this.row(u, m.id, u === m.sender_id ? FLAG_BITS.read : 0);
      }
      // A channel message's sender holds a row even when not subscribed (Zulip marks it read).
      if (!senderHolds) this.row(m.sender_id, m.id, FLAG_BITS.read);
      return;
    }
    for (const u of new Set([m.sender_id, ...(m.to ?? [])]))
      this.row(u, m.id, (u === m.sender_id ? FLAG_BITS.read : 0) | dm);
  }

  private bitsOf(list: readonly string[]): number {
    if (list.length === 0) return 0;
    if (list.length === 1) {
      let b = this.flagBits.get(list[0]!);
      if (b === undefined) this.flagBits.set(list[0]!, (b = flagsToBits(list as FlagName[])));
      return b;
    }
    return flagsToBits(list as FlagName[]);
  }

  private row(user: number, id: number, bits: number): void {
    let ids = this.rowIds[user];
    let n = this.rowCount[user] ?? 0;
    if (ids === undefined || n === ids.length) {
      const size = ids === undefined ? 64 : ids.length * 2;
      const nextIds = new Int32Array(size);
      const nextFlags = new Uint16Array(size);
      if (ids !== undefined) {
        nextIds.set(ids);
        nextFlags.set(this.rowFlags[user]!);
      }
      this.rowIds[user] = ids = nextIds;
      this.rowFlags[user] = nextFlags;
    }
    ids[n] = id;
    this.rowFlags[user]![n] = bits;
    this.rowCount[user] = ++n;
  }

  private grow(): void {
    const size = this.ids.length * 2;
    const copy = <T extends Int32Array | Float64Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const b = make(size);
      b.set(a as never);
      return b;
    };
    this.ids = copy(this.ids, (s) => new Int32Array(s));
    this.recipient = copy(this.recipient, (s) => new Int32Array(s));
    this.sender = copy(this.sender, (s) => new Int32Array(s));
    this.timestamp = copy(this.timestamp, (s) => new Float64Array(s));
    this.bits = copy(this.bits, (s) => new Uint8Array(s));
  }

  /** The store, or an empty one when anything was reported (the caller throws then). */
  finish(): MessageStore {
    // Ids are never reused: the high-water mark cannot be below a message that exists.
    if (this.lastMessageId !== undefined && this.maxSeen > this.lastMessageId)
      this.issues.add(
        ['last_message_id'],
        `${this.lastMessageId} is below message id ${this.maxSeen}: it is the largest id the realm ever had`,
      );
    if (this.issues.items.length > 0 || this.failed()) return EMPTY_STORE;
    const n = this.n;
    let cols: Columns = {
      ids: this.ids.subarray(0, n),
      recipient: this.recipient.subarray(0, n),
      sender: this.sender.subarray(0, n),
      timestamp: this.timestamp.subarray(0, n),
      bits: this.bits.subarray(0, n),
      content: this.content,
      topics: this.topics,
      conversations: this.conversations,
    };
    if (!this.sorted) cols = sortColumns(cols);
    const rows = new Map<number, { ids: Int32Array; flags: Uint16Array }>();
    for (let u = 0; u < this.rowIds.length; u++) {
      const ids = this.rowIds[u];
      if (ids === undefined) continue;
      const count = this.rowCount[u]!;
      if (this.exactRows) {
        rows.set(u, { ids, flags: this.rowFlags[u]! });
        continue;
      }
      let userIds: Int32Array = ids.slice(0, count);
      let userFlags: Uint16Array = this.rowFlags[u]!.slice(0, count);
      if (!this.sorted) [userIds, userFlags] = sortRows(userIds, userFlags);
      rows.set(u, { ids: userIds, flags: userFlags });
    }
    return buildMessageStoreFromColumns(
      cols,
      rows,
      this.reactions,
      this.lastMessageId,
      this.edits,
      this.clients,
    );
  }
}

const EMPTY = new Int32Array(0);

/** No rows with this message: they come apart, on the user lines of stream format 2. */
export const NO_ROWS: FlagRows = Object.freeze({ users: Object.freeze([]), bits: Object.freeze([]) });

/** A message's explicit rows: users (ascending) and the bits of their flag lists. */
export interface FlagRows {
  readonly users: readonly number[];
  readonly bits: readonly number[];
}

type Columns = {
  ids: Int32Array;
  recipient: Int32Array;
  sender: Int32Array;
  timestamp: Float64Array;
  bits: Uint8Array;
  content: string[];
  topics: Array<string | undefined>;
  conversations: Array<string | undefined>;
};

/** Columns reordered by message id (messages that came out of order). */
function sortColumns(c: Columns): Columns {
  const order = Array.from(c.ids.keys()).sort((a, b) => c.ids[a]! - c.ids[b]!);
  const pick = <T>(a: ArrayLike<T>): T[] => order.map((k) => a[k]!);
  return {
    ids: Int32Array.from(pick(c.ids)),
    recipient: Int32Array.from(pick(c.recipient)),
    sender: Int32Array.from(pick(c.sender)),
    timestamp: Float64Array.from(pick(c.timestamp)),
    bits: Uint8Array.from(pick(c.bits)),
    content: pick(c.content),
    topics: order.map((k) => c.topics[k]),
    conversations: order.map((k) => c.conversations[k]),
  };
}

function sortRows(ids: Int32Array, flags: Uint16Array): [Int32Array, Uint16Array] {
  const order = Array.from(ids.keys()).sort((a, b) => ids[a]! - ids[b]!);
  return [Int32Array.from(order, (k) => ids[k]!), Uint16Array.from(order, (k) => flags[k]!)];
}
