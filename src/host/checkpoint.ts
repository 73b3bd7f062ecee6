/**
 * Checkpoint encodings.
 *
 * - Format 1: the `chat-realm.snapshot/1` JSON text (`snapshotRealm`). Simple and readable, but a
 *   1,000,000-message realm takes ~12 s to write and ~10 s to load (JSON of 250 MB).
 * - Format 2 (written by default): binary. The realm without its messages as snapshot JSON, then
 *   the messages as columns copied from the store's chunks (ids, stream ids, senders, interned topic
 *   and conversation ids with their string tables, timestamps, bits, contents as one UTF-8 block)
 *   and each user's rows as (ids, flags) arrays copied from the row chunks. Loading
 *   copies arrays and rebuilds the store with `buildMessageStoreFromColumns`, skipping per-message
 *   JSON objects and validation (the checksum vouches for the bytes).
 *
 * Layout of format 2 (little-endian): "CRCK", u32 JSON length, JSON header, then the sections in
 * the order the header's `sections` lists them, each a typed array of the stated length.
 */
import { buildMessageStoreFromColumns, EMPTY_STORE } from '../core/messages/store';
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
  /** [interned id, exact topic name]: the ids the `topic` column uses. */
  readonly topics: ReadonlyArray<readonly [number, string]>;
  /** [interned id, conversation key]: the ids the `conversation` column uses. */
  readonly conversations: ReadonlyArray<readonly [number, string]>;
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
  const store = state.messages;
  const n = store.count;
  // The columns, copied chunk by chunk. A chunk's `recipient` is the stream id, or minus the
  // conversation's interned id; `topic` is the exact topic's interned id (ARCHITECTURE.md).
  const ids = new Int32Array(n);
  const recipient = new Int32Array(n);
  const sender = new Int32Array(n);
  const topic = new Int32Array(n);
  const conversation = new Int32Array(n);
  const bits = new Uint8Array(n);
  const timestamp = new Float64Array(n);
  const lengths = new Uint32Array(n);
  const contents: string[] = new Array<string>(n);
  let at = 0;
  for (const c of store.chunks) {
    const size = c.ids.length;
    ids.set(c.ids, at);
    sender.set(c.sender, at);
    timestamp.set(c.timestamp, at);
    bits.set(c.bits, at);
    for (let i = 0; i < size; i++) {
      const r = c.recipient[i]!;
      const k = at + i;
      if (r > 0) {
        recipient[k] = r;
        topic[k] = c.topic[i]!;
        conversation[k] = -1;
      } else {
        topic[k] = -1;
        conversation[k] = -r;
      }
      const text = c.content[i]!;
      contents[k] = text;
      lengths[k] = text.length;
    }
    at += size;
  }
  const content = new TextEncoder().encode(contents.join(''));
  const rowHeader: Array<readonly [number, number]> = [];
  let rowBytes = 0;
  for (const [userId, rows] of store.rows) {
    rowHeader.push([userId, rows.count]);
    rowBytes += rows.count * 6;
  }
  const header: BinaryHeader = {
    snapshot,
    count: n,
    topics: [...store.topics.names],
    conversations: [...store.conversations.names],
    reactions: [...store.reactions],
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
  ];
  const total = 8 + json.length + sections.reduce((sum, b) => sum + b.length, 0) + rowBytes;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, json.length, true);
  out.set(json, 8);
  let offset = 8 + json.length;
  for (const section of sections) {
    out.set(section, offset);
    offset += section.length;
  }
  // Each user's rows straight from the row chunks: all ids, then all flags.
  for (const [, rows] of store.rows) {
    for (const chunk of rows.chunks) {
      out.set(bytesOf(chunk.ids), offset);
      offset += chunk.ids.byteLength;
    }
    for (const chunk of rows.chunks) {
      out.set(bytesOf(chunk.flags), offset);
      offset += chunk.flags.byteLength;
    }
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

function byId(pairs: ReadonlyArray<readonly [number, string]>): string[] {
  const out: string[] = [];
  for (const [id, name] of pairs) out[id] = name;
  return out;
}

function bytesOf(a: Int32Array | Uint16Array | Uint32Array | Float64Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}
