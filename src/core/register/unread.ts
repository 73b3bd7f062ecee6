import { FLAG_BITS } from '../messages/flags';
import { chunkIndexOf } from '../messages/store-chunks';
import { lowerBoundFrom } from '../messages/rows';
import { everyRowHas } from '../messages/row-summary';
import { conversationParticipants, nameOf } from '../messages/interner';
import type { UserRows } from '../messages/rows';
import { mutedByPolicy, policyAmong } from '../messages/unread-muting';
import { VisibilityPolicy, type UserTopic } from '../model/records';
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

type StreamBucket = { stream_id: number; topic: string; unread_message_ids: number[] };

/** A channel met among the unread rows: whether the user left it or muted it, their settings for its topics, its buckets. */
interface ChannelEntry {
  readonly left: boolean;
  readonly muted: boolean;
  readonly policies: readonly UserTopic[];
  /** Its newest bucket (-1: none yet); older ones follow `Buckets.prior`. */
  last: number;
  /** How many buckets it has. */
  count: number;
  /** Without `empty_topic_name`: the bucket the empty topic shares with its display name (-1: none yet). */
  display: number;
}

/**
 * The (channel, folded topic) buckets, numbered in the order met: each one's channel, the topic id
 * of its oldest row (its spelling), its folded topic id and the channel's previous bucket, in
 * columns and not an object per bucket (and a list of them per channel), which were a fifth of
 * what `unread_msgs` allocated besides its answer.
 */
class Buckets {
  readonly stream: Int32Array;
  readonly prior: Int32Array;
  /** How many rows each bucket has (counted by the row loop). */
  readonly rows: Int32Array;
  /** The topic id of the bucket's oldest row: the answer spells the bucket so. */
  readonly topic: Int32Array;
  size = 0;

  /** Room for `capacity` buckets: at most one per unread row, so the columns never grow. */
  constructor(capacity: number) {
    this.stream = new Int32Array(capacity);
    this.prior = new Int32Array(capacity);
    this.rows = new Int32Array(capacity);
    this.topic = new Int32Array(capacity);
  }

  add(channel: ChannelEntry, streamId: number, topicId: number): number {
    const b = this.size++;
    this.stream[b] = streamId;
    this.prior[b] = channel.last;
    this.topic[b] = topicId;
    channel.last = b;
    channel.count++;
    return b;
  }
}

/**
 * The (channel, folded topic id) pairs met among the unread rows, in parallel typed arrays indexed
 * by entry number: an entry's channel, its bucket (-1 when the user left the channel: Zulip's
 * inactive recipient, whose unreads are not listed), its muting, and the next entry with the same
 * folded topic in another channel. Typed arrays and not an object per entry: the row loop reads an
 * entry per row, and chasing thousands of small heap objects (entry, then bucket) was most of its
 * time. Keyed by the store's folded topic id (the `topicKey` column), so every spelling of a topic
 * in a channel is one entry and one bucket, with no string lower-cased, hashed or compared per
 * entry (topic settings compare case-insensitively, so one muting holds for every spelling).
 *
 * Folded topic id → first entry is a plain array indexed by that id when the rows are many against
 * the realm's topics (one load per row), a `Map` otherwise (a user with few unreads allocates
 * nothing in proportion to the realm's topics).
 */
class Entries {
  readonly dense: Int32Array | undefined;
  private readonly sparse = new Map<number, number>();
  readonly stream: Int32Array;
  readonly bucket: Int32Array;
  readonly muted: Uint8Array;
  readonly next: Int32Array;
  size = 0;

  /**
   * Room for `rows` entries (at most one per unread row): the columns never grow, so the row loop
   * keeps them in locals.
   */
  constructor(topicKeys: number, rows: number) {
    this.dense = topicKeys <= 4 * rows ? new Int32Array(topicKeys).fill(-1) : undefined;
    this.stream = new Int32Array(rows);
    this.bucket = new Int32Array(rows);
    this.muted = new Uint8Array(rows);
    this.next = new Int32Array(rows);
  }

