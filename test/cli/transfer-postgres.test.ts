/**
 * `chat-realm export` / `import` with `--database-url` (and `DATABASE_URL`, `--schema`), in process.
 * With DATABASE_URL set: that server. Without it: `pg` is replaced by a Pool-shaped wrapper around
 * one in-process PGlite (the commands only ever see a URL), so `npm test` covers the commands on a
 * fresh machine too; the URL is then a placeholder nobody connects to.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run } from '../../src/cli/run';
import { createRealm } from '../../src/core/snapshot/create';
import { snapshotRealm } from '../../src/core/snapshot/export';
import { createRealmFromChunks } from '../../src/core/snapshot/snapshot-stream';
import { openRealm } from '../../src/host/realm-handle';
import { postgresStore } from '../../src/stores/postgres/index';
import { devSnapshot } from '../support/realm';
import { cast } from '../support/realm';
import { openDatabase, uniqueSchema, usingServer, type PgHandle } from '../stores/pg-backing';

// Decided when the file loads: the tests set DATABASE_URL themselves before `pg` is first imported.
const shared = vi.hoisted(() => ({
  db: undefined as PgHandle | undefined,
  server: Boolean(process.env['DATABASE_URL']),
}));

vi.mock('pg', async (importOriginal) => {
  if (shared.server) return importOriginal();
  // One PGlite for every "pool" the commands create; ending a pool leaves it open.
  class Pool {
    query(text: string, params?: unknown[]) {
      return shared.db!.client.query(text, params);
    }
    listen(channel: string, callback: (payload: string) => void) {
      return (
        shared.db!.client as unknown as {
          listen(c: string, cb: (p: string) => void): Promise<() => Promise<void>>;
        }
      ).listen(channel, callback);
    }
    async end() {}
  }
  return { default: { Pool } };
});

const URL_ = process.env['DATABASE_URL'] || 'postgres://pglite@localhost/in-process';
const dir = mkdtempSync(join(tmpdir(), 'chat-realm-transfer-pg-'));
const schemas: string[] = [];
const schema = () => {
  const s = uniqueSchema();
  schemas.push(s);
  return s;
};

beforeAll(async () => {
  shared.db = await openDatabase();
}, 60_000);
afterAll(async () => {
  for (const s of schemas) await shared.db!.client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
  await shared.db!.end();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const saved = { ...process.env };
  // The commands read DATABASE_URL themselves; unless a test sets it, they see none.
  delete process.env['DATABASE_URL'];
  Object.assign(process.env, env);
  try {
    const code = await run(args, { out: (t) => (stdout += `${t}\n`), err: (t) => (stderr += `${t}\n`) });
    return { code, stdout, stderr };
  } finally {
    process.env = saved;
  }
}

describe(`chat-realm export / import with --database-url (${usingServer ? 'PostgreSQL server' : 'PGlite'})`, () => {
  it('imports a snapshot into a schema, exports it back the same, and refuses a second import', async () => {
    const source = join(dir, 'source.json');
    writeFileSync(source, JSON.stringify(devSnapshot()));
    const s = schema();
    const imported = await cli(['import', '--snapshot', source, '--database-url', URL_, '--schema', s]);
    expect(imported).toMatchObject({ code: 0 });
    expect(imported.stdout).toContain(`schema ${s}`);

    const out = join(dir, 'out.ndjson');
    expect((await cli(['export', '--database-url', URL_, '--schema', s, '--out', out])).code).toBe(0);
    const back = createRealmFromChunks([readFileSync(out, 'utf8')]);
    const stored = await openRealm({
      store: await postgresStore({ client: shared.db!.client, realm: 'default', schema: s }),
    });
    expect(snapshotRealm(back)).toEqual(snapshotRealm(stored.state));
    expect(back.users.size).toBe(createRealm(devSnapshot()).users.size);
    await stored.close();

    const again = await cli(['import', '--snapshot', out, '--database-url', URL_, '--schema', s]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already holds a realm; import into another --schema');
  });

  it('reads DATABASE_URL when no --db is given, and exports the latest version (changes after the checkpoint)', async () => {
    const s = schema();
    const realm = 'second';
    const handle = await openRealm({
      store: await postgresStore({ client: shared.db!.client, realm, schema: s }),
      snapshot: devSnapshot(),
      checkpoints: false,
    });
    // A built-in operation: the command replays the change with the built-in operations.
    await handle.run('updateSettings', { userId: cast.hamlet }, { full_name: 'Prince Hamlet' });
    const expected = snapshotRealm(handle.state);
    await handle.close();

    const env = { DATABASE_URL: URL_ };
    const exported = await cli(['export', '--schema', s, '--realm', realm], env);
    expect(exported.code).toBe(0);
    expect(exported.stderr).toContain('Exported version 1 of PostgreSQL');
    expect(snapshotRealm(createRealm(JSON.parse(exported.stdout)))).toEqual(expected);
    // Another realm of the same schema is not there; --db still means a SQLite file.
    const none = await cli(['export', '--schema', s], env);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('holds no realm');
  });

  it('refuses --schema without a URL and --db with --database-url', async () => {
    const noUrl = await cli(['export', '--schema', 'x']);
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain('--schema needs --database-url');
    const both = await cli(['import', '--snapshot', 'x.json', '--db', 'x.db', '--database-url', URL_]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--database-url and --db exclude each other');
  });
});
