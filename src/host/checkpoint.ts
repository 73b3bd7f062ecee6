/**
 * Checkpoint encodings.
 *
 * - Format 1: the `chat-realm.snapshot/1` JSON text (`snapshotRealm`). Simple and readable, but a
 *   1,000,000-message realm takes ~12 s to write and ~10 s to load (JSON of 250 MB).
 * - Format 2 (written by default): binary. The realm without its messages as snapshot JSON, then
 *   the messages as columns (ids, recipients, senders, timestamps, bits, topic and conversation
 *   tables, contents as one UTF-8 block) and each user's rows as (ids, flags) arrays. Loading
 *   copies arrays and rebuilds the store with `buildMessageStoreFromColumns`, skipping per-message
 *   JSON objects and validation (the checksum vouches for the bytes).
 *
 * Layout of format 2 (little-endian): "CRCK", u32 JSON length, JSON header, then the sections in
 * the order the header's `sections` lists them, each a typed array of the stated length.
 */
import { allMessages, buildMessageStoreFromColumns, EMPTY_STORE } from '../core/messages/store';
import { MESSAGE_BITS } from '../core/messages/flags';
import { conversationKey } from '../core/messages/interner';
import { forEachRow } from '../core/messages/rows';
import type { Reaction } from '../core/model/records';
import { createRealm } from '../core/snapshot/create';
import { snapshotRealm } from '../core/snapshot/export';
import type { RealmState } from '../core/state';
import { checksum } from './checksum';
import { CorruptStoreError, UnsupportedFormatError } from './errors';
import type { SealedCheckpoint } from './store';

export const CHECKPOINT_FORMAT = 2;
const MAGIC = 0x4b435243; // "CRCK" read as a little-endian u32

interface BinaryHeader {
  readonly snapshot: Record<string, unknown>;
  readonly count: number;
  readonly topics: readonly string[];
  readonly conversations: readonly string[];
  readonly reactions: ReadonlyArray<readonly [number, readonly Reaction[]]>;
  /** [user id, row count] in the order of the row sections. */
  readonly rows: ReadonlyArray<readonly [number, number]>;
  readonly contentBytes: number;
}

/** Seals a snapshot (`snapshotRealm` output) as a format-1 JSON checkpoint. */
export function sealCheckpoint(version: number, snapshot: unknown): SealedCheckpoint {
  const payload = JSON.stringify(snapshot);
  return { version, format: 1, payload, checksum: checksum(payload) };
}

/** Seals a realm as a format-2 binary checkpoint. */
export function sealRealmCheckpoint(version: number, state: RealmState): SealedCheckpoint {
  const payload = encodeBinary(state);
  return { version, format: 2, payload, checksum: checksum(payload) };
}

/** Verifies and decodes a checkpoint of any known format into a realm. */
export function openCheckpoint(sealed: SealedCheckpoint, where: string): RealmState {
  if (sealed.format > CHECKPOINT_FORMAT)
    throw new UnsupportedFormatError(where, sealed.format, CHECKPOINT_FORMAT);
  if (sealed.format !== 1 && sealed.format !== 2)
    throw new CorruptStoreError(where, `unknown checkpoint format ${sealed.format}`);
  if (checksum(sealed.payload) !== sealed.checksum) {
    throw new CorruptStoreError(where, 'checksum mismatch (the checkpoint is damaged or truncated)');
  }
  if (sealed.format === 1) {
    const text =
      typeof sealed.payload === 'string' ? sealed.payload : new TextDecoder().decode(sealed.payload);
    let snapshot: unknown;
    try {
      snapshot = JSON.parse(text);
    } catch (cause) {
      throw new CorruptStoreError(where, 'the checkpoint is not valid JSON', { cause });
    }
    return build(() => createRealm(snapshot), where);
  }
  if (typeof sealed.payload === 'string')
    throw new CorruptStoreError(where, 'a binary checkpoint stored as text');
  const payload = sealed.payload;
  return build(() => decodeBinary(payload), where);
}

function build(make: () => RealmState, where: string): RealmState {
  try {
    return make();
  } catch (cause) {
    if (cause instanceof CorruptStoreError) throw cause;
    throw new CorruptStoreError(where, `the snapshot is invalid (${(cause as Error).message})`, { cause });
  }
}

// --- format 2 ------------------------------------------------------------------------------------