  /** The first entry of a folded topic id, or -1. */
  first(topicKey: number): number {
    const dense = this.dense;
    return dense !== undefined && topicKey < dense.length
      ? dense[topicKey]!
      : (this.sparse.get(topicKey) ?? -1);
  }

  /** A new entry, put ahead of the folded topic's entries in other channels. */
  add(streamId: number, topicKey: number, bucket: number, muted: boolean): number {
    const e = this.size++;
    this.stream[e] = streamId;
    this.bucket[e] = bucket;
    this.muted[e] = muted ? 1 : 0;
    this.next[e] = this.first(topicKey);
    if (this.dense !== undefined && topicKey < this.dense.length) this.dense[topicKey] = e;
    else this.sparse.set(topicKey, e);
    return e;
  }
}

const READ = FLAG_BITS.read;
const MENTION = FLAG_BITS.mentioned;
const WILDCARD = FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned;

/**
 * `unread_msgs` as Zulip's `get_raw_unread_data` + `aggregate_unread_data` build it: the user's
 * unread rows, leaving out channels the user was subscribed to and left (Zulip's inactive
 * recipients), grouped by (channel, lower-cased topic: a bucket is spelled as its oldest row's
 * topic), by DM partner and by group DM, each list sorted by its key (topics by code point); `count` leaves out muted channel messages (`isUnreadMuted`'s rule); `mentions` holds direct
 * mentions, and wildcard mentions outside muted conversations. O(the rows from the newest back to
 * the oldest of the reported unreads), not O(every row the user has).
 */
export function unreadMsgs(state: RealmState, userId: number, emptyTopicName: boolean): UnreadMsgs {
  const { ids: unreadIds, bits: unreadBits, missing } = newestUnread(state.messages.rows.get(userId));
  const folded = state.messages.foldedTopics;
  // Entries are found by folded topic id (the store's `topicKey` column), one load per row and no
  // string per row or per entry: Zulip groups unreads case-insensitively, so a folded topic in a
  // channel is one bucket. Without `empty_topic_name` the empty topic is named by its display
  // name, so it shares the bucket of a topic of that name (the one exception, see `newTopicEntry`).
  const walk: RowWalk = {
    state,
    userId,
    entries: new Entries(folded.names.maxKey() + 1, unreadIds.length),
    channels: new Map(),
    myTopics: state.userTopics.get(userId) ?? [],
    emptyAsDisplay: !emptyTopicName,
    emptyKey: folded.ids.get('') ?? -1,
    displayKey: folded.ids.get(DISPLAY_KEY) ?? -1,
    buckets: new Buckets(unreadIds.length),
    pms: new Map(),
    huddles: new Map(),
    conversationLists: new Map(),
    mentions: [],
    // Each row's bucket (-1: none), placed in its list afterwards (see `streamBuckets`).
    rowBucket: new Int32Array(unreadIds.length).fill(-1),
  };
  const count = walkRows(walk, unreadIds, unreadBits);
  const byKey = <T>(a: [string | number, T], b: [string | number, T]) =>
    a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
  return {
    pms: [...walk.pms.entries()]
      .sort(byKey)
      .map(([other, ids]) => ({ other_user_id: other, sender_id: other, unread_message_ids: ids })),
    streams: streamBuckets(walk, unreadIds),
    huddles: [...walk.huddles.entries()]
      .sort(byKey)
      .map(([key, ids]) => ({ user_ids_string: key, unread_message_ids: ids })),
    mentions: walk.mentions,
    count,
    old_unreads_missing: missing,
  };
}

/** The empty topic's display name lower-cased: its bucket's key without `empty_topic_name`. */
const DISPLAY_KEY = EMPTY_TOPIC_DISPLAY_NAME.toLowerCase();

