/**
 * The in-memory store: the reference adapter (and the one for tests, browsers and simulations).
 * Several handles may share one store, which then behaves like a database shared by processes.
 * Nothing survives the process.
 */
import { VersionConflictError } from '../../host/errors';
import {
  consecutiveFrom,
  type RealmStore,
  type SealedChange,
  type SealedCheckpoint,
  type StoredRealm,
} from '../../host/store';

export interface MemoryStore extends RealmStore {
  /** The stored records, for inspection (and for tests that damage them on purpose). */
  readonly records: { changes: SealedChange[]; checkpoints: SealedCheckpoint[] };
}

export interface MemoryStoreOptions {
  /** Name used in error messages. Default "memory". */
  readonly name?: string;
}

export function memoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  const records = { changes: [] as SealedChange[], checkpoints: [] as SealedCheckpoint[] };
  // Changes are kept in version order, so the newest are at the end.
  const since = (after: number) => {
    let i = records.changes.length;
    while (i > 0 && records.changes[i - 1]!.version > after) i--;
    return records.changes.slice(i);
  };
  const latest = () =>
    Math.max(records.checkpoints.at(-1)?.version ?? 0, records.changes.at(-1)?.version ?? 0);
  return {
    describe: options.name ?? 'memory',
    records,
    async load(): Promise<StoredRealm> {
      const checkpoint = records.checkpoints.at(-1) ?? null;
      const from = checkpoint?.version ?? 0;
      return { checkpoint, changes: since(from) };
    },
    async changesSince(after) {
      return since(after);
    },
    async append(change, expected) {
      const actual = latest();
      if (actual !== expected || change.version !== expected + 1)
        throw new VersionConflictError(expected, actual);
      records.changes.push(change);
    },
    async appendBatch(changes, expected) {
      const actual = latest();
      if (actual !== expected || !consecutiveFrom(changes, expected))
        throw new VersionConflictError(expected, actual);
      records.changes.push(...changes);
    },
    async writeCheckpoint(checkpoint) {
      if (records.checkpoints.some((c) => c.version === checkpoint.version)) return;
      records.checkpoints.push(checkpoint);
      records.checkpoints.sort((a, b) => a.version - b.version);
    },
    async close() {},
  };
}
