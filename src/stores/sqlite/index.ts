/**
 * The SQLite store (better-sqlite3): the embedded default. One file may hold several realms.
 *
 * Durability: WAL journal with `synchronous = FULL` by default, so an acknowledged change has been
 * fsynced and survives a power loss. `synchronous: 'NORMAL'` is faster and still survives a crash
 * of the process (the WAL is in the OS cache), but a power loss may lose the last changes.
 * Appends check the latest version inside an IMMEDIATE transaction, so several processes may share
 * a file (each handle catches up before each operation).
 */
import Database from 'better-sqlite3';
import { CorruptStoreError, VersionConflictError } from '../../host/errors';
import {
  consecutiveFrom,
  type RealmStore,
  type SealedChange,
  type SealedCheckpoint,
  type StoredRealm,
} from '../../host/store';

export interface SqliteStoreOptions {
  /** The database file (created if missing). */
  readonly filename: string;
  /** Which realm in the file. Default "default". */
  readonly realm?: string;
  /** Default 'FULL' (durable on acknowledgement, power loss included). */
  readonly synchronous?: 'FULL' | 'NORMAL';
  /** Checkpoints kept per realm (older ones are deleted). Default 2. */
  readonly keepCheckpoints?: number;
  /** Milliseconds to wait for another process's write lock. Default 5000. */
  readonly busyTimeoutMs?: number;
}

/** The file's schema version (`PRAGMA user_version`) and how to reach it from each older one. */
const SCHEMA_VERSION = 1;
const SCHEMA_STEPS: Readonly<Record<number, string>> = {
  0: `
    CREATE TABLE changes (
      realm TEXT NOT NULL, version INTEGER NOT NULL, payload TEXT NOT NULL, checksum INTEGER NOT NULL,
      PRIMARY KEY (realm, version)) WITHOUT ROWID;
    CREATE TABLE checkpoints (
      realm TEXT NOT NULL, version INTEGER NOT NULL, format INTEGER NOT NULL, payload BLOB NOT NULL,
      checksum INTEGER NOT NULL, PRIMARY KEY (realm, version));`,
};

interface ChangeRow {
  version: number;
  payload: string;
  checksum: number;
}
interface CheckpointRow {
  version: number;
  format: number;
  payload: string | Buffer;
  checksum: number;
}

export function sqliteStore(options: SqliteStoreOptions): RealmStore {
  const realm = options.realm ?? 'default';
  const describe = `sqlite ${options.filename}, realm ${JSON.stringify(realm)}`;
  const guard = <T>(what: () => T): T => {
    try {
      return what();
    } catch (error) {
      throw translate(error, describe);
    }
  };

  const db = guard(() => new Database(options.filename, { timeout: options.busyTimeoutMs ?? 5000 }));
  guard(() => {
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
    migrate(db, describe);
  });

  const selectCheckpoint = db.prepare<[string], CheckpointRow>(
    'SELECT version, format, payload, checksum FROM checkpoints WHERE realm = ? ORDER BY version DESC LIMIT 1',
  );
  const selectChanges = db.prepare<[string, number], ChangeRow>(
    'SELECT version, payload, checksum FROM changes WHERE realm = ? AND version > ? ORDER BY version',
  );
  const selectLatest = db.prepare<[string, string], { v: number | null }>(
    `SELECT max(v) AS v FROM (SELECT max(version) AS v FROM changes WHERE realm = ?
       UNION ALL SELECT max(version) FROM checkpoints WHERE realm = ?)`,
  );
  const insertChange = db.prepare(
    'INSERT INTO changes (realm, version, payload, checksum) VALUES (?, ?, ?, ?)',
  );
  const insertCheckpoint = db.prepare(
    'INSERT OR IGNORE INTO checkpoints (realm, version, format, payload, checksum) VALUES (?, ?, ?, ?, ?)',
  );
  const pruneCheckpoints = db.prepare(
    `DELETE FROM checkpoints WHERE realm = ? AND version NOT IN
       (SELECT version FROM checkpoints WHERE realm = ? ORDER BY version DESC LIMIT ?)`,
  );

  const append = db.transaction((change: SealedChange, expected: number) => {
    const actual = selectLatest.get(realm, realm)?.v ?? 0;
    if (actual !== expected || change.version !== expected + 1)
      throw new VersionConflictError(expected, actual);
    insertChange.run(realm, change.version, change.payload, change.checksum);
  });
  // Group commit: one transaction, so one WAL fsync, for the whole batch.
  const appendBatch = db.transaction((changes: readonly SealedChange[], expected: number) => {
    const actual = selectLatest.get(realm, realm)?.v ?? 0;
    if (actual !== expected || !consecutiveFrom(changes, expected))
      throw new VersionConflictError(expected, actual);
    for (const c of changes) insertChange.run(realm, c.version, c.payload, c.checksum);
  });
  const checkpoint = db.transaction((cp: SealedCheckpoint) => {
    const payload = typeof cp.payload === 'string' ? cp.payload : Buffer.from(cp.payload);
    insertCheckpoint.run(realm, cp.version, cp.format, payload, cp.checksum);
    pruneCheckpoints.run(realm, realm, options.keepCheckpoints ?? 2);
  });

  const toChange = (r: ChangeRow): SealedChange => ({
    version: r.version,
    payload: r.payload,
    checksum: r.checksum,
  });

  return {
    describe,
    async load(): Promise<StoredRealm> {
      return guard(() =>
        db.transaction(() => {
          const row = selectCheckpoint.get(realm);
          const checkpoint: SealedCheckpoint | null = row
            ? {
                version: row.version,
                format: row.format,
                payload:
                  typeof row.payload === 'string'
                    ? row.payload
                    : new Uint8Array(row.payload.buffer, row.payload.byteOffset, row.payload.byteLength),
                checksum: row.checksum,
              }
            : null;
          return { checkpoint, changes: selectChanges.all(realm, checkpoint?.version ?? 0).map(toChange) };
        })(),
      );
    },
    async changesSince(after) {
      return guard(() => selectChanges.all(realm, after).map(toChange));
    },
    async append(change, expected) {
      guard(() => append.immediate(change, expected));
    },
    async appendBatch(changes, expected) {
      guard(() => appendBatch.immediate(changes, expected));
    },
    async writeCheckpoint(cp) {
      guard(() => checkpoint.immediate(cp));
    },
    async close() {
      if (db.open) db.close();
    },
  };
}

function migrate(db: Database.Database, describe: string): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) {
    throw new CorruptStoreError(
      describe,
      `schema version ${current} is newer than this chat-realm (${SCHEMA_VERSION})`,
    );
  }
  db.transaction(() => {
    // Re-read inside the write transaction: another process may have migrated meanwhile.
    for (let v = db.pragma('user_version', { simple: true }) as number; v < SCHEMA_VERSION; v++) {
      db.exec(SCHEMA_STEPS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    }
  }).immediate();
}

/** SQLite's own corruption reports become a CorruptStoreError naming the file. */
function translate(error: unknown, describe: string): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT_INDEX') {
    return new CorruptStoreError(describe, (error as Error).message, { cause: error });
  }
  return error;
}