/** What the row walk reads and fills: the realm and user, the entries and buckets met, the DM lists. */
interface RowWalk extends EntryContext {
  readonly state: RealmState;
  readonly userId: number;
  readonly pms: Map<number, number[]>;
  readonly huddles: Map<string, number[]>;
  /** A conversation id's list in `pms` or `huddles`. */
  readonly conversationLists: Map<number, number[]>;
  readonly mentions: number[];
  readonly rowBucket: Int32Array;
}

/**
 * Gives each unread row its bucket (or its DM list) and returns `count`. The loop alone, in a
 * function that ends with it: V8 compiles a loop this hot on the stack (OSR) during the first
 * call, before the code after it has ever run, and that code then lacked type feedback; the
 * cached OSR code left the optimized code at the loop's end on every call afterwards (a deopt per
 * register, seen with `--trace-deopt`).
 */
function walkRows(walk: RowWalk, unreadIds: Int32Array, unreadBits: Uint16Array): number {
  const { state, entries, buckets, rowBucket, mentions } = walk;
  const { dense, stream: eStream, next: eNext, bucket: eBucket, muted: eMuted } = entries;
  const bucketRows = buckets.rows;
  let count = 0;
  const chunks = state.messages.chunks;
  let ci = -1;
  let pos = 0;
  let lastId = -1;
  for (let k = 0; k < unreadIds.length; k++) {
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
    // Where the id must be if present: ids are distinct integers, so it lies at most
    // `id - ids[pos]` past `pos`, and exactly there while no message between was deleted (the
    // common case: one load instead of a search). Otherwise search back from that guess.
    const cIds = chunk.ids;
    const n = cIds.length;
    let index = pos < n ? pos + (id - cIds[pos]!) : n;
    if (index < pos || index >= n || cIds[index] !== id) {
      index = lowerBoundFrom(cIds, id, index < n ? index : n - 1);
      if (index >= n || cIds[index] !== id) continue;
    }
    pos = index + 1;
    const recipient = chunk.recipient[index]!;
    let muted = false;
    if (recipient > 0) {
      const topicKey = chunk.topicKey[index]!;
      let e = dense !== undefined && topicKey < dense.length ? dense[topicKey]! : entries.first(topicKey);
      while (e >= 0 && eStream[e] !== recipient) e = eNext[e]!;
      if (e < 0) e = newTopicEntry(state, walk.userId, recipient, topicKey, chunk.topic[index]!, walk);
      const bucket = eBucket[e]!;
      if (bucket < 0) continue;
      muted = eMuted[e] === 1;
      rowBucket[k] = bucket;
      bucketRows[bucket]!++;
      if (!muted) count++;
    } else {
      conversationList(walk, recipient).push(id);
      count++;
    }
    if ((bits & MENTION) !== 0 || ((bits & WILDCARD) !== 0 && !muted)) mentions.push(id);
  }
  return count;
}

/** A DM conversation's list in `pms` or `huddles`, found once per conversation (not a key split per message). */
function conversationList(walk: RowWalk, recipient: number): number[] {
  let list = walk.conversationLists.get(recipient);
  if (list !== undefined) return list;
  const participants = conversationParticipants(nameOf(walk.state.messages.conversations, -recipient));
  const others = participants.filter((p) => p !== walk.userId);
  if (others.length <= 1) {
    const other = others[0] ?? walk.userId;
    list = walk.pms.get(other);
    if (list === undefined) walk.pms.set(other, (list = []));
  } else {
    const key = [...participants].sort((a, b) => a - b).join(',');
    list = walk.huddles.get(key);
    if (list === undefined) walk.huddles.set(key, (list = []));
  }
  walk.conversationLists.set(recipient, list);
  return list;
}

interface EntryContext {
  readonly entries: Entries;
  readonly channels: Map<number, ChannelEntry>;
  readonly myTopics: readonly UserTopic[];
  /** Without `empty_topic_name`: the empty topic is listed under its display name. */
  readonly emptyAsDisplay: boolean;
  /** The folded ids of the empty topic and of its display name (-1: not in the store). */
  readonly emptyKey: number;
  readonly displayKey: number;
  readonly buckets: Buckets;
}

