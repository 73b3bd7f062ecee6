/**
 * What a realm handle needs from storage: the latest checkpoint and the changes after it, an
 * append that only succeeds at the expected version, and checkpoint writes. Records arrive sealed
 * (encoded text + checksum, see `change.ts`); a store keeps them byte for byte and never interprets
 * them, so adapters stay small and the format lives in one place (docs/persistence.md).
 */

/** One acknowledged change, encoded. `version` is the realm's version after the change (1, 2, ...). */
export interface SealedChange {
  readonly version: number;
  /** The change as JSON text (`change.ts`). */
  readonly payload: string;
  /**
   * CRC-32 of `payload`, continuing the previous change's checksum (change format 3; the change
   * after a checkpoint continues the checkpoint's `chain`, 0 after checkpoint 0). So each checksum
   * vouches for the whole log up to its change, and a replaced or reordered change breaks the chain.
   * Changes of formats 1 and 2 (0.1.0) carry the plain CRC-32 of their payload.
   */
  readonly checksum: number;
}

/** The whole realm at `version`, encoded. */
export interface SealedCheckpoint {
  readonly version: number;
  /** Checkpoint format (1: `chat-realm.snapshot/1` JSON text). */
  readonly format: number;
  readonly payload: string | Uint8Array;
  /** CRC-32 of `payload`. */
  readonly checksum: number;
}

/**
 * A checkpoint handed over piece by piece, so that neither encoding nor writing a large realm holds
 * the handle's queue: `parts` yields the payload's bytes in order (the handle encodes the next piece
 * only when the store asks for it), `checksum()` is the CRC-32 of all of them once `parts` is done.
 * A store writes the pieces and then, atomically, the checkpoint row; until then it is invisible.
 */
export interface CheckpointStream {
  readonly version: number;
  readonly format: number;
  readonly parts: AsyncIterable<Uint8Array>;
  checksum(): number;
  /**
   * Optional: a store that is done with a part (written, or copied) may hand it back, and the
   * stream reuses its memory for a later part, so a large checkpoint does not allocate a new buffer
   * per part (which makes the garbage collector pause the thread). A store that never calls it
   * only costs those allocations; one that calls it must not touch the part afterwards. A part
   * that is not handed back is never written again by the stream: the store may keep it as it is.
   */
  recycle?(part: Uint8Array): void;
}

/** The latest change a store holds, recorded with every append (in the same transaction). */
export interface StoredHead {
  readonly version: number;
  /** The checksum of that change: the chain value at the head. */
  readonly checksum: number;
}

export interface StoredRealm {
  /** The latest checkpoint, or null for an empty store. */
  readonly checkpoint: SealedCheckpoint | null;
  /** Every change after the checkpoint, in version order. */
  readonly changes: readonly SealedChange[];
  /**
   * The store's own record of its latest change, or null when no change was ever appended. The
   * handle refuses a load that does not end there (changes lost at the end of the log).
   */
  readonly head: StoredHead | null;
}

export interface RealmStore {
  /** Human-readable location for error messages, e.g. `sqlite /data/realm.db, realm "main"`. */
  readonly describe: string;
  /** The latest checkpoint and the changes after it. Damaged storage rejects with `CorruptStoreError`. */
  load(): Promise<StoredRealm>;
  /** Changes with a version greater than `after`, in order: how a handle catches up with other writers. */
  changesSince(after: number): Promise<readonly SealedChange[]>;
  /**
   * Appends `change` (whose version is `expected + 1`) durably, only if the latest stored version
   * is `expected`; otherwise rejects with `VersionConflictError` and writes nothing. The store's
   * head (`StoredRealm.head`) becomes this change, in the same transaction.
   */
  append(change: SealedChange, expected: number): Promise<void>;
  /**
   * Appends `changes` (versions `expected + 1`, `expected + 2`, ... in order) in one transaction:
   * all of them durably, or none (group commit: one fsync for the batch). Like `append`, only if
   * the latest stored version is `expected`; otherwise rejects with `VersionConflictError`.
   */
  appendBatch(changes: readonly SealedChange[], expected: number): Promise<void>;
  /**
   * Optional: runs `work` holding the realm's write lock, shared by every process and handle on
   * this backing (PostgreSQL: a session advisory lock). A handle runs catch-up, its batch and the
   * append inside, so writers never lose a race to each other (no version conflicts, no retries).
   */
  exclusive?<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Stores a checkpoint, then prunes: checkpoints beyond the newest `keepCheckpoints`, and changes
   * older than the oldest checkpoint kept (see docs/persistence.md, "Retention"). Writing one that
   * already exists at that version is a no-op.
   */
  writeCheckpoint(checkpoint: SealedCheckpoint | CheckpointStream): Promise<void>;
  /**
   * Optional: calls `listener` when another writer may have appended (PostgreSQL LISTEN/NOTIFY),
   * with the realm's version after that append when the store knows it (a handle ignores the
   * notifications of its own appends by it).
   */
  watch?(listener: (version?: number) => void): Promise<() => Promise<void>>;
  /**
   * Optional: `watch` tells of another writer's append before that append resolves (handles in one
   * process sharing a memory store), so a handle told of nothing holds every change acknowledged so
   * far and may answer a read without reading the store. Not PostgreSQL: its notifications arrive
   * after the other process's commit, so a read there reads the store first.
   */
  readonly watchIsSynchronous?: boolean;
  /**
   * Optional: an append costs no wait (the memory store: nothing to sync), so a batch gains
   * nothing from waiting a turn of the event loop for more requests to share its commit, unless
   * the last such wait brought some (`Batches`).
   */
  readonly appendsAtOnce?: boolean;
  /** Releases what the store opened (never an injected connection). */
  close(): Promise<void>;
}

/** Whether `changes` are versions `expected + 1`, `expected + 2`, ... (what `appendBatch` accepts). */
export function consecutiveFrom(changes: readonly SealedChange[], expected: number): boolean {
  return changes.every((c, i) => c.version === expected + 1 + i);
}
