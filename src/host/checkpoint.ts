/**
 * Checkpoint encodings.
 *
 * - Format 1: the `chat-realm.snapshot/1` JSON text (`snapshotRealm`). Simple and readable, but a
 *   1,000,000-message realm takes ~12 s to write and ~10 s to load (JSON of 250 MB). Still read.
 * - Format 2 (0.1.0): binary, header first. Still read.
 * - Format 3 (written now): binary, produced piece by piece, exact for every string, and carrying
 *   the realm version and the change log's chain value (`checkpoint-binary.ts`).
 *
 * A checkpoint is written without holding the handle's queue: `checkpointStream` encodes the
 * (immutable) realm of one version a slice at a time, yielding to the event loop between slices,
 * while later operations run; the store writes the pieces as they come.
 */
import { parseStoredRealm } from '../core/snapshot/create';
import type { RealmSnapshot } from '../core/snapshot/format';
import type { RealmState } from '../core/state';
import { decodeCheckpoint2, decodeCheckpoint3, encodeCheckpoint, isFormat3 } from './checkpoint-binary';
import { checksum } from './checksum';
import { CorruptStoreError, UnsupportedFormatError } from './errors';
import type { CheckpointStream, SealedCheckpoint } from './store';

export const CHECKPOINT_FORMAT = 3;

/**
 * Pieces handed to the store are this size (the last one may be smaller): small enough that
 * writing one holds a store's write lock (SQLite) for well under a millisecond.
 */
const PART_BYTES = 1 << 18;
/** Work done between two yields to the event loop, in milliseconds. */
const SLICE_MS = 2;

/** Seals a snapshot (`snapshotRealm` output) as a format-1 JSON checkpoint. */
export function sealCheckpoint(version: number, snapshot: RealmSnapshot): SealedCheckpoint {
  const payload = JSON.stringify(snapshot);
  return { version, format: 1, payload, checksum: checksum(payload) };
}

/** Seals a realm as a format-3 binary checkpoint, in one go. `chain`: the log's chain value at `version`. */
export function sealRealmCheckpoint(version: number, state: RealmState, chain = 0): SealedCheckpoint {
  const pieces: Uint8Array[] = [];
  let total = 0;
  for (const piece of encodeCheckpoint(state, version, chain)) {
    pieces.push(piece.slice());
    total += piece.length;
  }
  const payload = concat(pieces, total);
  return { version, format: CHECKPOINT_FORMAT, payload, checksum: checksum(payload) };
}

/**
 * A format-3 checkpoint encoded while the caller goes on: the next piece is encoded only when the
 * store asks for it, and encoding yields to the event loop every ~2 ms of work, so operations
 * queued meanwhile run between slices. The realm is immutable, so later changes cannot disturb it.
 * The checksum is computed piece by piece as the bytes are copied (inside the slices, never over a
 * whole part at once), and parts a store hands back (`recycle`) are filled again.
 */
export function checkpointStream(version: number, state: RealmState, chain = 0): CheckpointStream {
  let crc = 0;
  let done = false;
  const spare: Uint8Array[] = [];
  const fresh = () => spare.pop() ?? new Uint8Array(PART_BYTES);
  async function* parts(): AsyncGenerator<Uint8Array> {
    const pieces = encodeCheckpoint(state, version, chain);
    let buffer = fresh();
    let filled = 0;
    let slice = performance.now();
    for (const piece of pieces) {
      let from = 0;
      while (from < piece.length) {
        const n = Math.min(piece.length - from, PART_BYTES - filled);
        const segment = piece.subarray(from, from + n);
        buffer.set(segment, filled);
        crc = checksum(segment, crc);
        filled += n;
        from += n;
        if (filled === PART_BYTES) {
          yield buffer;
          // The time the store took with the part was not ours: the slice starts again.
          slice = performance.now();
          buffer = fresh();
          filled = 0;
        }
        if (performance.now() - slice > SLICE_MS) {
          await yieldToEventLoop();
          slice = performance.now();
        }
      }
    }
    if (filled > 0) yield buffer.subarray(0, filled);
    done = true;
  }
  return {
    version,
    format: CHECKPOINT_FORMAT,
    parts: parts(),
    checksum() {
      if (!done) throw new Error('the checkpoint stream was not read to its end');
      return crc;
    },
    recycle(part) {
      // Only whole part buffers, and a couple of them: the store copies or writes one at a time.
      if (part.byteOffset === 0 && part.buffer.byteLength === PART_BYTES && spare.length < 2)
        spare.push(new Uint8Array(part.buffer));
    },
  };
}

