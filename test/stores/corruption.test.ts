/**
 * A damaged store is refused with an error naming where, never loaded half-way. (Damaged change
 * records are covered for every adapter by the conformance suite, and record-level damage by
 * test/host/realm-handle.test.ts; this file damages SQLite files themselves.)
 */
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { startServe } from '../../src/cli/serve';
import { runImport } from '../../src/cli/transfer';
import { snapshotRealm } from '../../src/core/snapshot/export';
import { openRealm } from '../../src/host/realm-handle';
import { CorruptStoreError } from '../../src/host/errors';
import { sqliteStore } from '../../src/stores/sqlite/index';
import { ALL_OPS, appendMark } from '../support/host-ops';
import { cast, devSnapshot } from '../support/realm';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A closed SQLite store holding the dev realm with 200 changes after checkpoint 0. */
async function populated(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'chat-realm-corrupt-'));
  dirs.push(dir);
  const filename = join(dir, 'realm.db');
  const h = await openRealm({
    store: sqliteStore({ filename }),
    snapshot: devSnapshot(),
    operations: ALL_OPS,
    checkpoints: false,
  });
  for (let i = 0; i < 200; i++)
    await h.run(appendMark, { userId: cast.hamlet }, { mark: `${'x'.repeat(200)}${i}` });
  await h.close();
  return filename;
}

async function openError(filename: string): Promise<unknown> {
  try {
    const h = await openRealm({ store: sqliteStore({ filename }), operations: ALL_OPS });
    await h.close();
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('sqlite corruption', () => {
  it('refuses a truncated database file, naming it', async () => {
    const filename = await populated();
    truncateSync(filename, Math.floor(statSync(filename).size * 0.6));
    const error = await openError(filename);
    expect(error).toBeInstanceOf(CorruptStoreError);
    expect((error as Error).message).toContain(`Corrupt realm store at sqlite ${filename}, realm "default"`);
  });

  it('refuses a file that is not a database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chat-realm-corrupt-'));
    dirs.push(dir);
    const filename = join(dir, 'realm.db');
    writeFileSync(
      filename,
      'this is not a database, just some text that is long enough to have a header'.repeat(20),
    );
    const error = await openError(filename);
    expect(error).toBeInstanceOf(CorruptStoreError);
    expect((error as Error).message).toMatch(/file is not a database/);
  });

  it('refuses a damaged checkpoint, naming it', async () => {
    const filename = await populated();
    const db = new Database(filename);
    // Checkpoints are stored in parts; cut the first one short.
    db.prepare(
      'UPDATE checkpoint_parts SET data = substr(data, 1, 5000) WHERE version = 0 AND part = 0',
    ).run();
    db.close();
    const error = await openError(filename);
    expect(error).toBeInstanceOf(CorruptStoreError);
    expect((error as Error).message).toBe(
      `Corrupt realm store at sqlite ${filename}, realm "default", checkpoint 0: checksum mismatch (the checkpoint is damaged or truncated)`,
    );
  });

  it('refuses a checkpoint whose parts are not all stored, naming it', async () => {
    const filename = await populated();
    const db = new Database(filename);
    db.prepare('DELETE FROM checkpoint_parts WHERE version = 0 AND part = 0').run();
    db.close();
    const error = await openError(filename);
    expect((error as Error).message).toBe(
      `Corrupt realm store at sqlite ${filename}, realm "default", checkpoint 0: 0 of its 1 parts are stored`,
    );
  });

  it('refuses a missing change in the middle, naming the one after the gap', async () => {
    const filename = await populated();
    const db = new Database(filename);
    db.prepare('DELETE FROM changes WHERE version = 120').run();
    db.close();
    const error = await openError(filename);
    expect((error as Error).message).toBe(
      `Corrupt realm store at sqlite ${filename}, realm "default", change 121: expected change 120 next (a change is missing)`,
    );
  });
});

