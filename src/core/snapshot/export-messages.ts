import { LIBRARY_CLIENT } from '../messages/client-names';
import { bitsToFlags } from '../messages/flags';
import { decode, type MessageRecord } from '../messages/store-read';
import type { MessageChunk, MessageEdits } from '../messages/store-types';
import type { RealmState } from '../state';
import type { SnapshotMessage } from './format';
import { editFields } from './message-edits';

/**
 * The messages of a realm, one store chunk (up to 4096 messages) at a time, each with its rows:
 * for the chunk's message `k`, users `users[start[k] .. start[k+1])` (ascending) hold a row with
 * flag bits `bits[…]`. Rows are gathered by walking every user's rows once, in step with the
 * chunks, so writing a realm costs time linear in its rows and memory for one chunk's rows — not
 * a map of a million flag objects (which took 75 s and 4 GB for the large preset).
 */
export interface MessageBlock {
  readonly chunk: MessageChunk;
  readonly records: readonly MessageRecord[];
  readonly start: Int32Array;
  readonly users: Int32Array;
  readonly bits: Uint16Array;
}

export function* messageBlocks(state: RealmState): Generator<MessageBlock> {
  const store = state.messages;
  // Every user's rows, with a cursor (chunk index, offset) that only moves forward.
  const holders: Array<{ user: number; chunks: ReadonlyArray<{ ids: Int32Array; flags: Uint16Array }> }> = [];
  for (const [user, rows] of store.rows) holders.push({ user, chunks: rows.chunks });
  const ci = new Int32Array(holders.length);
  const off = new Int32Array(holders.length);
  let scratchIdx = new Int32Array(1 << 16);
  let scratchUser = new Int32Array(1 << 16);
  let scratchBits = new Uint16Array(1 << 16);
  for (const chunk of store.chunks) {
    const n = chunk.ids.length;
    const first = chunk.ids[0]!;
    const last = chunk.ids[n - 1]!;
    const dense = last - first === n - 1;
    let found = 0;
    for (let h = 0; h < holders.length; h++) {
      const rows = holders[h]!.chunks;
      const user = holders[h]!.user;
      let c = ci[h]!;
      let i = off[h]!;
      while (c < rows.length) {
        const ids = rows[c]!.ids;
        const flags = rows[c]!.flags;
        while (i < ids.length && ids[i]! <= last) {
          const id = ids[i]!;
          // Rows of messages that no longer exist are skipped (the store never keeps them).
          const k = dense ? id - first : indexIn(chunk.ids, id);
          if (k >= 0 && k < n && chunk.ids[k] === id) {
            if (found === scratchIdx.length) {
              scratchIdx = grow(scratchIdx);
              scratchUser = grow(scratchUser);
              scratchBits = grow(scratchBits);
            }
            scratchIdx[found] = k;
            scratchUser[found] = user;
            scratchBits[found] = flags[i]!;
            found++;
          }
          i++;
        }
        if (i < ids.length) break;
        c++;
        i = 0;
      }
      ci[h] = c;
      off[h] = i;
    }
    // Counting sort by message, stable, so each message's users stay ascending.
    const start = new Int32Array(n + 1);
    for (let j = 0; j < found; j++) start[scratchIdx[j]! + 1]!++;
    for (let k = 0; k < n; k++) start[k + 1]! += start[k]!;
    const fill = start.slice(0, n);
    const users = new Int32Array(found);
    const bits = new Uint16Array(found);
    for (let j = 0; j < found; j++) {
      const at = fill[scratchIdx[j]!]!++;
      users[at] = scratchUser[j]!;
      bits[at] = scratchBits[j]!;
    }
    const list: MessageRecord[] = new Array<MessageRecord>(n);
    for (let k = 0; k < n; k++) list[k] = decode(store, chunk, k);
    yield { chunk, records: list, start, users, bits };
  }
}

