/**
 * The stores' writer threads run whatever flags the host process has: a worker inherits
 * `process.execArgv`, and under `--input-type=module` its `eval` script would be read as a module
 * (`require is not defined`). A host started as `node --input-type=module -e "…"` opens a SQLite
 * realm and writes a checkpoint through the writer thread.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workerExecArgv } from '../../src/stores/parts-thread';

const ROOT = new URL('../..', import.meta.url).pathname;

describe('writer threads under the host process flags', () => {
  it('inherit the host flags, but none under --input-type (its script is plain JavaScript)', () => {
    expect(workerExecArgv(['--import', 'tsx', '--max-old-space-size=100'])).toBeUndefined();
    expect(workerExecArgv(['--import', 'tsx', '--input-type=module', '-e', 'x()'])).toEqual([]);
    expect(workerExecArgv(['--input-type', 'module'])).toEqual([]);
  });

  it('run from a host started with node --input-type=module -e', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chat-realm-input-type-'));
    try {
      const src = (path: string) => JSON.stringify(new URL(path, `file://${ROOT}`).href);
      const script = `
        import { openRealm } from ${src('src/host/realm-handle.ts')};
        import { sqliteStore } from ${src('src/stores/sqlite/index.ts')};
        import { realmBuilder } from ${src('src/testing/index.ts')};
        const snapshot = realmBuilder().user({ full_name: 'Iago', role: 200 }).toSnapshot();
        const store = sqliteStore({ filename: ${JSON.stringify(join(dir, 'realm.db'))} });
        const realm = await openRealm({ store, snapshot });
        await realm.checkpoint();
        await realm.close();
        console.log('ok ' + realm.version);
      `;
      const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(child.stderr).not.toMatch(/require is not defined/);
      expect({ status: child.status, out: child.stdout.trim() }).toEqual({ status: 0, out: 'ok 0' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);
});