/**
 * The entry of a (channel, folded topic) met for the first time: the channel's subscription and
 * the user's topic settings are read once per channel, muting once per entry (`isUnreadMuted`'s
 * rule; topic settings match case-insensitively, so every spelling in a bucket mutes alike, and the
 * topic's name is read only when the user has settings in the channel). Its bucket is new, spelled
 * as this row's topic (rows come oldest first, as Zulip's aggregation meets them), except that
 * without `empty_topic_name` the empty topic and its display name share one, whichever came first.
 */
function newTopicEntry(
  state: RealmState,
  userId: number,
  streamId: number,
  topicKey: number,
  topicId: number,
  { entries, channels, myTopics, emptyAsDisplay, emptyKey, displayKey, buckets }: EntryContext,
): number {
  let channel = channels.get(streamId);
  if (channel === undefined) {
    const sub = state.subscriptions.get(streamId)?.get(userId);
    channel = {
      left: sub !== undefined && !sub.active,
      muted: sub?.active === true && sub.is_muted,
      policies: policiesIn(myTopics, streamId),
      last: -1,
      count: 0,
      display: -1,
    };
    channels.set(streamId, channel);
  }
  if (channel.left) return entries.add(streamId, topicKey, -1, false);
  const policy =
    channel.policies.length === 0
      ? VisibilityPolicy.inherit
      : policyAmong(channel.policies, streamId, nameOf(state.messages.topics, topicId));
  const muted = mutedByPolicy(channel.muted, policy);
  let bucket: number;
  if (emptyAsDisplay && (topicKey === emptyKey || topicKey === displayKey)) {
    if (channel.display < 0) channel.display = buckets.add(channel, streamId, topicId);
    bucket = channel.display;
  } else bucket = buckets.add(channel, streamId, topicId);
  return entries.add(streamId, topicKey, bucket, muted);
}

/**
 * The user's topic settings in channel `streamId` (most channels have none: one shared empty list).
 * A loop and a function of its own, not a `filter` closure in `newTopicEntry`: a closure capturing
 * a parameter makes V8 allocate a context on every call of the enclosing function, whether or not
 * the closure is made, and that was a sixth of what a register of a user with 10,000 unread topics
 * allocated.
 */
function policiesIn(myTopics: readonly UserTopic[], streamId: number): readonly UserTopic[] {
  let out: UserTopic[] | undefined;
  for (const t of myTopics) if (t.stream_id === streamId) (out ??= []).push(t);
  return out ?? NO_POLICIES;
}

const NO_POLICIES: readonly UserTopic[] = [];

/**
 * The `streams` list, sorted by (channel, topic): the channels by id, then each channel's few
 * buckets by folded topic. Rows were only given a bucket; here they are placed by a counting sort
 * (stable, so each bucket's ids stay ascending) and each bucket's id list is built in one go, right
 * before its dict: lists grown row by row across thousands of buckets lay the answer out scattered
 * in the heap, and serializing it took twice as long.
 */
