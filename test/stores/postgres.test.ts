import { afterAll, beforeAll } from 'vitest';
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
    damageChange: async (version, payload) => {
      await db.client.query(
        `UPDATE "${schema}".chat_realm_changes SET payload = $1 WHERE realm = $2 AND version = $3`,
        [payload, 'conformance', version],
      );
    },
    cleanup: async () => {
      await db.client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      for (const end of ends.splice(0)) await end();
    },
  };
});
