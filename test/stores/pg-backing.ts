/**
 * Where the PostgreSQL tests run: the server at DATABASE_URL when it is set (.ci/run sets it), else
 * an in-process PGlite, so `npm test` passes on a fresh machine. Each backing gets its own schema,
 * dropped on cleanup.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PgQueryable } from '../../src/stores/postgres/index';

export const usingServer = Boolean(process.env['DATABASE_URL']);

export interface PgHandle {
  readonly client: PgQueryable;
  /** A new connection (pool) to the same database, or the same PGlite instance. */
  connect(): Promise<{ client: PgQueryable; end(): Promise<void> }>;
  end(): Promise<void>;
}

let counter = 0;
export function uniqueSchema(): string {
  return `chat_realm_test_${process.pid}_${Date.now().toString(36)}_${counter++}`;
}

export async function openDatabase(): Promise<PgHandle> {
  const url = process.env['DATABASE_URL'];
  if (url) {
    const pg = (await import('pg')).default;
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    return {
      client: pool,
      connect: async () => {
        const other = new pg.Pool({ connectionString: url, max: 2 });
        return { client: other, end: () => other.end() };
      },
      end: () => pool.end(),
    };
  }
  const db = await createPglite();
  return {
    client: db,
    connect: async () => ({ client: db, end: async () => {} }),
    end: () => db.close(),
  };
}

/**
 * PGlite runs initdb on creation (about 15 s); its freshly initialized data directory is cached in
 * the temp dir, so later test files start in about 2 s.
 */
async function createPglite() {
  const { PGlite } = await import('@electric-sql/pglite');
  const cache = join(tmpdir(), 'chat-realm-pglite-0.5.16.tar.gz');
  if (existsSync(cache)) {
    try {
      return await PGlite.create({ loadDataDir: new Blob([readFileSync(cache)]) });
    } catch {
      // A damaged cache: fall through and rebuild it.
    }
  }
  const db = await PGlite.create();
  const dump = await db.dumpDataDir('gzip');
  const partial = `${cache}.${process.pid}`;
  writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
  renameSync(partial, cache);
  return db;
}
