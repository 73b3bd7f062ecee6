/**
 * The binary checkpoint encodings (formats 2 and 3): the realm without its messages as snapshot
 * JSON, then the messages as columns copied from the store's chunks and each user's rows as
 * (ids, flags) arrays copied from the row chunks. Loading copies arrays and rebuilds the store
 * with `buildMessageStoreFromColumns`, without per-message JSON objects or validation (the checksum
 * vouches for the bytes).
 *
 * Format 3 (written now) is produced piece by piece (`encodeCheckpoint` is a generator), so a large
 * realm is encoded in small steps while later changes run, and it is exact for every string:
 * - the JSON header comes last (a trailer), once the content block's size is known, and carries
 *   the realm's `version` and the change log's `chain` value at that version;
 * - contents that UTF-8 cannot carry (lone UTF-16 surrogates) are kept in the trailer's `exact`
 *   list (JSON escapes them) instead of the UTF-8 block;
 * - the UTF-8 block is decoded with the byte-order mark kept (a content starting with U+FEFF).
 *
 * Layout of format 3 (little-endian): u32 MAGIC3, the sections (ids, stream ids, senders, topic
 * ids, conversation ids, timestamps, bits, content lengths in UTF-16 units, the UTF-8 content
 * block, then per user all row ids followed by all row flags), the JSON trailer, u32 trailer
 * length, u32 MAGIC3. Format 2 (0.1.0): u32 MAGIC2, u32 header length, the header, the sections.
 */
import { buildMessageStoreFromColumns, EMPTY_STORE } from '../core/messages/store';
import type { MessageChunk, MessageEdits } from '../core/messages/store-types';
import type { Reaction } from '../core/model/records';
import { createStoredRealm } from '../core/snapshot/create';
import { snapshotRealm, type RealmSnapshot } from '../core/snapshot/export';
import type { RealmState } from '../core/state';

const MAGIC2 = 0x4b435243; // "CRCK" read as a little-endian u32
const MAGIC3 = 0x334b5243; // "CRK3"

interface BinaryHeader {
  /** The realm without its messages (checked as a snapshot when read back). */
  readonly snapshot: Omit<RealmSnapshot, 'messages'>;
  readonly count: number;
  /** [interned id, exact topic name]: the ids the `topic` column uses. */
  readonly topics: ReadonlyArray<readonly [number, string]>;
  /** [interned id, conversation key]: the ids the `conversation` column uses. */
  readonly conversations: ReadonlyArray<readonly [number, string]>;
  readonly reactions: ReadonlyArray<readonly [number, readonly Reaction[]]>;
  /** [user id, row count] in the order of the row sections. */
  readonly rows: ReadonlyArray<readonly [number, number]>;
  readonly contentBytes: number;
  /** Format 3: the realm version and the change log's chain value at it. */
  readonly version?: number;
  readonly chain?: number;
  /** Format 3: [message index, content] for contents UTF-8 cannot carry (lone surrogates). */
  readonly exact?: ReadonlyArray<readonly [number, string]>;
  /**
   * Format 3: the largest message id the realm ever had (`MessageStore.lastId`), so an id deleted
   * before the checkpoint is not given again on replay. Absent in older checkpoints: the largest
   * stored id then.
   */
  readonly lastId?: number;
  /**
   * Format 3: [message id, its edits] (`MessageStore.edits`: edit history, last edit and move
   * times). Absent in older checkpoints (written before edits were carried): none.
   */
  readonly edits?: ReadonlyArray<readonly [number, MessageEdits]>;
  /**
   * Format 3: [message id, client name] for sending clients outside `KNOWN_CLIENTS` (the others
   * are in the bits column). Absent in older checkpoints: none.
   */
  readonly clients?: ReadonlyArray<readonly [number, string]>;
}

/** A lone (unpaired) UTF-16 surrogate: UTF-8 would turn it into U+FFFD. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Whether `text` has a lone surrogate. `String.prototype.isWellFormed` (ES2024) where the runtime
 * has it: about ten times faster than the expression, which took most of a large checkpoint's
 * encoding time.
 */
const hasLoneSurrogate: (text: string) => boolean =
  typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function'
    ? (text) => !(text as string & { isWellFormed(): boolean }).isWellFormed()
    : (text) => LONE_SURROGATE.test(text);

/** Messages whose contents one step of `encodeCheckpoint` encodes. */
const CONTENT_STEP = 256;

/** Decodes UTF-8 exactly: a leading U+FEFF is content, and damaged bytes are an error. */
const utf8 = () => new TextDecoder('utf-8', { ignoreBOM: true, fatal: true });

