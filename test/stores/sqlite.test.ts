import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { checksum } from '../../src/host/checksum';
import type { CheckpointStream } from '../../src/host/store';
import { sqliteStore } from '../../src/stores/sqlite/index';
import { storeConformance, type StoreBacking } from './conformance';

// Checkpoints written on the writer thread (the default), and on the calling thread.
for (const writerThread of [true, false]) {
  storeConformance(writerThread ? 'sqlite' : 'sqlite (no writer thread)', () => backing(writerThread));
}

async function backing(writerThread: boolean): Promise<StoreBacking> {
  const dir = mkdtempSync(join(tmpdir(), 'chat-realm-sqlite-'));
  const filename = join(dir, 'realm.db');
  return {
    open: async () => sqliteStore({ filename, realm: 'conformance', writerThread }),
    damageChange: async (version, payload, checksum) => {
      const db = new Database(filename);
      db.prepare(
        'UPDATE changes SET payload = ?, checksum = coalesce(?, checksum) WHERE realm = ? AND version = ?',
      ).run(payload, checksum ?? null, 'conformance', version);
      db.close();
    },
    dropChangesFrom: async (version) => {
      const db = new Database(filename);
      db.prepare('DELETE FROM changes WHERE realm = ? AND version >= ?').run('conformance', version);
      db.close();
    },
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

// A checkpoint write interrupted (a crash, or a failing stream) and then done again at the same
// version leaves parts under another key; the retry's row makes them unusable, so its pruning
// deletes them at once (before, they stayed until the version fell below the oldest kept one).
describe('sqlite: pruning the parts of an interrupted checkpoint', () => {
  for (const writerThread of [true, false]) {
    it(`deletes them once the same version is committed (writer thread: ${writerThread})`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'chat-realm-sqlite-'));
      const filename = join(dir, 'realm.db');
      const store = sqliteStore({ filename, realm: 'r', writerThread, checkpointBytesPerSecond: Infinity });
      try {
        const part = new Uint8Array(1000).fill(7);
        const stream = (fail: boolean): CheckpointStream => ({
          version: 0,
          format: 3,
          parts: (async function* () {
            yield part.slice();
            yield part.slice();
            if (fail) throw new Error('interrupted');
          })(),
          checksum: () => checksum(new Uint8Array([...part, ...part])),
        });
        await expect(store.writeCheckpoint(stream(true))).rejects.toThrow('interrupted');
        const count = () => {
          const db = new Database(filename, { readonly: true });
          try {
            return (db.prepare('SELECT count(*) AS n FROM checkpoint_parts').get() as { n: number }).n;
          } finally {
            db.close();
          }
        };
        expect(count()).toBe(2); // the interrupted write's parts, under its key
        await store.writeCheckpoint(stream(false));
        expect(count()).toBe(2); // only the committed write's
        const loaded = await store.load();
        expect(loaded.checkpoint?.version).toBe(0);
        expect(loaded.checkpoint?.payload).toEqual(new Uint8Array([...part, ...part]));
      } finally {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
