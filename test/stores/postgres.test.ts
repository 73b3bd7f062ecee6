import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRealm } from '../../src/host/realm-handle';
import { ALL_OPS, appendMark } from '../support/host-ops';
import { cast, devSnapshot } from '../support/realm';
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

storeConformance(usingServer ? 'postgres (DATABASE_URL)' : 'postgres (PGlite)', async () => {
  const schema = uniqueSchema();
  const ends: Array<() => Promise<void>> = [];
  return {
    open: async () => {
      const conn = await db.connect();
      ends.push(conn.end);
      return postgresStore({ client: conn.client, realm: 'conformance', schema });
    },
    damageChange: async (version, payload, checksum) => {
      await db.client.query(
        `UPDATE "${schema}".chat_realm_changes SET payload = $1, checksum = coalesce($4, checksum)
          WHERE realm = $2 AND version = $3`,
        [payload, 'conformance', version, checksum ?? null],
      );
    },
    dropChangesFrom: async (version) => {
      await db.client.query(`DELETE FROM "${schema}".chat_realm_changes WHERE realm = $1 AND version >= $2`, [
        'conformance',
        version,
      ]);
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
