/**
 * Where the PostgreSQL tests run: the server at DATABASE_URL when it is set (.ci/run sets it), else
 * an in-process PGlite, so `npm test` passes on a fresh machine. Each backing gets its own schema,
 * dropped on cleanup.
 */
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
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create();
  return {
    client: db,
    connect: async () => ({ client: db, end: async () => {} }),
    end: () => db.close(),
  };
}
