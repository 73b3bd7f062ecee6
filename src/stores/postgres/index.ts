/**
 * The PostgreSQL store, for hosts that run several server processes against one database.
 *
 * - Appends are checked: `(realm, version)` is the primary key and the insert only happens when
 *   the realm's latest version is the expected one, so of two writers racing for version n + 1
 *   exactly one wins; the other gets a `VersionConflictError`, catches up and retries.
 * - Writers that keep racing take turns: `exclusive` holds a session advisory lock per realm (on a
 *   dedicated pool connection) while a handle catches up, runs its batch and appends it. Every
 *   append also takes the same lock for its own transaction, without waiting
 *   (`pg_try_advisory_xact_lock`, in the append statement: no extra round trip), and refuses as a
 *   conflict while another session holds it. So an optimistic append never lands between a lock
 *   holder's catch-up and its append: the holder never loses a race, and a batch that lost one
 *   and retries under the lock succeeds (the handle decides when to lock: `writeLock`).
 * - Each append NOTIFYs `<realm>:<version>` (in the same statement, so only on commit; the version
 *   lets a handle ignore its own appends); `watch` LISTENs, so handles
 *   in other processes catch up and deliver the events to their subscribers promptly. Correctness
 *   does not depend on it: a handle also catches up before each operation.
 * - Each append also records the realm's head (its last change) in the same statement, so a log
 *   that lost changes at its end is refused. Checkpoints handed over as a stream are stored as
 *   parts of 256 KiB (one statement each, on a pool connection of their own, never the one holding
 *   the write lock) and committed by their row; pruning goes in batches.
 * - Text columns cannot hold NUL: every payload stored as text is JSON, which escapes it.
 * - The driver is injected or imported lazily: pass any client with `query(text, params)` (a `pg`
 *   Pool or Client, or `@electric-sql/pglite`), or a `connectionString` for a `pg` Pool made here.
 */
import { CorruptStoreError, LeaseLostError, VersionConflictError } from '../../host/errors';
import { leaseTableDdl } from './lease';
import { checkPace, pacer, sleep } from '../pace';
import type { PartsThread } from '../parts-thread';
import {
  consecutiveFrom,
  type CheckpointStream,
  type RealmStore,
  type SealedChange,
  type SealedCheckpoint,
  type StoredHead,
  type StoredRealm,
} from '../../host/store';