/**
 * Reads a whole stream into a sealed checkpoint (for stores that keep a checkpoint in one piece).
 * The parts are kept as they come, not copied (never recycled, the stream does not reuse them),
 * and joined once: one copy of the realm's bytes instead of two (the memory store does this every
 * 10,000 changes, for a realm that only grows).
 */
export async function collectCheckpoint(stream: CheckpointStream): Promise<SealedCheckpoint> {
  const pieces: Uint8Array[] = [];
  let total = 0;
  for await (const part of stream.parts) {
    pieces.push(part);
    total += part.length;
  }
  const only = pieces.length === 1 ? pieces[0]! : undefined;
  // A lone part may be a small view of a large buffer: keep only its bytes.
  const payload =
    only === undefined
      ? concat(pieces, total)
      : only.byteLength === only.buffer.byteLength
        ? only
        : only.slice();
  return { version: stream.version, format: stream.format, payload, checksum: stream.checksum() };
}

/** Verifies and decodes a checkpoint of any known format into a realm. */
export function openCheckpoint(sealed: SealedCheckpoint, where: string): RealmState {
  return readCheckpoint(sealed, where).state;
}

/**
 * Verifies and decodes a checkpoint, with the change log's chain value at its version (format 3),
 * or `undefined` for the older formats, which did not record it.
 */
export function readCheckpoint(
  sealed: SealedCheckpoint,
  where: string,
): { readonly state: RealmState; readonly chain: number | undefined } {
  if (sealed.format > CHECKPOINT_FORMAT)
    throw new UnsupportedFormatError(where, sealed.format, CHECKPOINT_FORMAT);
  if (sealed.format < 1 || sealed.format > 3)
    throw new CorruptStoreError(where, `unknown checkpoint format ${sealed.format}`);
  if (checksum(sealed.payload) !== sealed.checksum) {
    throw new CorruptStoreError(where, 'checksum mismatch (the checkpoint is damaged or truncated)');
  }
  if (sealed.format === 1) {
    const text =
      typeof sealed.payload === 'string'
        ? sealed.payload
        : new TextDecoder('utf-8', { ignoreBOM: true }).decode(sealed.payload);
    let snapshot: unknown;
    try {
      snapshot = JSON.parse(text);
    } catch (cause) {
      throw new CorruptStoreError(where, 'the checkpoint is not valid JSON', { cause });
    }
    const parsed = parseStoredRealm(snapshot);
    if (!parsed.ok)
      throw new CorruptStoreError(where, `the snapshot is invalid (${parsed.error.message})`, {
        cause: parsed.error,
      });
    return { state: parsed.state, chain: undefined };
  }
  const payload = sealed.payload;
  if (typeof payload === 'string') throw new CorruptStoreError(where, 'a binary checkpoint stored as text');
  if (sealed.format === 2) return { state: build(() => decodeCheckpoint2(payload), where), chain: undefined };
  if (!isFormat3(payload)) throw new CorruptStoreError(where, 'the checkpoint is not in format 3');
  const decoded = build(() => decodeCheckpoint3(payload), where);
  if (decoded.version !== sealed.version) {
    throw new CorruptStoreError(
      where,
      `the checkpoint says version ${decoded.version}, the store ${sealed.version}`,
    );
  }
  return { state: decoded.state, chain: decoded.chain };
}

function build<T>(make: () => T, where: string): T {
  try {
    return make();
  } catch (cause) {
    if (cause instanceof CorruptStoreError) throw cause;
    throw new CorruptStoreError(where, `the snapshot is invalid (${(cause as Error).message})`, { cause });
  }
}

function concat(pieces: readonly Uint8Array[], total: number): Uint8Array {
  if (pieces.length === 1) return pieces[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of pieces) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Lets timers and I/O run (a macrotask turn; `setImmediate` where there is one). */
function yieldToEventLoop(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (f: () => void) => unknown }).setImmediate;
  return new Promise((resolve) => (immediate ? immediate(resolve) : setTimeout(resolve, 0)));
}
