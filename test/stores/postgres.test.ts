import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRealm } from '../../src/host/realm-handle';
import { ALL_OPS, appendMark } from '../support/host-ops';
import { cast, devSnapshot } from '../support/realm';
import type { RealmStore } from '../../src/host/store';
import { postgresStore } from '../../src/stores/postgres/index';
import { storeConformance } from './conformance';
import { openDatabase, uniqueSchema, usingServer, type PgHandle } from './pg-backing';

let db: PgHandle;
beforeAll(async () => {
  db = await openDatabase();
}, 60_000);
afterAll(async () => {
  await db.end();
});

/** A conformance backing: stores opened by `open` in a fresh schema, damaged and inspected through `db`. */
function backing(open: (schema: string, ends: Array<() => Promise<void>>) => Promise<RealmStore>) {
  return async () => {
    const schema = uniqueSchema();
    const ends: Array<() => Promise<void>> = [];
    return {
      open: () => open(schema, ends),
      damageChange: async (version: number, payload: string, checksum?: number) => {
        await db.client.query(
          `UPDATE "${schema}".chat_realm_changes SET payload = $1, checksum = coalesce($4, checksum)
            WHERE realm = $2 AND version = $3`,
          [payload, 'conformance', version, checksum ?? null],
        );
      },
      dropChangesFrom: async (version: number) => {
        await db.client.query(
          `DELETE FROM "${schema}".chat_realm_changes WHERE realm = $1 AND version >= $2`,
          ['conformance', version],
        );
      },
      cleanup: async () => {
        await db.client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        for (const end of ends.splice(0)) await end();
      },
      countCheckpointParts: async () => {
        const { rows } = await db.client.query(
          `SELECT count(*) AS n FROM "${schema}".chat_realm_checkpoint_parts`,
        );
        return Number((rows[0] as { n: unknown }).n);
      },
    };
  };
}

storeConformance(
  usingServer ? 'postgres (DATABASE_URL)' : 'postgres (PGlite)',
  backing(async (schema, ends) => {
    const conn = await db.connect();
    ends.push(conn.end);
    return postgresStore({ client: conn.client, realm: 'conformance', schema });
  }),
);

// With a connection string the store opens its own pool, and checkpoint parts go through the
// writer thread (its own connection): the whole shared suite again, that way.
if (usingServer) {
  const url = process.env['DATABASE_URL']!;
  storeConformance(
    'postgres (connectionString: writer thread)',
    backing((schema) => postgresStore({ connectionString: url, realm: 'conformance', schema })),
  );
}

describe('postgres writer thread', () => {
  it('needs a connection string of its own', async () => {
    await expect(
      postgresStore({ client: db.client, realm: 'r', schema: uniqueSchema(), writerThread: true }),
    ).rejects.toThrow(/writerThread needs a connectionString/);
  });

  it.runIf(usingServer)(
    'fails a checkpoint whose thread lost its connection, and writes the next one on a new thread',
    async () => {
      const schema = uniqueSchema();
      const url = process.env['DATABASE_URL']!;
      const store = await postgresStore({ connectionString: url, realm: 'thread', schema, listen: false });
      const h = await openRealm({ store, snapshot: devSnapshot(), operations: ALL_OPS, checkpoints: false });
      try {
        await h.run(appendMark, { userId: cast.hamlet }, { mark: 'a' });
        await h.checkpoint(); // the thread starts, and keeps its connection
        const parts = `INSERT INTO "${schema}"."chat_realm_checkpoint_parts"%`;
        const { rows } = await db.client.query(
          `SELECT pg_terminate_backend(pid) AS gone FROM pg_stat_activity WHERE query LIKE $1`,
          [parts],
        );
        expect(rows).toHaveLength(1);
        await h.run(appendMark, { userId: cast.hamlet }, { mark: 'b' });
        await expect(h.checkpoint()).rejects.toThrow(/terminat/i);
        await h.run(appendMark, { userId: cast.hamlet }, { mark: 'c' });
        await h.checkpoint();
        const { rows: kept } = await db.client.query(
          `SELECT version FROM "${schema}".chat_realm_checkpoints WHERE realm = 'thread' ORDER BY version`,
        );
        expect(kept.map((r) => Number((r as { version: unknown }).version))).toEqual([1, 3]);
        const state = h.state;
        await h.close();
        const again = await openRealm({
          store: await postgresStore({ connectionString: url, realm: 'thread', schema, listen: false }),
          operations: ALL_OPS,
          checkpoints: false,
        });
        expect(again.version).toBe(3);
        expect(again.state).toEqual(state);
        await again.close();
      } finally {
        await h.close().catch(() => {});
        await db.client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      }
    },
  );
});

describe('postgres notifications', () => {
  it('lets a handle catch up (and tell its subscribers) when another writer commits, without running anything', async () => {
    const schema = uniqueSchema();
    try {
      const a = await db.connect();
      const b = await db.connect();
      const h1 = await openRealm({
        store: await postgresStore({ client: a.client, realm: 'notify', schema }),
        snapshot: devSnapshot(),
        operations: ALL_OPS,
      });
      const h2 = await openRealm({
        store: await postgresStore({ client: b.client, realm: 'notify', schema }),
        operations: ALL_OPS,
      });
      const heard = new Promise<number>((resolve) => h2.subscribe((n) => resolve(n.version)));
      await h1.run(appendMark, { userId: cast.hamlet }, { mark: '!' });
      expect(await heard).toBe(1);
      expect(h2.version).toBe(1);
      await h1.close();
      await h2.close();
      await a.end();
      await b.end();
    } finally {
      await db.client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }
  });
});
