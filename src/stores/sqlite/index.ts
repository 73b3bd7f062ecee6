/**
 * The SQLite store (better-sqlite3): the embedded default. One file may hold several realms.
 *
 * Durability: WAL journal with `synchronous = FULL` by default, so an acknowledged change has been
 * fsynced and survives a power loss. `synchronous: 'NORMAL'` is faster and still survives a crash
 * of the process (the WAL is in the OS cache), but a power loss may lose the last changes.
 * Appends check the latest version inside an IMMEDIATE transaction, so several processes may share
 * a file (each handle catches up before each operation).
 *
 * Each append also records the realm's head (version and checksum of the last change) in the same
 * transaction, so a log that lost changes at its end is refused. A checkpoint handed over as a
 * stream is written as parts of 256 KiB, each in its own short transaction, then committed by its
 * row; pruning (old checkpoints, their parts, the changes before the oldest kept checkpoint) also
 * goes in small steps. The parts, the pruning and SQLite's WAL checkpoints run on a writer thread
 * with its own connection (`writer-thread.ts`), so the thread that commits the realm's changes
 * only ever runs its own small transactions: a checkpoint never stops the handle's queue for more
 * than a lock handover (a few milliseconds). The checkpoint row is committed on the main connection.
 */
import { existsSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { CorruptStoreError, VersionConflictError } from '../../host/errors';
import {
  consecutiveFrom,
  type CheckpointStream,
  type RealmStore,
  type SealedChange,
  type SealedCheckpoint,
  type StoredHead,
  type StoredRealm,
} from '../../host/store';
import { checkPace } from '../pace';
import { WriterThread, WriteTurn } from './writer-thread';

export interface SqliteStoreOptions {
  /** The database file (created if missing). */
  readonly filename: string;
  /** Which realm in the file. Default "default". */
  readonly realm?: string;
  /** Default 'FULL' (durable on acknowledgement, power loss included). */
  readonly synchronous?: 'FULL' | 'NORMAL';
  /**
   * Checkpoints kept per realm (older ones are deleted, and the changes before the oldest kept
   * one). Default 2; `Infinity` keeps every checkpoint and change.
   */
  readonly keepCheckpoints?: number;
  /** Milliseconds to wait for another process's write lock. Default 5000. */
  readonly busyTimeoutMs?: number;
  /**
   * Write checkpoints (and prune, and copy SQLite's log into the main file) on a worker thread
   * with its own connection, so the thread that commits changes is not held up by them. Default
   * true; false writes them on the calling thread in small steps, as 0.1.0 did (a file named
   * ':memory:' or '' always does: its database is private to one connection).
   */
  readonly writerThread?: boolean;
  /**
   * The writer thread's pace for checkpoint parts, in bytes per second (src/stores/pace.ts).
   * Default 16 MiB/s: at full speed a checkpoint's writes and syncs fill the disk's queue and the
   * changes' own commits wait behind them. `Infinity` writes as fast as the disk takes them.
   */
  readonly checkpointBytesPerSecond?: number;
}

/** The file's schema version (`PRAGMA user_version`) and how to reach it from each older one. */
const SCHEMA_VERSION = 2;
const SCHEMA_STEPS: Readonly<Record<number, string>> = {
  0: `
    CREATE TABLE changes (
      realm TEXT NOT NULL, version INTEGER NOT NULL, payload TEXT NOT NULL, checksum INTEGER NOT NULL,
      PRIMARY KEY (realm, version)) WITHOUT ROWID;
    CREATE TABLE checkpoints (
      realm TEXT NOT NULL, version INTEGER NOT NULL, format INTEGER NOT NULL, payload BLOB NOT NULL,
      checksum INTEGER NOT NULL, PRIMARY KEY (realm, version));`,
  // 1 → 2 (after 0.1.0): the head record, and checkpoints written in parts. The head of a store
  // written by 0.1.0 is its last change.
  1: `
    CREATE TABLE heads (
      realm TEXT NOT NULL PRIMARY KEY, version INTEGER NOT NULL, checksum INTEGER NOT NULL) WITHOUT ROWID;
    INSERT INTO heads (realm, version, checksum)
      SELECT c.realm, c.version, c.checksum FROM changes c
       WHERE c.version = (SELECT max(version) FROM changes WHERE realm = c.realm);
    ALTER TABLE checkpoints ADD COLUMN parts INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE checkpoints ADD COLUMN parts_key INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE checkpoint_parts (
      realm TEXT NOT NULL, version INTEGER NOT NULL, parts_key INTEGER NOT NULL, part INTEGER NOT NULL,
      data BLOB NOT NULL, PRIMARY KEY (realm, version, parts_key, part));`,
};

/** Rows deleted per step when pruning: changes are small, checkpoint parts 256 KiB each. */
const PRUNE_BATCH = 200;
const PRUNE_PARTS = 4;

/** Parts of no checkpoint row that no row can come to use (see `pruneParts` below). */
const PRUNE_PARTS_SQL = `DELETE FROM checkpoint_parts WHERE rowid IN (
   SELECT p.rowid FROM checkpoint_parts p WHERE p.realm = ? AND NOT EXISTS
     (SELECT 1 FROM checkpoints c WHERE c.realm = p.realm AND c.version = p.version
         AND c.parts_key = p.parts_key)
     AND (p.version < (SELECT min(version) FROM checkpoints WHERE realm = ?) OR EXISTS
       (SELECT 1 FROM checkpoints c WHERE c.realm = p.realm AND c.version = p.version))
   LIMIT ?)`;
const PRUNE_CHANGES_SQL = `DELETE FROM changes WHERE realm = ? AND version IN (
   SELECT version FROM changes WHERE realm = ? AND version <
     (SELECT min(version) FROM checkpoints WHERE realm = ?) ORDER BY version LIMIT ?)`;

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
  parts: number;
  parts_key: number;
}