/**
 * Format 3, piece by piece. Each piece is a view that is only valid until the next one is asked
 * for (the consumer copies it), so derived columns are written into one scratch array reused for
 * every chunk: a large realm's checkpoint allocates no buffer per chunk (allocations that make the
 * garbage collector pause the thread). Each step does a bounded amount of work (one message chunk,
 * or one row chunk), except the trailer's JSON, whose size is that of the realm without its messages.
 */
export function* encodeCheckpoint(state: RealmState, version: number, chain: number): Generator<Uint8Array> {
  const store = state.messages;
  const chunks = store.chunks;
  const head = new Uint32Array([MAGIC3]);
  yield bytesOf(head);
  let scratch = new Int32Array(0);
  const mapRecipient = (c: MessageChunk, f: (recipient: number, i: number) => number): Int32Array => {
    if (scratch.length < c.ids.length) scratch = new Int32Array(c.ids.length);
    const out = scratch.subarray(0, c.ids.length);
    for (let i = 0; i < out.length; i++) out[i] = f(c.recipient[i]!, i);
    return out;
  };
  // The columns, chunk by chunk. A chunk's `recipient` is the stream id, or minus the
  // conversation's interned id; `topic` is the exact topic's interned id (ARCHITECTURE.md).
  for (const c of chunks) yield bytesOf(c.ids);
  for (const c of chunks) yield bytesOf(mapRecipient(c, (r) => (r > 0 ? r : 0)));
  for (const c of chunks) yield bytesOf(c.sender);
  for (const c of chunks) yield bytesOf(mapRecipient(c, (r, i) => (r > 0 ? c.topic[i]! : -1)));
  for (const c of chunks) yield bytesOf(mapRecipient(c, (r) => (r > 0 ? -1 : -r)));
  for (const c of chunks) yield bytesOf(c.timestamp);
  for (const c of chunks) yield c.bits;
  const exact: Array<readonly [number, string]> = [];
  let at = 0;
  for (const c of chunks) {
    if (scratch.length < c.ids.length) scratch = new Int32Array(c.ids.length);
    const lengths = new Uint32Array(scratch.buffer, 0, c.ids.length);
    for (let i = 0; i < lengths.length; i++) {
      const text = c.content[i]!;
      if (hasLoneSurrogate(text)) {
        exact.push([at + i, text]);
        lengths[i] = 0;
      } else lengths[i] = text.length;
    }
    at += lengths.length;
    yield bytesOf(lengths);
  }
  let contentBytes = 0;
  let content = new Uint8Array(0);
  const encoder = new TextEncoder();
  let skip = 0;
  at = 0;
  for (const c of chunks) {
    let texts = c.content as readonly string[];
    if (skip < exact.length && exact[skip]![0] < at + c.ids.length) {
      texts = texts.map((t, i) => (skip < exact.length && exact[skip]![0] === at + i ? (skip++, '') : t));
    }
    at += c.ids.length;
    // A few hundred messages per step (a whole chunk's text can take milliseconds to encode, and
    // a step is the longest the stream holds the thread), into a reused buffer (UTF-8 needs at
    // most 3 bytes per UTF-16 unit).
    for (let from = 0; from < c.ids.length; from += CONTENT_STEP) {
      const text = texts.slice(from, Math.min(c.ids.length, from + CONTENT_STEP)).join('');
      if (content.length < 3 * text.length) content = new Uint8Array(3 * text.length);
      const { written } = encoder.encodeInto(text, content);
      contentBytes += written;
      yield content.subarray(0, written);
    }
  }
  const rowHeader: Array<readonly [number, number]> = [];
  for (const [userId, rows] of store.rows) {
    rowHeader.push([userId, rows.count]);
    for (const chunk of rows.chunks) yield bytesOf(chunk.ids);
    for (const chunk of rows.chunks) yield bytesOf(chunk.flags);
  }
  const { messages: _messages, ...snapshot } = snapshotRealm({ ...state, messages: EMPTY_STORE });
  const header: BinaryHeader = {
    snapshot,
    count: store.count,
    topics: [...store.topics.names],
    conversations: [...store.conversations.names],
    reactions: [...store.reactions],
    rows: rowHeader,
    contentBytes,
    version,
    chain,
    exact,
    lastId: store.lastId,
    edits: [...store.edits],
    clients: [...store.clients],
  };
  const json = encoder.encode(JSON.stringify(header));
  yield json;
  yield bytesOf(new Uint32Array([json.length, MAGIC3]));
}

/** Whether `payload` starts like a format-3 checkpoint. */
export function isFormat3(payload: Uint8Array): boolean {
  return payload.length >= 12 && readU32(payload, 0) === MAGIC3;
}

