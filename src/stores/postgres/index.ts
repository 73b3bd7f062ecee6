/**
 * The PostgreSQL store, for hosts that run several server processes against one database.
 *
 * - Writers take turns: `exclusive` holds a session advisory lock per realm (on a dedicated pool
 *   connection) while a handle catches up, runs its batch and appends it, so processes never lose
 *   a race to each other and never answer an error for it. Appends are still checked: `(realm,
 *   version)` is the primary key and the insert only happens when the realm's latest version is
 *   the expected one, so of two writers racing for version n + 1 (e.g. one that does not lock)
 *   exactly one wins; the other gets a `VersionConflictError`, catches up and retries.
 * - Each append NOTIFYs (in the same statement, so only on commit); `watch` LISTENs, so handles
 *   in other processes catch up and deliver the events to their subscribers promptly. Correctness
 *   does not depend on it: a handle also catches up before each operation.
 * - The driver is injected or imported lazily: pass any client with `query(text, params)` (a `pg`
 *   Pool or Client, or `@electric-sql/pglite`), or a `connectionString` for a `pg` Pool made here.
 */
import { CorruptStoreError, VersionConflictError } from '../../host/errors';
import {
  consecutiveFrom,
  type RealmStore,
  type SealedChange,
  type SealedCheckpoint,
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
  /** Checkpoints kept per realm. Default 2. */
  readonly keepCheckpoints?: number;
  /** Use LISTEN/NOTIFY to learn about other writers' changes. Default true. */
  readonly listen?: boolean;
  /**
   * Take the realm's write lock (`exclusive`) around each batch. Default true. With false, writers
   * are purely optimistic: a process that loses a race catches up and retries (up to the handle's
   * `maxRetries`, then the request fails).
   */
  readonly lockWrites?: boolean;
}

const SCHEMA_VERSION = 1;
/** The first key of chat-realm's advisory locks ("chat" in ASCII); the second is the realm's hash. */
const LOCK_CLASS = 0x63686174;
const IDENT = /^[a-z_][a-z0-9_]{0,40}$/;

