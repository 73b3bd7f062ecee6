/**
 * A damaged store is refused with an error naming where, never loaded half-way. (Damaged change
 * records are covered for every adapter by the conformance suite, and record-level damage by
 * test/host/realm-handle.test.ts; this file damages SQLite files themselves.)
 */
import { mkdtempSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
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
    db.prepare('UPDATE checkpoints SET payload = substr(payload, 1, 5000) WHERE version = 0').run();
    db.close();
    const error = await openError(filename);
    expect(error).toBeInstanceOf(CorruptStoreError);
    expect((error as Error).message).toBe(
      `Corrupt realm store at sqlite ${filename}, realm "default", checkpoint 0: checksum mismatch (the checkpoint is damaged or truncated)`,
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
