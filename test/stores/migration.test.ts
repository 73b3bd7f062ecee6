/**
 * Stores written by chat-realm 0.1.0 (schema 1, change format 2 with plain checksums, binary
 * checkpoint format 2) still load: the schema is upgraded at open (a head record is made from the
 * last change), old changes are verified by their own checksum, and the changes written after the
 * upgrade chain on from the last old one. The fixture was written by 0.1.0's code.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { snapshotRealm } from '../../src/core/snapshot/export';
import { openRealm } from '../../src/host/realm-handle';
import { postgresStore } from '../../src/stores/postgres/index';
import { sqliteStore } from '../../src/stores/sqlite/index';
import { openDatabase, uniqueSchema } from './pg-backing';
import { ALL_OPS, appendMark } from '../support/host-ops';
import { cast } from '../support/realm';

const dir = mkdtempSync(join(tmpdir(), 'chat-realm-migrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function copy(name: string): string {
  const filename = join(dir, name);
  copyFileSync('test/fixtures/stores/store-0.1.0.db', filename);
  return filename;
}

describe('a store written by 0.1.0', () => {
  it('loads at its version, upgrades its schema, and chains new changes on', async () => {
    const filename = copy('a.db');
    const h = await openRealm({ store: sqliteStore({ filename }), operations: ALL_OPS, checkpoints: false });
    expect(h.version).toBe(4);
    expect(h.state.users.get(cast.hamlet)?.full_name).toMatch(/ \ufeffAB$/);
    expect(h.state.users.get(cast.iago)?.full_name).toBe('Iago the Old');
    const db = new Database(filename, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(2);
    expect(db.prepare('SELECT version FROM heads').get()).toEqual({ version: 4 });
    db.close();
    await h.run(appendMark, { userId: cast.hamlet }, { mark: 'C' });
    const before = snapshotRealm(h.state);
    await h.close();
    // Old changes (plain checksums) and the new one (chained) load together.
    const again = await openRealm({
      store: sqliteStore({ filename }),
      operations: ALL_OPS,
      checkpoints: false,
    });
    expect(again.version).toBe(5);
    expect(snapshotRealm(again.state)).toEqual(before);
    // Its first new checkpoint is format 3; the change at the oldest kept checkpoint stays.
    await again.checkpoint();
    await again.close();
    const third = await openRealm({ store: sqliteStore({ filename }), operations: ALL_OPS });
    expect(snapshotRealm(third.state)).toEqual(before);
    await third.close();
  });

  it('still refuses a damaged old change or a lost tail', async () => {
    const filename = copy('b.db');
    const db = new Database(filename);
    db.prepare("UPDATE changes SET payload = replace(payload, 'B', 'Z') WHERE version = 3").run();
    db.close();
    const error = await openRealm({ store: sqliteStore({ filename }), operations: ALL_OPS }).catch(
      (e: unknown) => e,
    );
    expect((error as Error).message).toMatch(/realm "default", change 3: checksum mismatch/);
    const lost = copy('c.db');
    // Upgrade first (the head is recorded), then lose the last change.
    await sqliteStore({ filename: lost }).close();
    const db2 = new Database(lost);
    db2.prepare('DELETE FROM changes WHERE version = 4').run();
    db2.close();
    const tail = await openRealm({ store: sqliteStore({ filename: lost }), operations: ALL_OPS }).catch(
      (e: unknown) => e,
    );
    expect((tail as Error).message).toMatch(
      /change 4: the change log ends at change 3, but the store's head is change 4/,
    );
  });
});

describe('a PostgreSQL store written by 0.1.0', () => {
  it('is upgraded at open (head from its last change) and loads at its version', async () => {
    const db = await openDatabase();
    const schema = uniqueSchema();
    const t = (name: string) => `"${schema}".chat_realm_${name}`;
    try {
      // 0.1.0's tables, holding the 0.1.0 fixture's records.
      for (const sql of [
        `CREATE SCHEMA "${schema}"`,
        `CREATE TABLE ${t('meta')} (key text PRIMARY KEY, value text NOT NULL)`,
        `CREATE TABLE ${t('changes')} (realm text NOT NULL, version bigint NOT NULL, payload text NOT NULL,
           checksum bigint NOT NULL, PRIMARY KEY (realm, version))`,
        `CREATE TABLE ${t('checkpoints')} (realm text NOT NULL, version bigint NOT NULL, format integer NOT NULL,
           payload_text text, payload_bin bytea, checksum bigint NOT NULL, PRIMARY KEY (realm, version))`,
        `INSERT INTO ${t('meta')} (key, value) VALUES ('schema_version', '1')`,
      ])
        await db.client.query(sql);
      const fixture = new Database(copy('pg-source.db'), { readonly: true });
      for (const r of fixture.prepare('SELECT version, payload, checksum FROM changes').all() as Array<{
        version: number;
        payload: string;
        checksum: number;
      }>)
        await db.client.query(`INSERT INTO ${t('changes')} VALUES ('old', $1, $2, $3)`, [
          r.version,
          r.payload,
          r.checksum,
        ]);
      for (const r of fixture
        .prepare('SELECT version, format, payload, checksum FROM checkpoints')
        .all() as Array<{ version: number; format: number; payload: Buffer; checksum: number }>)
        await db.client.query(
          `INSERT INTO ${t('checkpoints')} (realm, version, format, payload_bin, checksum) VALUES ('old', $1, $2, $3, $4)`,
          [r.version, r.format, new Uint8Array(r.payload), r.checksum],
        );
      fixture.close();
      const open = () => postgresStore({ client: db.client, realm: 'old', schema, listen: false });
      const h = await openRealm({ store: await open(), operations: ALL_OPS, checkpoints: false });
      expect(h.version).toBe(4);
      expect(h.state.users.get(cast.iago)?.full_name).toBe('Iago the Old');
      const { rows } = await db.client.query(`SELECT value FROM ${t('meta')} WHERE key = 'schema_version'`);
      expect(rows).toEqual([{ value: '2' }]);
      await h.run(appendMark, { userId: cast.hamlet }, { mark: 'C' });
      const before = snapshotRealm(h.state);
      await h.close();
      const again = await openRealm({ store: await open(), operations: ALL_OPS });
      expect(again.version).toBe(5);
      expect(snapshotRealm(again.state)).toEqual(before);
      await again.close();
    } finally {
      await db.client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await db.end();
    }
  }, 120_000);
});