/** The little this adapter needs from a driver; `pg.Pool`, `pg.Client` and `PGlite` all fit. */
export interface PgQueryable {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** A PGlite-style listener (PGlite's own `listen`). */
interface PgListenable {
  listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>>;
}

/** A pg.Pool-style source of dedicated connections (for LISTEN and the write lock). */
interface PgConnectable {
  connect(): Promise<
    PgQueryable & {
      on(event: 'notification', cb: (n: { channel: string; payload?: string }) => void): unknown;
      release(destroy?: boolean): void;
    }
  >;
}

export interface PostgresStoreOptions {
  /** An existing client or pool (never closed by the store). */
  readonly client?: PgQueryable;
  /** Otherwise: a `pg` Pool is created for this URL (and ended on close). */
  readonly connectionString?: string;
  /** Which realm in the tables. */
  readonly realm: string;
  /** Schema for the tables (created if missing). Default "public". */
  readonly schema?: string;
  /** Prefix of the table names. Default "chat_realm_". */
  readonly tablePrefix?: string;
  /**
   * Checkpoints kept per realm (older ones are deleted, and the changes before the oldest kept
   * one). Default 2; `Infinity` keeps every checkpoint and change.
   */
  readonly keepCheckpoints?: number;
  /** Use LISTEN/NOTIFY to learn about other writers' changes. Default true. */
  readonly listen?: boolean;
  /**
   * Offer the realm's write lock (`exclusive`), which the handle takes after losing a race (and
   * while it keeps racing; see its `writeLock` option). Default true. With false, writers are
   * purely optimistic: a process that loses a race catches up and retries (up to the handle's
   * `maxRetries`, then the request fails).
   */
  readonly lockWrites?: boolean;
  /**
   * The pace of checkpoint parts, in bytes per second (src/stores/pace.ts). Default 16 MiB/s: each
   * part is a commit, and at full speed the parts' WAL flushes delay the changes' own commits.
   * `Infinity` writes them as fast as the server takes them.
   */
  readonly checkpointBytesPerSecond?: number;
  /**
   * Insert checkpoint parts from a worker thread with a connection of its own (`writer-thread.ts`),
   * so the driver's work for them does not hold up the realm's operations. Default: true when the
   * store opens its own pool from `connectionString` (Node only); an injected client's parts are
   * written through it, on the calling thread.
   */
  readonly writerThread?: boolean;
  /**
   * The realm's write lease (`RealmLease`, lease.ts): every append then carries its fencing token
   * and is refused (`LeaseLostError`, nothing written) unless the lease row holds that token, read
   * under a row lock in the append's own statement, so a takeover and a late append of the old
   * holder are ordered by PostgreSQL. Without a token (this process does not hold the lease) the
   * append is refused without a query. Use it with `lockWrites: false`: one writer needs no lock.
   */
  readonly lease?: { readonly token: number | undefined; lost(): void };
}

const SCHEMA_VERSION = 2;
/** Rows deleted per statement when pruning: changes are small, checkpoint parts 256 KiB each. */
const PRUNE_BATCH = 500;
const PRUNE_PARTS = 2;
/** The first key of chat-realm's advisory locks ("chat" in ASCII); the second is the realm's hash. */
const LOCK_CLASS = 0x63686174;
const IDENT = /^[a-z_][a-z0-9_]{0,40}$/;

export async function postgresStore(options: PostgresStoreOptions): Promise<RealmStore> {
  const schema = options.schema ?? 'public';
  const prefix = options.tablePrefix ?? 'chat_realm_';
  const pace = checkPace(options.checkpointBytesPerSecond);
  if (!IDENT.test(schema) || !(prefix === '' || IDENT.test(prefix))) {
    throw new TypeError('schema and tablePrefix must be lower-case identifiers ([a-z_][a-z0-9_]*)');
  }
  let owned: { end(): Promise<void> } | undefined;
  let ending: Promise<void> | undefined;
  let client = options.client;
  if (!client) {
    if (!options.connectionString) throw new TypeError('postgresStore needs a client or a connectionString');
    const pg = await import('pg');
    const pool = new pg.default.Pool({ connectionString: options.connectionString });
    owned = pool;
    client = pool;
  }
  const pool = client;
  const threaded = options.writerThread ?? owned !== undefined;
  if (threaded && !options.connectionString) {
    throw new TypeError('postgresStore: writerThread needs a connectionString (for its own connection)');
  }
  // While `exclusive` holds the lock, every query of this store runs on the locked connection.
  let active: PgQueryable | undefined;
  const db: PgQueryable = { query: (text, params) => (active ?? pool).query(text, params) };
  // Checkpoints are written beside the handle's queue, never on the locked connection: a part
  // queued there would hold up the batch being appended under the lock.
  const beside: PgQueryable = pool;
  const realm = options.realm;
  const t = (name: string) => `"${schema}"."${prefix}${name}"`;
  const channel = `${prefix}changes`;
  const describe = `postgres ${schema}.${prefix}*, realm ${JSON.stringify(realm)}`;

  await migrate(db, schema, t, describe);
  const lease = options.lease;
  // With a lease, an append inserts only while the lease row still holds this process's token
  // (FOR SHARE: a takeover waits for the append, and an append after it sees the new token).
  const fenceCte = (n: number) =>
    lease ? `fence AS (SELECT 1 FROM ${t('leases')} WHERE realm = $1 AND token = $${n} FOR SHARE),` : '';
  const fenced = lease ? 'AND EXISTS (SELECT 1 FROM fence)' : '';
  const fenceToken = (): number[] => {
    if (!lease) return [];
    const token = lease.token;
    if (token === undefined) throw new LeaseLostError(describe, undefined, undefined);
    return [token];
  };
  /** An append inserted nothing: fenced (the lease moved on) or a lost race. */
  const refused = async (expected: number, token: readonly number[]): Promise<Error> => {
    if (token[0] !== undefined) {
      const { rows } = await db.query(`SELECT token FROM ${t('leases')} WHERE realm = $1`, [realm]);
      const current = rows[0] === undefined ? undefined : Number((rows[0] as { token: unknown }).token);
      if (current !== token[0]) {
        lease?.lost();
        return new LeaseLostError(describe, token[0], current);
      }
    }
    return new VersionConflictError(expected, await latest());
  };
  const keep = Math.max(1, options.keepCheckpoints ?? 2);
  const lockName = `${schema}.${prefix}:${realm}`;

  const toChange = (row: unknown): SealedChange => {
    const r = row as { version: unknown; payload: unknown; checksum: unknown };
    return { version: Number(r.version), payload: String(r.payload), checksum: Number(r.checksum) };
  };
  const changesAfter = async (after: number) =>
    (
      await db.query(
        `SELECT version, payload, checksum FROM ${t('changes')} WHERE realm = $1 AND version > $2 ORDER BY version`,
        [realm, after],
      )
    ).rows.map(toChange);
  const latest = async () => {
    const { rows } = await db.query(
      `SELECT GREATEST((SELECT max(version) FROM ${t('changes')} WHERE realm = $1),
                       (SELECT max(version) FROM ${t('checkpoints')} WHERE realm = $1)) AS v`,
      [realm],
    );
    return Number((rows[0] as { v: unknown } | undefined)?.v ?? 0);
  };

  /** The changes after `after` and the head, read by one statement (one snapshot). */
  const changesAndHead = async (after: number) => {
    const { rows } = await db.query(
      `SELECT version, payload, checksum, false AS head FROM ${t('changes')} WHERE realm = $1 AND version > $2
       UNION ALL SELECT version, NULL, checksum, true FROM ${t('heads')} WHERE realm = $1
       ORDER BY head, version`,
      [realm, after],
    );
    const last = rows.at(-1) as { head: boolean; version: unknown; checksum: unknown } | undefined;
    const head: StoredHead | null =
      last?.head === true ? { version: Number(last.version), checksum: Number(last.checksum) } : null;
    return { changes: (head ? rows.slice(0, -1) : rows).map(toChange), head };
  };
  const readParts = async (version: number, key: unknown, count: number): Promise<Uint8Array> => {
    const { rows } = await db.query(
      `SELECT data FROM ${t('checkpoint_parts')} WHERE realm = $1 AND version = $2 AND parts_key = $3 ORDER BY part`,
      [realm, version, key],
    );
    if (rows.length !== count) {
      throw new CorruptStoreError(
        `${describe}, checkpoint ${version}`,
        `${rows.length} of its ${count} parts are stored`,
      );
    }
    const parts = rows.map((r) => (r as { data: Uint8Array }).data);
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  };
  const prune = async () => {
    const step = async (sql: string, batch: number) => {
      for (;;) {
        const { rows } = await beside.query(sql, [realm, batch]);
        if (Number((rows[0] as { n: unknown } | undefined)?.n ?? 0) === 0) return;
      }
    };
    await step(
      `WITH gone AS (DELETE FROM ${t('checkpoint_parts')} WHERE ctid IN (
         SELECT p.ctid FROM ${t('checkpoint_parts')} p WHERE p.realm = $1 AND NOT EXISTS
           (SELECT 1 FROM ${t('checkpoints')} c WHERE c.realm = p.realm AND c.version = p.version
               AND c.parts_key = p.parts_key)
           AND (p.version < (SELECT min(version) FROM ${t('checkpoints')} WHERE realm = $1) OR EXISTS
             (SELECT 1 FROM ${t('checkpoints')} c WHERE c.realm = p.realm AND c.version = p.version))
           LIMIT $2) RETURNING 1)
       SELECT count(*) AS n FROM gone`,
      PRUNE_PARTS,
    );
    if (!Number.isFinite(keep)) return;
    await step(
      `WITH gone AS (DELETE FROM ${t('changes')} WHERE realm = $1 AND version IN (
         SELECT version FROM ${t('changes')} WHERE realm = $1 AND version <
           (SELECT min(version) FROM ${t('checkpoints')} WHERE realm = $1) ORDER BY version LIMIT $2)
         RETURNING 1)
       SELECT count(*) AS n FROM gone`,
      PRUNE_BATCH,
    );
  };
  const commitCheckpoint = async (
    cp: { version: number; format: number; checksum: number },
    text: string | null,
    bin: Uint8Array | null,
    parts: number,
    key: number,
  ) => {
    await beside.query(
      `INSERT INTO ${t('checkpoints')} (realm, version, format, payload_text, payload_bin, checksum, parts, parts_key)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (realm, version) DO NOTHING`,
      [realm, cp.version, cp.format, text, bin, cp.checksum, parts, key],
    );
    if (Number.isFinite(keep)) {
      await beside.query(
        `DELETE FROM ${t('checkpoints')} WHERE realm = $1 AND version NOT IN
           (SELECT version FROM ${t('checkpoints')} WHERE realm = $1 ORDER BY version DESC LIMIT $2)`,
        [realm, keep],
      );
    }
  };

  const insertPart = `INSERT INTO ${t('checkpoint_parts')} (realm, version, parts_key, part, data) VALUES ($1, $2, $3, $4, $5)`;
  // The writer thread, started with the first streamed checkpoint (and again after one failed),
  // kept until `close`. Imported when needed: the store itself needs no Node built-in.
  let writer: PartsThread | undefined;
  let closed = false;
  const writerThread = async (): Promise<PartsThread | undefined> => {
    if (!threaded || !options.connectionString || closed) return undefined;
    if (writer?.alive) return writer;
    const { startWriterThread } = await import('./writer-thread');
    writer = startWriterThread({
      connectionString: options.connectionString,
      realm,
      insertPart,
      bytesPerSecond: pace,
    });
    return writer;
  };

  return {
    describe,
    async load(): Promise<StoredRealm> {
      const { rows } = await db.query(
        `SELECT version, format, payload_text, payload_bin, checksum, parts, parts_key FROM ${t('checkpoints')}
          WHERE realm = $1 ORDER BY version DESC LIMIT 1`,
        [realm],
      );
      const row = rows[0] as
        | {
            version: unknown;
            format: unknown;
            payload_text: string | null;
            payload_bin: Uint8Array | null;
            checksum: unknown;
            parts: unknown;
            parts_key: unknown;
          }
        | undefined;
      if (!row) return { checkpoint: null, ...(await changesAndHead(0)) };
      const version = Number(row.version);
      const parts = Number(row.parts);
      const payload =
        parts > 0 ? await readParts(version, row.parts_key, parts) : (row.payload_text ?? row.payload_bin);
      if (payload === null) throw new CorruptStoreError(`${describe}, checkpoint ${version}`, 'no payload');
      const checkpoint: SealedCheckpoint = {
        version,
        format: Number(row.format),
        payload: typeof payload === 'string' ? payload : new Uint8Array(payload),
        checksum: Number(row.checksum),
      };
      return { checkpoint, ...(await changesAndHead(version)) };
    },
    changesSince: changesAfter,
    async append(change, expected) {
      if (change.version !== expected + 1) throw new VersionConflictError(expected, await latest());
      noNul(change.payload, describe);
      const token = fenceToken();
      let inserted: number;
      try {
        const { rows } = await db.query(
          `WITH ${fenceCte(8)} ins AS (
             INSERT INTO ${t('changes')} (realm, version, payload, checksum)
             SELECT $1, $2, $3, $4
              WHERE GREATEST((SELECT max(version) FROM ${t('changes')} WHERE realm = $1),
                             (SELECT max(version) FROM ${t('checkpoints')} WHERE realm = $1), 0) = $5
                AND pg_try_advisory_xact_lock(${LOCK_CLASS}, hashtext($7)) ${fenced}
             RETURNING version, checksum),
           head AS (
             INSERT INTO ${t('heads')} (realm, version, checksum) SELECT $1, version, checksum FROM ins
             ON CONFLICT (realm) DO UPDATE SET version = excluded.version, checksum = excluded.checksum)
           SELECT pg_notify($6, $1 || ':' || $2::text) AS notified FROM ins`,
          [realm, change.version, change.payload, change.checksum, expected, channel, lockName, ...token],
        );
        inserted = rows.length;
      } catch (error) {
        if ((error as { code?: unknown }).code === '23505') throw await refused(expected, token);
        throw error;
      }
      if (inserted === 0) throw await refused(expected, token);
    },
    async appendBatch(changes, expected) {
      if (!consecutiveFrom(changes, expected)) throw new VersionConflictError(expected, await latest());
      if (changes.length === 0) return;
      for (const c of changes) noNul(c.payload, describe);
      const last = changes[changes.length - 1]!;
      const token = fenceToken();
      let inserted: number;
      try {
        // One statement, so one transaction (and one commit) for the whole batch.
        const { rows } = await db.query(
          `WITH ${fenceCte(10)} ins AS (
             INSERT INTO ${t('changes')} (realm, version, payload, checksum)
             SELECT $1, u.version, u.payload, u.checksum
               FROM unnest($2::bigint[], $3::text[], $4::bigint[]) AS u(version, payload, checksum)
              WHERE GREATEST((SELECT max(version) FROM ${t('changes')} WHERE realm = $1),
                             (SELECT max(version) FROM ${t('checkpoints')} WHERE realm = $1), 0) = $5
                AND pg_try_advisory_xact_lock(${LOCK_CLASS}, hashtext($9)) ${fenced}
             RETURNING version),
           head AS (
             INSERT INTO ${t('heads')} (realm, version, checksum)
             SELECT $1, $7, $8 FROM (SELECT 1 FROM ins LIMIT 1) AS one
             ON CONFLICT (realm) DO UPDATE SET version = excluded.version, checksum = excluded.checksum),
           note AS (SELECT pg_notify($6, $1 || ':' || $7::text) FROM (SELECT 1 FROM ins LIMIT 1) AS one)
           SELECT (SELECT count(*) FROM ins) AS n, (SELECT count(*) FROM note) AS notified`,
          [
            realm,
            changes.map((c) => c.version),
            changes.map((c) => c.payload),
            changes.map((c) => c.checksum),
            expected,
            channel,
            last.version,
            last.checksum,
            lockName,
            ...token,
          ],
        );
        inserted = Number((rows[0] as { n: unknown } | undefined)?.n ?? 0);
      } catch (error) {
        if ((error as { code?: unknown }).code === '23505') throw await refused(expected, token);
        throw error;
      }
      if (inserted === 0) throw await refused(expected, token);
    },
    async writeCheckpoint(cp: SealedCheckpoint | CheckpointStream) {
      if ('payload' in cp) {
        const text = typeof cp.payload === 'string' ? cp.payload : null;
        if (text !== null) noNul(text, describe);
        const bin = typeof cp.payload === 'string' ? null : cp.payload;
        await commitCheckpoint(cp, text, bin, 0, 0);
      } else {
        const { rows } = await beside.query(
          `SELECT 1 FROM ${t('checkpoints')} WHERE realm = $1 AND version = $2`,
          [realm, cp.version],
        );
        if (rows.length > 0) return;
        const key = partsKey();
        let part = 0;
        const thread = await writerThread();
        if (thread) {
          part = await thread.writeParts(cp.version, key, cp.parts, cp.recycle?.bind(cp));
        } else {
          const due = pacer(pace);
          for await (const data of cp.parts) {
            await beside.query(insertPart, [realm, cp.version, key, part++, data]);
            cp.recycle?.(data); // sent: the driver copied it
            await sleep(due(data.length));
          }
        }
        await commitCheckpoint({ ...cp, checksum: cp.checksum() }, null, null, part, key);
      }
      await prune();
    },
    ...(options.listen === false
      ? {}
      : { watch: (listener: (version?: number) => void) => watch(pool, channel, realm, listener) }),
    ...(options.lockWrites === false
      ? {}
      : {
          exclusive: <T>(work: () => Promise<T>) =>
            writeLock(pool, lockName, async (conn) => {
              active = conn;
              try {
                return await work();
              } finally {
                active = undefined;
              }
            }),
        }),
    // Idempotent: a handle closes its store, and so may whoever opened the store.
    close() {
      closed = true;
      ending ??= (async () => {
        await writer?.close();
        await owned?.end();
      })();
      return ending;
    },
  };
}

/** PostgreSQL text cannot hold NUL; sealed records are JSON, which escapes it, so this never fires. */
function noNul(text: string, describe: string): void {
  if (text.includes('\0'))
    throw new TypeError(`${describe}: a text record holds NUL, which PostgreSQL cannot store`);
}

/** Tells one checkpoint write's parts from another's (two processes may write the same version). */
function partsKey(): number {
  const words = new Uint32Array(2);
  crypto.getRandomValues(words);
  return words[0]! * 0x200000 + (words[1]! & 0x1fffff);
}

/** Handles in this process queue here per client, so they do not each hold a connection to wait. */
const localTurns = new WeakMap<object, Promise<unknown>>();

/**
 * Runs `work` holding the advisory lock named `name`: in this process first (a promise chain per
 * client), then in the database (a session lock on a dedicated pool connection, or on the client
 * itself), so every process and handle on the database takes turns. A process that dies holding
 * the lock loses its connection, and PostgreSQL releases the lock with it.
 */
async function writeLock<T>(
  client: PgQueryable,
  name: string,
  work: (conn: PgQueryable) => Promise<T>,
): Promise<T> {
  const before = localTurns.get(client) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => (done = resolve));
  localTurns.set(
    client,
    before.then(() => mine),
  );
  await before;
  try {
    const isPool = typeof (client as Partial<PgConnectable>).connect === 'function' && 'totalCount' in client;
    const conn = isPool ? await (client as unknown as PgConnectable).connect() : undefined;
    const on: PgQueryable = conn ?? client;
    try {
      await on.query(`SELECT pg_advisory_lock(${LOCK_CLASS}, hashtext($1))`, [name]);
    } catch (error) {
      conn?.release(true);
      throw error;
    }
    try {
      return await work(on);
    } finally {
      // A connection that cannot unlock may still hold the lock: it is destroyed, never pooled
      // again, and closing it releases the lock. What `work` did stands either way.
      const unlocked = await on.query(`SELECT pg_advisory_unlock(${LOCK_CLASS}, hashtext($1))`, [name]).then(
        () => true,
        () => false,
      );
      conn?.release(!unlocked);
    }
  } finally {
    done();
  }
}

async function watch(
  db: PgQueryable,
  channel: string,
  realm: string,
  listener: (version?: number) => void,
): Promise<() => Promise<void>> {
  // The payload is `<realm>:<version>` (the realm's version after the append); 0.1.0 sent `<realm>`.
  const onPayload = (payload: string | undefined) => {
    if (payload === realm) return listener();
    const at = payload?.lastIndexOf(':') ?? -1;
    if (at < 0 || payload!.slice(0, at) !== realm) return;
    const version = Number(payload!.slice(at + 1));
    listener(Number.isSafeInteger(version) ? version : undefined);
  };
  if (typeof (db as Partial<PgListenable>).listen === 'function') {
    return (db as unknown as PgListenable).listen(channel, onPayload);
  }
  if (typeof (db as Partial<PgConnectable>).connect === 'function' && 'totalCount' in db) {
    // A pg Pool: LISTEN needs a connection of its own for as long as we watch.
    const conn = await (db as unknown as PgConnectable).connect();
    conn.on('notification', (n) => {
      if (n.channel === channel) onPayload(n.payload);
    });
    await conn.query(`LISTEN "${channel}"`);
    return async () => {
      try {
        await conn.query(`UNLISTEN "${channel}"`);
      } finally {
        conn.release();
      }
    };
  }
  // A single client: no dedicated connection to listen on; catching up before each operation suffices.
  return async () => {};
}

async function migrate(
  db: PgQueryable,
  schema: string,
  t: (name: string) => string,
  describe: string,
): Promise<void> {
  // One statement each, so it works on drivers without multi-statement queries (PGlite's query).
  // Concurrent creators are harmless except for the catalog race, which we retry once.
  const ddl = [
    `CREATE SCHEMA IF NOT EXISTS "${schema}"`,
    `CREATE TABLE IF NOT EXISTS ${t('meta')} (key text PRIMARY KEY, value text NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS ${t('changes')} (
       realm text NOT NULL, version bigint NOT NULL, payload text NOT NULL, checksum bigint NOT NULL,
       PRIMARY KEY (realm, version))`,
    `CREATE TABLE IF NOT EXISTS ${t('checkpoints')} (
       realm text NOT NULL, version bigint NOT NULL, format integer NOT NULL,
       payload_text text, payload_bin bytea, checksum bigint NOT NULL,
       PRIMARY KEY (realm, version))`,
    `CREATE TABLE IF NOT EXISTS ${t('heads')} (
       realm text PRIMARY KEY, version bigint NOT NULL, checksum bigint NOT NULL)`,
    `ALTER TABLE ${t('checkpoints')} ADD COLUMN IF NOT EXISTS parts integer NOT NULL DEFAULT 0`,
    `ALTER TABLE ${t('checkpoints')} ADD COLUMN IF NOT EXISTS parts_key bigint NOT NULL DEFAULT 0`,
    `CREATE TABLE IF NOT EXISTS ${t('checkpoint_parts')} (
       realm text NOT NULL, version bigint NOT NULL, parts_key bigint NOT NULL, part integer NOT NULL,
       data bytea NOT NULL, PRIMARY KEY (realm, version, parts_key, part))`,
    leaseTableDdl(t('leases')),
    `INSERT INTO ${t('meta')} (key, value) VALUES ('schema_version', '${SCHEMA_VERSION}') ON CONFLICT (key) DO NOTHING`,
    // 1 → 2 (after 0.1.0): one statement, so the head records appear with the version bump. The
    // head of a store written by 0.1.0 is its last change.
    `WITH up AS (
       UPDATE ${t('meta')} SET value = '2' WHERE key = 'schema_version' AND value = '1' RETURNING 1)
     INSERT INTO ${t('heads')} (realm, version, checksum)
       SELECT c.realm, c.version, c.checksum FROM ${t('changes')} c
        WHERE EXISTS (SELECT 1 FROM up)
          AND c.version = (SELECT max(version) FROM ${t('changes')} WHERE realm = c.realm)
       ON CONFLICT (realm) DO NOTHING`,
  ];
  for (const sql of ddl) {
    try {
      await db.query(sql);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      // 23505/42P07: another process created the same object at the same moment.
      if (code !== '23505' && code !== '42P07') throw error;
    }
  }
  const { rows } = await db.query(`SELECT value FROM ${t('meta')} WHERE key = 'schema_version'`);
  const version = Number((rows[0] as { value: unknown } | undefined)?.value);
  if (version > SCHEMA_VERSION) {
    throw new CorruptStoreError(
      describe,
      `schema version ${version} is newer than this chat-realm (${SCHEMA_VERSION})`,
    );
  }
}