describe('sqlite: a damaged store is refused, never loaded at an older version', () => {
  it('refuses or fully loads after a bit flip anywhere in the changes table (never an older version)', async () => {
    const filename = await populated();
    const good = await openRealm({
      store: sqliteStore({ filename }),
      operations: ALL_OPS,
      checkpoints: false,
    });
    const head = good.version;
    const expected = snapshotRealm(good.state);
    await good.close();
    const db = new Database(filename, { readonly: true });
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const pages = (
      db.prepare("SELECT pageno FROM dbstat WHERE name = 'changes'").all() as Array<{
        pageno: number;
      }>
    ).map((r) => r.pageno);
    db.close();
    expect(pages.length).toBeGreaterThan(5);
    const original = readFileSync(filename);
    let seed = 99;
    const next = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    let refused = 0;
    for (let trial = 0; trial < 24; trial++) {
      const page = pages[next(pages.length)]!;
      // Past the page header, into cells and their keys; any bit.
      const at = (page - 1) * pageSize + 8 + next(pageSize - 8);
      const damaged = Buffer.from(original);
      damaged[at] = damaged[at]! ^ (1 << next(8));
      writeFileSync(filename, damaged);
      const outcome = await openRealm({
        store: sqliteStore({ filename }),
        operations: ALL_OPS,
        checkpoints: false,
      })
        .then(async (h) => {
          const loaded = { version: h.version, state: snapshotRealm(h.state) };
          await h.close();
          return loaded;
        })
        .catch((e: unknown) => e);
      if (outcome instanceof Error) {
        expect(outcome).toBeInstanceOf(CorruptStoreError);
        expect(outcome.message).toContain(`Corrupt realm store at sqlite ${filename}`);
        refused++;
      } else {
        // Only a flip in unused bytes loads, and then it loads everything.
        expect(outcome).toEqual({ version: head, state: expected });
      }
    }
    expect(refused).toBeGreaterThan(0);
  });

  it('refuses, instead of loading version 99 of 200, when a bit flip in one key hides the rows after it', async () => {
    // The issue's reproduction: one flipped bit in a row's realm key ("default" → "defaulu") puts
    // that row out of order, so SQLite's range scan for the realm stops there and returns a
    // consistent-looking prefix of the log. Only the head record tells it is not the end.
    const filename = await populated();
    const bytes = readFileSync(filename);
    const payload = bytes.indexOf(Buffer.from('{"format":3,"version":100,'));
    expect(payload).toBeGreaterThan(0);
    const key = bytes.lastIndexOf(Buffer.from('default'), payload);
    expect(payload - key).toBeLessThan(16);
    bytes[key + 6] = bytes[key + 6]! ^ 0x01;
    writeFileSync(filename, bytes);
    const error = await openError(filename);
    expect(error).toBeInstanceOf(CorruptStoreError);
    expect((error as Error).message).toBe(
      `Corrupt realm store at sqlite ${filename}, realm "default", change 100: the change log ends at change 99, but the store's head is change 200 (changes 100–200 are missing)`,
    );
  });

  it('refuses a log whose last rows were deleted, naming the first missing change', async () => {
    const filename = await populated();
    const db = new Database(filename);
    db.prepare('DELETE FROM changes WHERE version > 150').run();
    db.close();
    const error = await openError(filename);
    expect(error).toBeInstanceOf(CorruptStoreError);
    expect((error as Error).message).toBe(
      `Corrupt realm store at sqlite ${filename}, realm "default", change 151: the change log ends at change 150, but the store's head is change 200 (changes 151–200 are missing)`,
    );
  });

  it('refuses a bit flip in the head record', async () => {
    const filename = await populated();
    const db = new Database(filename);
    db.prepare('UPDATE heads SET checksum = (checksum | 4) - (checksum & 4)').run();
    db.close();
    const error = await openError(filename);
    expect((error as Error).message).toMatch(
      /realm "default", change 200: the last change does not match the store's head record/,
    );
  });

  it('refuses to initialize a file that holds bytes but no schema (a store whose -wal file is gone)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chat-realm-corrupt-'));
    dirs.push(dir);
    const filename = join(dir, 'realm.db');
    // While a store is open, its schema and data are in the -wal file; the main file holds only
    // SQLite's header (until a WAL checkpoint copies them over: the writer thread takes one after
    // every checkpoint, so it is off here). Copying the main file alone is what losing the -wal
    // file leaves.
    const store = sqliteStore({ filename, writerThread: false });
    const h = await openRealm({ store, snapshot: devSnapshot(), operations: ALL_OPS, checkpoints: false });
    const lost = join(dir, 'lost.db');
    copyFileSync(filename, lost);
    await h.close();
    expect(statSync(lost).size).toBeGreaterThan(0);
    const error = await openError(lost);
    expect(error).toBeInstanceOf(CorruptStoreError);
    expect((error as Error).message).toBe(
      `Corrupt realm store at sqlite ${lost}: the file is not empty but holds no schema: if it was a chat-realm store, its write-ahead log (${lost}-wal) is missing and its data with it; restore that file, or use another file`,
    );
  });
});

describe('serve and import never seed into an existing file, and leave no file when they refuse', () => {
  const quiet = { out: () => undefined, err: () => undefined };
  const tmp = () => {
    const dir = mkdtempSync(join(tmpdir(), 'chat-realm-seed-'));
    dirs.push(dir);
    return dir;
  };

  it('refuses to seed a file whose -wal file is missing, whatever the main file holds', async () => {
    const dir = tmp();
    const db = join(dir, 'x.db');
    // A store whose data is all in its -wal file (no WAL checkpoint yet: no writer thread).
    const h = await openRealm({
      store: sqliteStore({ filename: db, writerThread: false }),
      snapshot: devSnapshot(),
      checkpoints: false,
    });
    const lost = join(dir, 'lost.db');
    copyFileSync(db, lost); // the main file without its -wal: header only
    await h.close();
    await expect(startServe(['--db', lost, '--port', '0'], quiet)).rejects.toThrow(
      /holds no schema: if it was a chat-realm store, its write-ahead log .*-wal\) is missing/,
    );
    // The schema reached the main file (a clean close of an empty store), the realm did not.
    const schemaOnly = join(dir, 'schema.db');
    await sqliteStore({ filename: schemaOnly }).close();
    const refused = await startServe(['--db', schemaOnly, '--port', '0'], quiet).catch((e: unknown) => e);
    expect((refused as Error).message).toMatch(
      /is an existing file but holds no realm; serve only creates a realm in a new file\. If it held a realm, its -wal file may be missing/,
    );
    const db2 = new Database(schemaOnly, { readonly: true });
    expect(db2.prepare('SELECT count(*) AS n FROM checkpoints').get()).toEqual({ n: 0 });
    db2.close();
  });

  it('leaves no file when serve --snapshot or import refuses the snapshot', async () => {
    const dir = tmp();
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ format: 'chat-realm.snapshot/1', users: 'nope' }));
    const db = join(dir, 'new.db');
    await expect(startServe(['--snapshot', bad, '--db', db, '--port', '0'], quiet)).rejects.toThrow(
      /Invalid realm snapshot/,
    );
    expect(existsSync(db)).toBe(false);
    expect(existsSync(`${db}-wal`)).toBe(false);
    await expect(runImport(['--snapshot', bad, '--db', db], quiet)).rejects.toThrow(/Invalid realm snapshot/);
    expect(existsSync(db)).toBe(false);
  });
});