/** The realm, version and chain value of a format-3 checkpoint. */
export function decodeCheckpoint3(payload: Uint8Array): {
  state: RealmState;
  version: number;
  chain: number;
} {
  if (!isFormat3(payload) || readU32(payload, payload.length - 4) !== MAGIC3)
    throw new Error('not a format-3 checkpoint');
  const jsonLength = readU32(payload, payload.length - 8);
  const jsonStart = payload.length - 8 - jsonLength;
  if (jsonStart < 4) throw new Error('the checkpoint ends early');
  const header = JSON.parse(
    utf8().decode(payload.subarray(jsonStart, jsonStart + jsonLength)),
  ) as BinaryHeader;
  if (typeof header.version !== 'number' || typeof header.chain !== 'number')
    throw new Error('the checkpoint header has no version or chain');
  const state = decodeSections(payload, 4, jsonStart, header);
  return { state, version: header.version, chain: header.chain };
}

/** A format-2 checkpoint (written by 0.1.0). */
export function decodeCheckpoint2(payload: Uint8Array): RealmState {
  if (payload.length < 8 || readU32(payload, 0) !== MAGIC2) throw new Error('not a binary checkpoint');
  const jsonLength = readU32(payload, 4);
  if (8 + jsonLength > payload.length) throw new Error('the checkpoint ends early');
  const header = JSON.parse(utf8().decode(payload.subarray(8, 8 + jsonLength))) as BinaryHeader;
  return decodeSections(payload, 8 + jsonLength, payload.length, header);
}

function decodeSections(payload: Uint8Array, from: number, end: number, header: BinaryHeader): RealmState {
  let at = from;
  const take = (bytes: number): Uint8Array => {
    if (at + bytes > end) throw new Error('the checkpoint ends early');
    const out = payload.slice(at, at + bytes); // a copy: aligned, and independent of the driver's buffer
    at += bytes;
    return out;
  };
  const n = header.count;
  const ids = new Int32Array(take(4 * n).buffer);
  const recipient = new Int32Array(take(4 * n).buffer);
  const sender = new Int32Array(take(4 * n).buffer);
  const topic = new Int32Array(take(4 * n).buffer);
  const conversation = new Int32Array(take(4 * n).buffer);
  const timestamp = new Float64Array(take(8 * n).buffer);
  const bits = take(n);
  const lengths = new Uint32Array(take(4 * n).buffer);
  const text = utf8().decode(take(header.contentBytes));
  const content = new Array<string>(n);
  const topics = new Array<string | undefined>(n);
  const conversations = new Array<string | undefined>(n);
  const topicNames = byId(header.topics);
  const conversationKeys = byId(header.conversations);
  let offset = 0;
  for (let i = 0; i < n; i++) {
    content[i] = text.slice(offset, (offset += lengths[i]!));
    const t = topic[i]!;
    const c = conversation[i]!;
    topics[i] = t >= 0 ? topicNames[t] : undefined;
    conversations[i] = c >= 0 ? conversationKeys[c] : undefined;
    if ((t >= 0 ? topics[i] : conversations[i]) === undefined)
      throw new Error(`message ${ids[i]} names no topic or conversation`);
  }
  if (offset !== text.length) throw new Error('the content lengths do not add up');
  for (const [index, exactText] of header.exact ?? []) {
    if (!(index >= 0 && index < n) || content[index] !== '') throw new Error('a bad exact content entry');
    content[index] = exactText;
  }
  const rows = new Map<number, { ids: Int32Array; flags: Uint16Array }>();
  for (const [userId, count] of header.rows) {
    rows.set(userId, {
      ids: new Int32Array(take(4 * count).buffer),
      flags: new Uint16Array(take(2 * count).buffer),
    });
  }
  if (at !== end) throw new Error('the checkpoint has trailing bytes');
  const base = createStoredRealm({ ...header.snapshot, messages: [] });
  const messages = buildMessageStoreFromColumns(
    { ids, recipient, sender, timestamp, bits, content, topics, conversations },
    rows,
    header.reactions,
    header.lastId,
    header.edits,
    header.clients,
  );
  return Object.freeze({ ...base, messages });
}

function readU32(bytes: Uint8Array, at: number): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(at, true);
}

function byId(pairs: ReadonlyArray<readonly [number, string]>): string[] {
  const out: string[] = [];
  for (const [id, name] of pairs) out[id] = name;
  return out;
}

function bytesOf(a: Int32Array | Uint16Array | Uint32Array | Float64Array | Uint8Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}
