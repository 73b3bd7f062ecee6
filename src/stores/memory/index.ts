/**
 * The in-memory store: the reference adapter (and the one for tests, browsers and simulations).
 * Several handles may share one store, which then behaves like a database shared by processes.
 * Nothing survives the process.
 */
import { collectCheckpoint } from '../../host/checkpoint';
import { VersionConflictError } from '../../host/errors';
import {
  consecutiveFrom,
  type RealmStore,
  type SealedChange,
  type SealedCheckpoint,
  type StoredHead,
  type StoredRealm,
} from '../../host/store';

export interface MemoryStore extends RealmStore {
  /** The stored records, for inspection (and for tests that damage them on purpose). */
  readonly records: { changes: SealedChange[]; checkpoints: SealedCheckpoint[]; head: StoredHead | null };
}

export interface MemoryStoreOptions {
  /** Name used in error messages. Default "memory". */
  readonly name?: string;
  /**
   * Checkpoints kept (older ones are deleted, and the changes before the oldest kept one).
   * Default 2; `Infinity` keeps every checkpoint and change.
   */
  readonly keepCheckpoints?: number;
  /**
   * Tell the handles sharing this store of each other's appends (`watch`, as PostgreSQL's
   * LISTEN/NOTIFY tells processes). A handle that heard of none knows its realm is the latest, so
   * it answers a read at once instead of reading the store first (what `serve --memory` uses).
   * Default false: a store without notifications, whose handles read it before every batch.
   */
  readonly watch?: boolean;
}

export function memoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  const records = {
    changes: [] as SealedChange[],
    checkpoints: [] as SealedCheckpoint[],
    head: null as StoredHead | null,
  };
  const keep = Math.max(1, options.keepCheckpoints ?? 2);
  // Changes are kept in version order, so the newest are at the end.
  const since = (after: number) => {
    let i = records.changes.length;
    while (i > 0 && records.changes[i - 1]!.version > after) i--;
    return records.changes.slice(i);
  };
  // With `watch`: the handles sharing this store hear of each other's appends.
  const listeners = new Set<(version?: number) => void>();
  const notify = (version: number) => {
    for (const listener of listeners) listener(version);
  };
  const latest = () =>
    Math.max(records.checkpoints.at(-1)?.version ?? 0, records.changes.at(-1)?.version ?? 0);
  return {
    describe: options.name ?? 'memory',
    records,
    // Appending is pushing to an array: no fsync for a batch to share.
    appendsAtOnce: true,
    async load(): Promise<StoredRealm> {
      const checkpoint = records.checkpoints.at(-1) ?? null;
      const from = checkpoint?.version ?? 0;
      return { checkpoint, changes: since(from), head: records.head };
    },
    async changesSince(after) {
      return since(after);
    },
    async append(change, expected) {
      const actual = latest();
      if (actual !== expected || change.version !== expected + 1)
        throw new VersionConflictError(expected, actual);
      records.changes.push(change);
      records.head = { version: change.version, checksum: change.checksum };
      notify(change.version);
    },
    async appendBatch(changes, expected) {
      const actual = latest();
      if (actual !== expected || !consecutiveFrom(changes, expected))
        throw new VersionConflictError(expected, actual);
      const last = changes[changes.length - 1];
      if (last === undefined) return;
      records.changes.push(...changes);
      records.head = { version: last.version, checksum: last.checksum };
      notify(last.version);
    },
    async writeCheckpoint(written) {
      const checkpoint = 'payload' in written ? written : await collectCheckpoint(written);
      if (records.checkpoints.some((c) => c.version === checkpoint.version)) return;
      records.checkpoints.push(checkpoint);
      records.checkpoints.sort((a, b) => a.version - b.version);
      // Retention: the newest `keep` checkpoints, and the changes from the oldest of them on.
      if (records.checkpoints.length > keep) records.checkpoints.splice(0, records.checkpoints.length - keep);
      const oldest = records.checkpoints[0]!.version;
      const first = records.changes.findIndex((c) => c.version >= oldest);
      records.changes.splice(0, first < 0 ? records.changes.length : first);
    },
    ...(options.watch === true
      ? {
          // Listeners are called inside `append`/`appendBatch`, before they resolve.
          watchIsSynchronous: true,
          async watch(listener: (version?: number) => void) {
            listeners.add(listener);
            return async () => {
              listeners.delete(listener);
            };
          },
        }
      : {}),
    async close() {},
  };
}