export async function postgresStore(options: PostgresStoreOptions): Promise<RealmStore> {
  const schema = options.schema ?? 'public';
  const prefix = options.tablePrefix ?? 'chat_realm_';
  if (!IDENT.test(schema) || !(prefix === '' || IDENT.test(prefix))) {
    throw new TypeError('schema and tablePrefix must be lower-case identifiers ([a-z_][a-z0-9_]*)');
  }
  let owned: { end(): Promise<void> } | undefined;
  let client = options.client;
  if (!client) {
    if (!options.connectionString) throw new TypeError('postgresStore needs a client or a connectionString');
    const pg = await import('pg');
    const pool = new pg.default.Pool({ connectionString: options.connectionString });
    owned = pool;
    client = pool;
  }
  const pool = client;
  // While `exclusive` holds the lock, every query of this store runs on the locked connection.
  let active: PgQueryable | undefined;
  const db: PgQueryable = { query: (text, params) => (active ?? pool).query(text, params) };
  const realm = options.realm;
  const t = (name: string) => `"${schema}"."${prefix}${name}"`;
  const channel = `${prefix}changes`;
  const describe = `postgres ${schema}.${prefix}*, realm ${JSON.stringify(realm)}`;

  await migrate(db, schema, t, describe);
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

  return {
    describe,
    async load(): Promise<StoredRealm> {
      const { rows } = await db.query(
        `SELECT version, format, payload_text, payload_bin, checksum FROM ${t('checkpoints')}
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
          }
        | undefined;
      if (!row) return { checkpoint: null, changes: await changesAfter(0) };
      const payload = row.payload_text ?? row.payload_bin;
      if (payload === null)
        throw new CorruptStoreError(`${describe}, checkpoint ${String(row.version)}`, 'no payload');
      const checkpoint: SealedCheckpoint = {
        version: Number(row.version),
        format: Number(row.format),
        payload: typeof payload === 'string' ? payload : new Uint8Array(payload),
        checksum: Number(row.checksum),
      };
      return { checkpoint, changes: await changesAfter(checkpoint.version) };
    },
    changesSince: changesAfter,
    async append(change, expected) {
      if (change.version !== expected + 1) throw new VersionConflictError(expected, await latest());
      let inserted: number;
      try {
        const { rows } = await db.query(
          `WITH ins AS (
             INSERT INTO ${t('changes')} (realm, version, payload, checksum)
             SELECT $1, $2, $3, $4
              WHERE GREATEST((SELECT max(version) FROM ${t('changes')} WHERE realm = $1),
                             (SELECT max(version) FROM ${t('checkpoints')} WHERE realm = $1), 0) = $5
             RETURNING version)
           SELECT pg_notify($6, $1) AS notified FROM ins`,
          [realm, change.version, change.payload, change.checksum, expected, channel],
        );
        inserted = rows.length;
      } catch (error) {
        if ((error as { code?: unknown }).code === '23505')
          throw new VersionConflictError(expected, await latest());
        throw error;
      }
      if (inserted === 0) throw new VersionConflictError(expected, await latest());
    },
    async appendBatch(changes, expected) {
      if (!consecutiveFrom(changes, expected)) throw new VersionConflictError(expected, await latest());
      if (changes.length === 0) return;
      let inserted: number;
      try {
        // One statement, so one transaction (and one commit) for the whole batch.
        const { rows } = await db.query(
          `WITH ins AS (
             INSERT INTO ${t('changes')} (realm, version, payload, checksum)
             SELECT $1, u.version, u.payload, u.checksum
               FROM unnest($2::bigint[], $3::text[], $4::bigint[]) AS u(version, payload, checksum)
              WHERE GREATEST((SELECT max(version) FROM ${t('changes')} WHERE realm = $1),
                             (SELECT max(version) FROM ${t('checkpoints')} WHERE realm = $1), 0) = $5
             RETURNING version),
           note AS (SELECT pg_notify($6, $1) FROM (SELECT 1 FROM ins LIMIT 1) AS one)
           SELECT (SELECT count(*) FROM ins) AS n, (SELECT count(*) FROM note) AS notified`,
          [
            realm,
            changes.map((c) => c.version),
            changes.map((c) => c.payload),
            changes.map((c) => c.checksum),
            expected,
            channel,
          ],
        );
        inserted = Number((rows[0] as { n: unknown } | undefined)?.n ?? 0);
      } catch (error) {
        if ((error as { code?: unknown }).code === '23505')
          throw new VersionConflictError(expected, await latest());
        throw error;
      }
      if (inserted === 0) throw new VersionConflictError(expected, await latest());
    },
    async writeCheckpoint(cp) {
      const text = typeof cp.payload === 'string' ? cp.payload : null;
      const bin = typeof cp.payload === 'string' ? null : cp.payload;
      await db.query(
        `INSERT INTO ${t('checkpoints')} (realm, version, format, payload_text, payload_bin, checksum)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (realm, version) DO NOTHING`,
        [realm, cp.version, cp.format, text, bin, cp.checksum],
      );
      await db.query(
        `DELETE FROM ${t('checkpoints')} WHERE realm = $1 AND version NOT IN
           (SELECT version FROM ${t('checkpoints')} WHERE realm = $1 ORDER BY version DESC LIMIT $2)`,
        [realm, options.keepCheckpoints ?? 2],
      );
    },
    ...(options.listen === false
      ? {}
      : { watch: (listener: () => void) => watch(pool, channel, realm, listener) }),
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
    async close() {
      await owned?.end();
    },
  };
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
  listener: () => void,
): Promise<() => Promise<void>> {
  const onPayload = (payload: string | undefined) => {
    if (payload === realm) listener();
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
    `INSERT INTO ${t('meta')} (key, value) VALUES ('schema_version', '${SCHEMA_VERSION}') ON CONFLICT (key) DO NOTHING`,
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
