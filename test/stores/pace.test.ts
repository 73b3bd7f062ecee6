import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRealm } from '../../src/host/realm-handle';
import { snapshotRealm } from '../../src/core/snapshot/export';
import { simulateRealm } from '../../src/simulate/simulate';
import { checkPace, DEFAULT_CHECKPOINT_PACE, pacer } from '../../src/stores/pace';
import { postgresStore } from '../../src/stores/postgres/index';
import { sqliteStore } from '../../src/stores/sqlite/index';

describe('checkpoint pacing', () => {
  it('waits until the bytes written so far are due at the pace, counted from the first part', () => {
    let clock = 1000;
    const due = pacer(1024 * 1024, () => clock); // 1 MiB/s
    expect(due(256 * 1024)).toBe(250); // a quarter of a second's worth, written at once
    clock += 250;
    expect(due(256 * 1024)).toBe(250);
    clock += 600; // the disk was slow: behind the pace, no wait
    expect(due(256 * 1024)).toBe(0);
    clock += 10;
    expect(due(256 * 1024)).toBeCloseTo(140); // due at 1000 ms after the first part
  });

  it('never waits when unpaced', () => {
    const due = pacer(Infinity, () => 0);
    expect(due(1 << 30)).toBe(0);
  });

  it('takes a positive pace or Infinity, and refuses anything else with a clear error', () => {
    expect(checkPace(undefined)).toBe(DEFAULT_CHECKPOINT_PACE);
    expect(checkPace(Infinity)).toBe(Infinity);
    expect(checkPace(1)).toBe(1);
    for (const bad of [0, -1, Number.NaN]) {
      expect(() => checkPace(bad)).toThrow(/checkpointBytesPerSecond must be a positive number/);
    }
  });

  it('the stores check the option when they open', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chat-realm-pace-'));
    try {
      expect(() => sqliteStore({ filename: join(dir, 'a.db'), checkpointBytesPerSecond: 0 })).toThrow(
        /checkpointBytesPerSecond/,
      );
      await expect(
        postgresStore({ connectionString: 'postgres://unused', realm: 'r', checkpointBytesPerSecond: -5 }),
      ).rejects.toThrow(/checkpointBytesPerSecond/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a paced checkpoint on the writer thread is complete and loads back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chat-realm-pace-'));
    const filename = join(dir, 'realm.db');
    try {
      const initialState = simulateRealm({ preset: 'small', seed: 3 });
      // A pace slow enough that the thread waits between parts.
      const store = sqliteStore({ filename, checkpointBytesPerSecond: 2 * 1024 * 1024 });
      const realm = await openRealm({ store, initialState, checkpoints: false });
      await realm.checkpoint();
      const version = realm.version;
      await realm.close();
      const db = new Database(filename, { readonly: true });
      const parts = db.prepare('SELECT count(*) AS n FROM checkpoint_parts').get() as { n: number };
      db.close();
      expect(parts.n).toBeGreaterThan(1);
      const again = await openRealm({ store: sqliteStore({ filename }) });
      expect(again.version).toBe(version);
      expect(snapshotRealm(again.state)).toEqual(snapshotRealm(initialState));
      await again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