function indexIn(ids: Int32Array, id: number): number {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ids[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function grow<T extends Int32Array | Uint16Array>(a: T): T {
  const b = new (a.constructor as new (n: number) => T)(a.length * 2);
  b.set(a as never);
  return b;
}

/** A direct message's `to`: the participants other than the sender, or the sender for a note to self. */
export function dmRecipients(participants: readonly number[], sender: number): number[] {
  const others = participants.filter((p) => p !== sender);
  return others.length > 0 ? others : [sender];
}

/** A canonical snapshot message but its `flags` (a channel message or a direct message). */
export type MessageFields = SnapshotMessage extends infer M
  ? M extends unknown
    ? Omit<M, 'flags'>
    : never
  : never;

/**
 * A message's snapshot fields but `flags`, in the snapshot's key order; with `edits` (the store's
 * `edits` entry of the message), its edit history fields after `reactions`.
 */
export function messageSnapshotFields(m: MessageRecord, edits?: MessageEdits): MessageFields {
  let fields = baseFields(m);
  // Only a client other than "API" is written: a snapshot of library sends stays as it was.
  if (m.client !== LIBRARY_CLIENT) fields = { ...fields, client: m.client };
  return edits === undefined ? fields : { ...fields, ...editFields(edits) };
}

function baseFields(m: MessageRecord): MessageFields {
  // Two literals rather than a spread target: a million messages, two hidden classes.
  const reactions = m.reactions.length === 0 ? [] : m.reactions.map((r) => ({ ...r }));
  if (m.stream_id !== null)
    return {
      id: m.id,
      sender_id: m.sender_id,
      stream_id: m.stream_id,
      topic: m.topic,
      content: m.content,
      timestamp: m.timestamp,
      has_link: m.has_link,
      has_attachment: m.has_attachment,
      has_image: m.has_image,
      reactions,
    };
  return {
    id: m.id,
    sender_id: m.sender_id,
    to: dmRecipients(m.participants ?? [], m.sender_id),
    content: m.content,
    timestamp: m.timestamp,
    has_link: m.has_link,
    has_attachment: m.has_attachment,
    has_image: m.has_image,
    reactions,
  };
}

/** Flag names by bits, computed once per distinct value. */
export class FlagNames {
  // Indexed by the 16 flag bits (a holey array: only the values met are filled).
  private readonly names: Array<readonly string[] | undefined> = [];
  private readonly json: Array<string | undefined> = [];
  of(bits: number): readonly string[] {
    return this.names[bits] ?? (this.names[bits] = Object.freeze(bitsToFlags(bits)));
  }
  jsonOf(bits: number): string {
    return this.json[bits] ?? (this.json[bits] = JSON.stringify(this.of(bits)));
  }
}

const userKeys: string[] = [];

/** `{"4":["read"],"6":[]}`: a message's rows `from..to` of a block, as the canonical JSON text. */
export function flagsJson(
  names: FlagNames,
  users: Int32Array,
  bits: Uint16Array,
  from: number,
  to: number,
): string {
  let text = '{';
  for (let j = from; j < to; j++) {
    const u = users[j]!;
    text += `${j > from ? ',' : ''}${userKeys[u] ?? (userKeys[u] = `"${u}":`)}${names.jsonOf(bits[j]!)}`;
  }
  return `${text}}`;
}

/** What a message's `flags` are built from: its rows `from..to` of a block. */
interface LazyRows {
  readonly names: FlagNames;
  readonly block: MessageBlock;
  readonly from: number;
  readonly to: number;
  built: Record<string, string[]> | undefined;
}

const LAZY_ROWS = Symbol('flags rows');

/** Replaces `flags` on `target` with a plain data property. */
function settle(target: object, value: unknown): void {
  Object.defineProperty(target, 'flags', { value, enumerable: true, configurable: true, writable: true });
}

/**
 * One getter and setter for every message (per-message closures would give each message object
 * its own hidden class, and cost two functions each): the rows are found through a non-enumerable
 * symbol property, which JSON, spreading, structuredClone and deep equality all ignore.
 */
const FLAGS_ACCESSOR: PropertyDescriptor = {
  enumerable: true,
  configurable: true,
  get(this: { [LAZY_ROWS]: LazyRows | undefined }): Record<string, string[]> {
    const lazy = this[LAZY_ROWS]!;
    const { users, bits } = lazy.block;
    lazy.built ??= JSON.parse(flagsJson(lazy.names, users, bits, lazy.from, lazy.to)) as Record<
      string,
      string[]
    >;
    if (!Object.isExtensible(this)) return lazy.built;
    settle(this, lazy.built);
    // Cleared, not deleted (deleting would turn the object into a slow dictionary).
    this[LAZY_ROWS] = undefined;
    return lazy.built;
  },
  set(this: object, value: unknown) {
    settle(this, value);
  },
};
const HIDDEN: PropertyDescriptor = {
  value: undefined,
  enumerable: false,
  configurable: true,
  writable: true,
};

/**
 * Gives a message snapshot an enumerable `flags` accessor that builds the message's flags object
 * (its rows `from..to` of `block`) on first read and then replaces itself with it; assigning
 * `flags` replaces it too. 27 million rows as eager objects cost tens of seconds and gigabytes in
 * V8 (integer-keyed dictionaries), most of which a caller that streams or samples never reads.
 */
export function withLazyFlags<T extends object>(
  message: T,
  names: FlagNames,
  block: MessageBlock,
  from: number,
  to: number,
): T & { flags: SnapshotMessage['flags'] } {
  HIDDEN.value = { names, block, from, to, built: undefined } satisfies LazyRows;
  Object.defineProperty(message, LAZY_ROWS, HIDDEN);
  Object.defineProperty(message, 'flags', FLAGS_ACCESSOR);
  HIDDEN.value = undefined;
  // `flags` was just defined (defineProperty is not seen by the type checker).
  return message as T & { flags: SnapshotMessage['flags'] };
}