function streamBuckets(walk: RowWalk, unreadIds: Int32Array): StreamBucket[] {
  const { channels, buckets, rowBucket } = walk;
  const bucketCount = buckets.size;
  const counts = buckets.rows;
  // Each bucket's spelling, read once: the sort compares them and the answer lists them.
  const topics = walk.state.messages.topics;
  // Allocated at its length (holey, which only serializing would mind): pushes left each outgrown
  // store behind.
  const names = new Array<string>(bucketCount);
  for (let b = 0; b < bucketCount; b++) {
    const name = nameOf(topics, buckets.topic[b]!);
    names[b] = walk.emptyAsDisplay && name === '' ? EMPTY_TOPIC_DISPLAY_NAME : name;
  }
  // The buckets in answer order: each channel's as a run, filled from its end along the `prior`
  // chain (so in the order met), then sorted by topic.
  const ordered = new Int32Array(bucketCount);
  const head = new Float64Array(bucketCount);
  let filled = 0;
  for (const streamId of [...channels.keys()].sort((a, b) => a - b)) {
    const channel = channels.get(streamId)!;
    let at = filled + channel.count;
    for (let b = channel.last; b >= 0; b = buckets.prior[b]!) ordered[--at] = b;
    if (channel.count > 1) sortByTopic(ordered, filled, filled + channel.count, names, head);
    filled += channel.count;
  }
  // end[b]: where bucket b's ids end in `placed`; it steps back as they are placed (from the
  // newest row back), so it ends where they begin.
  const end = new Int32Array(bucketCount);
  let at = 0;
  for (let j = 0; j < filled; j++) {
    const b = ordered[j]!;
    at += counts[b]!;
    end[b] = at;
  }
  const placed = placedIds(at);
  for (let k = rowBucket.length - 1; k >= 0; k--) {
    const b = rowBucket[k]!;
    if (b >= 0) placed[--end[b]!] = unreadIds[k]!;
  }
  const out: StreamBucket[] = [];
  for (let j = 0; j < filled; j++) {
    const b = ordered[j]!;
    const from = end[b]!;
    out.push({
      stream_id: buckets.stream[b]!,
      topic: names[b]!,
      unread_message_ids: placed.slice(from, from + counts[b]!),
    });
  }
  return out;
}

/**
 * Where `streamBuckets` places the rows' ids before slicing each bucket's list out: one packed array
 * of small integers kept from call to call, grown only when a register has more unread rows than
 * any before it (at most `MAX_UNREAD_MESSAGES`, 400 KB). Slicing a packed array gives a list exactly
 * as long as it is and packed (which `JSON.stringify` walks fastest) in one copy; lists built by
 * literals and `push` left each longer one's outgrown stores behind (half of what `unread_msgs`
 * allocated). Each call overwrites the part it slices and nothing reads the rest, so no answer
 * depends on an earlier one; writes to existing indexes keep the array packed.
 */
const placedScratch: number[] = [];

function placedIds(n: number): number[] {
  while (placedScratch.length < n) placedScratch.push(0);
  return placedScratch;
}

/**
 * Sorts `order[from, to)`, one channel's buckets, by lower-cased topic in code-point order (Python's
 * string order, which Zulip sorts by; UTF-16 order, what `<` gives, differs where a character
 * outside the Basic Multilingual Plane meets one from U+E000 up). Every spelling of a bucket
 * lower-cases alike, so its `names` entry stands for its key; keys are distinct per channel. An
 * insertion sort: a channel has a handful of buckets, and `Array.prototype.sort` with a comparator
 * closure per channel cost more than the comparisons. Keys are compared by their `head` numbers
 * first (filled here, moved along with `order`), and unit by unit only when their first three
 * units agree: string comparisons were most of the sort.
 */
function sortByTopic(order: Int32Array, from: number, to: number, names: string[], head: Float64Array): void {
  for (let j = from; j < to; j++) head[j] = foldedHead(names[order[j]!]!);
  for (let i = from + 1; i < to; i++) {
    const b = order[i]!;
    const h = head[i]!;
    let j = i - 1;
    for (; j >= from; j--) {
      const ha = head[j]!;
      if (ha < h || (ha === h && foldedCompare(names[order[j]!]!, names[b]!) <= 0)) break;
      order[j + 1] = order[j]!;
      head[j + 1] = ha;
    }
    order[j + 1] = b;
    head[j + 1] = h;
  }
}

/**
 * Compares two topics as their lower-cased forms compare by code point (negative, zero or
 * positive), without lower-casing them while both are ASCII: ASCII letters fold unit by unit, and
 * lower-casing changes no unit before a non-ASCII one and never removes one, so an ASCII prefix
 * decides as the whole strings would. A non-ASCII unit before the first difference compares the
 * two strings lower-cased whole.
 */
