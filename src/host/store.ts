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
  /** CRC-32 of `payload`. */
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

export interface StoredRealm {
  /** The latest checkpoint, or null for an empty store. */
  readonly checkpoint: SealedCheckpoint | null;
  /** Every change after the checkpoint, in version order. */
  readonly changes: readonly SealedChange[];
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
   * is `expected`; otherwise rejects with `VersionConflictError` and writes nothing.
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
  /** Stores a checkpoint. Writing one that already exists at that version is a no-op. */
  writeCheckpoint(checkpoint: SealedCheckpoint): Promise<void>;
  /** Optional: calls `listener` when another writer may have appended (PostgreSQL LISTEN/NOTIFY). */
  watch?(listener: () => void): Promise<() => Promise<void>>;
  /** Releases what the store opened (never an injected connection). */
  close(): Promise<void>;
}

/** Whether `changes` are versions `expected + 1`, `expected + 2`, ... (what `appendBatch` accepts). */
export function consecutiveFrom(changes: readonly SealedChange[], expected: number): boolean {
  return changes.every((c, i) => c.version === expected + 1 + i);
}
