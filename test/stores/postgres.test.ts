import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checksum } from '../../src/host/checksum';
import { openRealm } from '../../src/host/realm-handle';
import type { CheckpointStream } from '../../src/host/store';
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

// As for SQLite (test/stores/sqlite.test.ts): the parts of an interrupted write at a version whose
// row another write committed can never be used, and go with that write's pruning.
describe('postgres: pruning the parts of an interrupted checkpoint', () => {
  it('deletes them once the same version is committed', async () => {
    const schema = uniqueSchema();
    const conn = await db.connect();
    const store = await postgresStore({
      client: conn.client,
      realm: 'r',
      schema,
      checkpointBytesPerSecond: Infinity,
    });
    try {
      const part = new Uint8Array(1000).fill(7);
      const whole = new Uint8Array([...part, ...part]);
      const stream = (fail: boolean): CheckpointStream => ({
        version: 0,
        format: 3,
        parts: (async function* () {
          yield part.slice();
          yield part.slice();
          if (fail) throw new Error('interrupted');
        })(),
        checksum: () => checksum(whole),
      });
      const count = async () => {
        const { rows } = await db.client.query(
          `SELECT count(*) AS n FROM "${schema}".chat_realm_checkpoint_parts`,
        );
        return Number((rows[0] as { n: unknown }).n);
      };
      await expect(store.writeCheckpoint(stream(true))).rejects.toThrow('interrupted');
      expect(await count()).toBe(2);
      await store.writeCheckpoint(stream(false));
      expect(await count()).toBe(2);
      const loaded = await store.load();
      expect(loaded.checkpoint?.payload).toEqual(whole);
    } finally {
      await store.close();
      await conn.end();
      await db.client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }
  });
});
