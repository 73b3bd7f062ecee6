import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
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
    countCheckpointParts: async () => {
      const db = new Database(filename, { readonly: true });
      try {
        return (db.prepare('SELECT count(*) AS n FROM checkpoint_parts').get() as { n: number }).n;
      } finally {
        db.close();
      }
    },
  };
}