export function sqliteStore(options: SqliteStoreOptions): RealmStore {
  const realm = options.realm ?? 'default';
  const describe = `sqlite ${options.filename}, realm ${JSON.stringify(realm)}`;
  const fileDescribe = `sqlite ${options.filename}`;
  const guard = <T>(what: () => T): T => {
    try {
      return what();
    } catch (error) {
      throw translate(error, describe);
    }
  };
  const synchronous = options.synchronous ?? 'FULL';
  const keep = Math.max(1, options.keepCheckpoints ?? 2);
  const pace = checkPace(options.checkpointBytesPerSecond);

  const preexisting = holdsBytes(options.filename);
  const db = guard(() => new Database(options.filename, { timeout: options.busyTimeoutMs ?? 5000 }));
  try {
    guard(() => {
      refuseForeign(db, preexisting, fileDescribe, options.filename);
      db.pragma('journal_mode = WAL');
      db.pragma(`synchronous = ${synchronous}`);
      migrate(db, describe);
    });
  } catch (error) {
    db.close();
    throw error;
  }

  const selectCheckpoint = db.prepare<[string], CheckpointRow>(
    `SELECT version, format, payload, checksum, parts, parts_key FROM checkpoints
      WHERE realm = ? ORDER BY version DESC LIMIT 1`,
  );
  const selectParts = db.prepare<[string, number, number], { data: Buffer }>(
    'SELECT data FROM checkpoint_parts WHERE realm = ? AND version = ? AND parts_key = ? ORDER BY part',
  );
  const selectChanges = db.prepare<[string, number], ChangeRow>(
    'SELECT version, payload, checksum FROM changes WHERE realm = ? AND version > ? ORDER BY version',
  );
  const selectHead = db.prepare<[string], StoredHead>('SELECT version, checksum FROM heads WHERE realm = ?');
  const selectLatest = db.prepare<[string, string], { v: number | null }>(
    `SELECT max(v) AS v FROM (SELECT max(version) AS v FROM changes WHERE realm = ?
       UNION ALL SELECT max(version) FROM checkpoints WHERE realm = ?)`,
  );
  const insertChange = db.prepare(
    'INSERT INTO changes (realm, version, payload, checksum) VALUES (?, ?, ?, ?)',
  );
  const upsertHead = db.prepare(
    `INSERT INTO heads (realm, version, checksum) VALUES (?, ?, ?)
       ON CONFLICT (realm) DO UPDATE SET version = excluded.version, checksum = excluded.checksum`,
  );
  const hasCheckpoint = db.prepare<[string, number], { one: number }>(
    'SELECT 1 AS one FROM checkpoints WHERE realm = ? AND version = ?',
  );
  const insertCheckpoint = db.prepare(
    `INSERT OR IGNORE INTO checkpoints (realm, version, format, payload, checksum, parts, parts_key)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertPart = db.prepare(
    'INSERT INTO checkpoint_parts (realm, version, parts_key, part, data) VALUES (?, ?, ?, ?, ?)',
  );
  const pruneCheckpoints = db.prepare(
    `DELETE FROM checkpoints WHERE realm = ? AND version NOT IN
       (SELECT version FROM checkpoints WHERE realm = ? ORDER BY version DESC LIMIT ?)`,
  );
  // Parts of no checkpoint row: older than the oldest kept one (of pruned checkpoints, or of a
  // write that never committed), or of a version whose row was committed by another write (a write
  // interrupted by a crash, then done again at the same version: its row can never be inserted).
  // Other parts may belong to a write still under way in another process, even at an older version.
  const pruneParts = db.prepare(PRUNE_PARTS_SQL);
  const pruneChanges = db.prepare(PRUNE_CHANGES_SQL);

  const append = db.transaction((change: SealedChange, expected: number) => {
    const actual = selectLatest.get(realm, realm)?.v ?? 0;
    if (actual !== expected || change.version !== expected + 1)
      throw new VersionConflictError(expected, actual);
    insertChange.run(realm, change.version, change.payload, change.checksum);
    upsertHead.run(realm, change.version, change.checksum);
  });
  const commitCheckpoint = db.transaction(
    (
      cp: { version: number; format: number; payload: string | Buffer; checksum: number },
      parts: number,
      key: number,
    ) => {
      insertCheckpoint.run(realm, cp.version, cp.format, cp.payload, cp.checksum, parts, key);
      pruneCheckpoints.run(realm, realm, keep);
    },
  );
  /** One part in its own transaction; durable with the checkpoint row's commit (same WAL). */
  const writePart = (version: number, key: number, part: number, data: Uint8Array) => {
    if (synchronous === 'FULL') db.pragma('synchronous = NORMAL');
    try {
      insertPart.run(realm, version, key, part, Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    } finally {
      if (synchronous === 'FULL') db.pragma('synchronous = FULL');
    }
  };
  /** Retention, a batch at a time between turns of the event loop (without the writer thread). */
  const pruneHere = async () => {
    while (guard(() => pruneParts.run(realm, realm, PRUNE_PARTS).changes) > 0) await nextTurn();
    if (!Number.isFinite(keep)) return;
    while (guard(() => pruneChanges.run(realm, realm, realm, PRUNE_BATCH).changes) > 0) await nextTurn();
  };

  // The writer thread, started with the first streamed checkpoint and kept until `close`. While
  // it runs it takes SQLite's WAL checkpoints, so the main connection's automatic ones are off.
  const threaded =
    options.writerThread !== false && options.filename !== '' && options.filename !== ':memory:';
  let writer: WriterThread | undefined;
  const turn = new WriteTurn();
  /** A write transaction of the main connection, in its turn (see `WriteTurn`). */
  const write = <T>(what: () => T): Promise<T> => turn.run(() => guard(what));
  const writerThread = (): WriterThread | undefined => {
    if (!threaded || !db.open) return undefined;
    if (writer?.alive) return writer;
    writer = new WriterThread(
      {
        filename: options.filename,
        realm,
        busyTimeoutMs: options.busyTimeoutMs ?? 5000,
        bytesPerSecond: pace,
        pruneParts: PRUNE_PARTS_SQL,
        pruneChanges: PRUNE_CHANGES_SQL,
        pruneChangesBatch: PRUNE_BATCH,
      },
      turn,
      // The thread stopped: SQLite's WAL checkpoints are the main connection's again.
      () => {
        if (db.open) db.pragma('wal_autocheckpoint = 1000');
      },
    );
    guard(() => db.pragma('wal_autocheckpoint = 0'));
    return writer;
  };
  /** The thread's errors are SQLite's: corruption is reported as such. */
  const threadedCall = async <T>(what: () => Promise<T>): Promise<T> => {
    try {
      return await what();
    } catch (error) {
      throw translate(error, describe);
    }
  };
  // Group commit: one transaction, so one WAL fsync, for the whole batch; the head moves once.
  const appendBatch = db.transaction((changes: readonly SealedChange[], expected: number) => {
    const actual = selectLatest.get(realm, realm)?.v ?? 0;
    if (actual !== expected || !consecutiveFrom(changes, expected))
      throw new VersionConflictError(expected, actual);
    for (const c of changes) insertChange.run(realm, c.version, c.payload, c.checksum);
    const last = changes[changes.length - 1];
    if (last !== undefined) upsertHead.run(realm, last.version, last.checksum);
  });

  const toChange = (r: ChangeRow): SealedChange => ({
    version: r.version,
    payload: r.payload,
    checksum: r.checksum,
  });
  const readCheckpoint = (row: CheckpointRow): SealedCheckpoint => {
    let payload: string | Uint8Array;
    if (row.parts > 0) {
      const parts = selectParts.all(realm, row.version, row.parts_key);
      if (parts.length !== row.parts) {
        throw new CorruptStoreError(
          `${describe}, checkpoint ${row.version}`,
          `${parts.length} of its ${row.parts} parts are stored`,
        );
      }
      payload = Buffer.concat(parts.map((p) => p.data));
      payload = new Uint8Array(payload.buffer, payload.byteOffset, payload.byteLength);
    } else if (typeof row.payload === 'string') payload = row.payload;
    else payload = new Uint8Array(row.payload.buffer, row.payload.byteOffset, row.payload.byteLength);
    return { version: row.version, format: row.format, payload, checksum: row.checksum };
  };

  return {
    describe,
    async load(): Promise<StoredRealm> {
      return guard(() =>
        db.transaction(() => {
          const row = selectCheckpoint.get(realm);
          const checkpoint = row ? readCheckpoint(row) : null;
          return {
            checkpoint,
            changes: selectChanges.all(realm, checkpoint?.version ?? 0).map(toChange),
            head: selectHead.get(realm) ?? null,
          };
        })(),
      );
    },
    async changesSince(after) {
      return guard(() => selectChanges.all(realm, after).map(toChange));
    },
    async append(change, expected) {
      await write(() => append.immediate(change, expected));
    },
    async appendBatch(changes, expected) {
      await write(() => appendBatch.immediate(changes, expected));
    },
    async writeCheckpoint(cp: SealedCheckpoint | CheckpointStream) {
      if ('payload' in cp) {
        const payload = typeof cp.payload === 'string' ? cp.payload : Buffer.from(cp.payload);
        await write(() => commitCheckpoint.immediate({ ...cp, payload }, 0, 0));
      } else {
        if (guard(() => hasCheckpoint.get(realm, cp.version))) return;
        const key = partsKey();
        let part = 0;
        const thread = writerThread();
        if (thread) {
          part = await threadedCall(() => thread.writeParts(cp.version, key, cp.parts, cp.recycle?.bind(cp)));
          // Synced and copied on the thread: the row's commit below only syncs itself.
          await threadedCall(() => thread.sync());
        } else {
          for await (const data of cp.parts) {
            guard(() => writePart(cp.version, key, part++, data));
            cp.recycle?.(data);
          }
        }
        const row = {
          version: cp.version,
          format: cp.format,
          payload: Buffer.alloc(0),
          checksum: cp.checksum(),
        };
        await write(() => commitCheckpoint.immediate(row, part, key));
      }
      const thread = writer?.alive ? writer : undefined;
      if (thread) await threadedCall(() => thread.prune(Number.isFinite(keep)));
      else await pruneHere();
    },
    async close() {
      await writer?.close();
      if (db.open) db.close();
    },
  };
}

/** Whether the file exists with content (before SQLite opens, and maybe creates, it). */
function holdsBytes(filename: string): boolean {
  if (filename === '' || filename === ':memory:' || filename.startsWith('file:')) return false;
  try {
    return existsSync(filename) && statSync(filename).size > 0;
  } catch {
    return false;
  }
}

/**
 * A file that held bytes but no chat-realm schema is not initialized: it is another application's
 * database, or a store whose -wal file was lost before SQLite copied the schema into the main
 * file (an empty-looking database that would otherwise be seeded again).
 */
function refuseForeign(db: Database.Database, preexisting: boolean, where: string, filename: string): void {
  if (!preexisting) return;
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > 0) return;
  const objects = (db.prepare('SELECT count(*) AS n FROM sqlite_master').get() as { n: number }).n;
  throw new CorruptStoreError(
    where,
    objects > 0
      ? 'the file is a database without a chat-realm store (another application’s?); refusing to use it'
      : `the file is not empty but holds no schema: if it was a chat-realm store, its write-ahead log ` +
          `(${filename}-wal) is missing and its data with it; restore that file, or use another file`,
  );
}

function migrate(db: Database.Database, describe: string): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) {
    throw new CorruptStoreError(
      describe,
      `schema version ${current} is newer than this chat-realm (${SCHEMA_VERSION})`,
    );
  }
  if (current === SCHEMA_VERSION) return;
  db.transaction(() => {
    // Re-read inside the write transaction: another process may have migrated meanwhile.
    for (let v = db.pragma('user_version', { simple: true }) as number; v < SCHEMA_VERSION; v++) {
      db.exec(SCHEMA_STEPS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    }
  }).immediate();
}

/** Tells one checkpoint write's parts from another's (two processes may write the same version). */
function partsKey(): number {
  const words = new Uint32Array(2);
  crypto.getRandomValues(words);
  return words[0]! * 0x200000 + (words[1]! & 0x1fffff); // 53 bits: a safe integer
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** SQLite's own corruption reports become a CorruptStoreError naming the file. */
function translate(error: unknown, describe: string): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT_INDEX') {
    return new CorruptStoreError(describe, (error as Error).message, { cause: error });
  }
  return error;
}