function encodeBinary(state: RealmState): Uint8Array {
  const { messages: _messages, ...snapshot } = snapshotRealm({ ...state, messages: EMPTY_STORE });
  const n = state.messages.count;
  const ids = new Int32Array(n);
  const recipient = new Int32Array(n);
  const sender = new Int32Array(n);
  const topic = new Int32Array(n);
  const conversation = new Int32Array(n);
  const bits = new Uint8Array(n);
  const timestamp = new Float64Array(n);
  const lengths = new Uint32Array(n);
  const contents: string[] = new Array<string>(n);
  const topicIndex = new Map<string, number>();
  const convIndex = new Map<string, number>();
  const reactions: Array<readonly [number, readonly Reaction[]]> = [];
  let i = 0;
  for (const m of allMessages(state.messages)) {
    ids[i] = m.id;
    sender[i] = m.sender_id;
    timestamp[i] = m.timestamp;
    bits[i] =
      (m.has_link ? MESSAGE_BITS.has_link : 0) |
      (m.has_attachment ? MESSAGE_BITS.has_attachment : 0) |
      (m.has_image ? MESSAGE_BITS.has_image : 0);
    contents[i] = m.content;
    lengths[i] = m.content.length;
    if (m.stream_id !== null) {
      recipient[i] = m.stream_id;
      topic[i] = indexOf(topicIndex, m.topic);
      conversation[i] = -1;
    } else {
      topic[i] = -1;
      conversation[i] = indexOf(convIndex, conversationKey(m.participants ?? []));
    }
    if (m.reactions.length > 0) reactions.push([m.id, m.reactions]);
    i++;
  }
  const content = new TextEncoder().encode(contents.join(''));
  const rowHeader: Array<readonly [number, number]> = [];
  const rowSections: Uint8Array[] = [];
  for (const [userId, rows] of state.messages.rows) {
    const rowIds = new Int32Array(rows.count);
    const flags = new Uint16Array(rows.count);
    let k = 0;
    forEachRow(rows, (id, f) => {
      rowIds[k] = id;
      flags[k++] = f;
    });
    rowHeader.push([userId, rows.count]);
    rowSections.push(bytesOf(rowIds), bytesOf(flags));
  }
  const header: BinaryHeader = {
    snapshot,
    count: n,
    topics: [...topicIndex.keys()],
    conversations: [...convIndex.keys()],
    reactions,
    rows: rowHeader,
    contentBytes: content.length,
  };
  const json = new TextEncoder().encode(JSON.stringify(header));
  const sections = [
    bytesOf(ids),
    bytesOf(recipient),
    bytesOf(sender),
    bytesOf(topic),
    bytesOf(conversation),
    bytesOf(timestamp),
    bits,
    bytesOf(lengths),
    content,
    ...rowSections,
  ];
  const total = 8 + json.length + sections.reduce((s, b) => s + b.length, 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, json.length, true);
  out.set(json, 8);
  let at = 8 + json.length;
  for (const s of sections) {
    out.set(s, at);
    at += s.length;
  }
  return out;
}

function decodeBinary(payload: Uint8Array): RealmState {
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  if (payload.length < 8 || view.getUint32(0, true) !== MAGIC) throw new Error('not a binary checkpoint');
  const jsonLength = view.getUint32(4, true);
  let at = 8;
  const take = (bytes: number): Uint8Array => {
    if (at + bytes > payload.length) throw new Error('the checkpoint ends early');
    const out = payload.slice(at, at + bytes); // a copy: aligned, and independent of the driver's buffer
    at += bytes;
    return out;
  };
  const header = JSON.parse(new TextDecoder().decode(take(jsonLength))) as BinaryHeader;
  const n = header.count;
  const ids = new Int32Array(take(4 * n).buffer);
  const recipient = new Int32Array(take(4 * n).buffer);
  const sender = new Int32Array(take(4 * n).buffer);
  const topic = new Int32Array(take(4 * n).buffer);
  const conversation = new Int32Array(take(4 * n).buffer);
  const timestamp = new Float64Array(take(8 * n).buffer);
  const bits = take(n);
  const lengths = new Uint32Array(take(4 * n).buffer);
  const text = new TextDecoder().decode(take(header.contentBytes));
  const content = new Array<string>(n);
  const topics = new Array<string | undefined>(n);
  const conversations = new Array<string | undefined>(n);
  let offset = 0;
  for (let i = 0; i < n; i++) {
    content[i] = text.slice(offset, (offset += lengths[i]!));
    topics[i] = topic[i]! >= 0 ? header.topics[topic[i]!] : undefined;
    conversations[i] = conversation[i]! >= 0 ? header.conversations[conversation[i]!] : undefined;
  }
  const rows = new Map<number, { ids: Int32Array; flags: Uint16Array }>();
  for (const [userId, count] of header.rows) {
    rows.set(userId, {
      ids: new Int32Array(take(4 * count).buffer),
      flags: new Uint16Array(take(2 * count).buffer),
    });
  }
  if (at !== payload.length) throw new Error('the checkpoint has trailing bytes');
  const base = createRealm({ ...header.snapshot, messages: [] });
  const messages = buildMessageStoreFromColumns(
    { ids, recipient, sender, timestamp, bits, content, topics, conversations },
    rows,
    header.reactions,
  );
  return Object.freeze({ ...base, messages });
}

function indexOf(map: Map<string, number>, key: string): number {
  let i = map.get(key);
  if (i === undefined) map.set(key, (i = map.size));
  return i;
}

function bytesOf(a: Int32Array | Uint16Array | Uint32Array | Float64Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}