function foldedCompare(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if ((x | y) >= 0x80) return codePointCompare(a.toLowerCase(), b.toLowerCase());
    if (x >= 0x41 && x <= 0x5a) x += 0x20;
    if (y >= 0x41 && y <= 0x5a) y += 0x20;
    if (x !== y) return x - y;
  }
  return a.length - b.length;
}

/**
 * A UTF-16 unit moved so that units compare as the code points they belong to: surrogates
 * (U+D800–U+DFFF, halves of code points past U+FFFF) above U+E000–U+FFFF, which move down.
 */
function unitRank(u: number): number {
  return u < 0xd800 ? u : u < 0xe000 ? u + 0x2000 : u - 0x800;
}

/** Compares two strings by code point (negative, zero or positive). */
function codePointCompare(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return unitRank(x) - unitRank(y);
  }
  return a.length - b.length;
}

/**
 * `headOf` a topic lower-cased, without lower-casing it when its first three units are ASCII (as in
 * `foldedCompare`).
 */
function foldedHead(topic: string): number {
  const n = topic.length;
  let u0 = n > 0 ? topic.charCodeAt(0) : 0;
  let u1 = n > 1 ? topic.charCodeAt(1) : 0;
  let u2 = n > 2 ? topic.charCodeAt(2) : 0;
  if ((u0 | u1 | u2) >= 0x80) return headOf(topic.toLowerCase());
  if (u0 >= 0x41 && u0 <= 0x5a) u0 += 0x20;
  if (u1 >= 0x41 && u1 <= 0x5a) u1 += 0x20;
  if (u2 >= 0x41 && u2 <= 0x5a) u2 += 0x20;
  // An ASCII unit's rank is itself (see `unitRank`); a missing unit is 0, as in `headOf`.
  return ((n > 0 ? u0 + 1 : 0) * 65537 + (n > 1 ? u1 + 1 : 0)) * 65537 + (n > 2 ? u2 + 1 : 0);
}

/**
 * A key's first three units by `unitRank`, each plus one (a missing unit is 0, so a prefix orders
 * first), as base-65537 digits: below 2^53, so exact in a double, and two keys' numbers order as the
 * keys do (by code point) wherever they differ within those units.
 */
function headOf(key: string): number {
  const n = key.length;
  const u0 = n > 0 ? unitRank(key.charCodeAt(0)) + 1 : 0;
  const u1 = n > 1 ? unitRank(key.charCodeAt(1)) + 1 : 0;
  const u2 = n > 2 ? unitRank(key.charCodeAt(2)) + 1 : 0;
  return (u0 * 65537 + u1) * 65537 + u2;
}

/**
 * The user's newest `MAX_UNREAD_MESSAGES` unread rows in id order, and whether older unread rows
 * exist. Walks the row chunks backwards and stops one unread past the limit: a user with a million
 * unread rows costs what one with 50,001 does (collecting every unread row, then dropping all but the
 * newest, was most of a register for such a user).
 */
function newestUnread(rows: UserRows | undefined): { ids: Int32Array; bits: Uint16Array; missing: boolean } {
  const ids = new Int32Array(rows === undefined ? 0 : Math.min(rows.count, MAX_UNREAD_MESSAGES));
  const bits = new Uint16Array(ids.length);
  // Filled from the end: `at` is the first filled slot.
  let at = ids.length;
  let missing = false;
  const chunks = rows?.chunks ?? [];
  outer: for (let c = chunks.length - 1; c >= 0; c--) {
    // A chunk whose every row is read holds nothing here.
    if (everyRowHas(chunks, c, READ)) continue;
    const chunk = chunks[c]!;
    const cIds = chunk.ids;
    const cFlags = chunk.flags;
    for (let i = cIds.length - 1; i >= 0; i--) {
      const f = cFlags[i]!;
      if ((f & READ) !== 0) continue;
      if (at === 0) {
        missing = true;
        break outer;
      }
      at--;
      ids[at] = cIds[i]!;
      bits[at] = f;
    }
  }
  return { ids: ids.subarray(at), bits: bits.subarray(at), missing };
}
