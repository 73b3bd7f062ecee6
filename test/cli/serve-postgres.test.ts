/**
 * One realm served by several `chat-realm serve --database-url` processes at once (each spawned as
 * a user would, on port 0, against one PostgreSQL schema), under concurrent conflicting writes:
 * no answer is a 5xx, nothing acknowledged is lost, every process sees the others' changes before
 * its next request, and every process's subscribers (`--verbose` prints them) get every change, in
 * version order, through notifications.
 *
 * It needs a PostgreSQL server (PGlite cannot be shared by processes), at DATABASE_URL: without it
 * no server is used, not even a local one (.ci/run sets DATABASE_URL when the local server is up).
 * In CI (CI set) a missing server fails this test loudly; elsewhere the test is skipped with a
 * warning, so `npm test` passes without services.
 */
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/run';
import { openRealm } from '../../src/host/realm-handle';
import { postgresStore } from '../../src/stores/postgres/index';
import { spawnServe, type ServeProcess } from '../support/serve-process';

const URL_ = process.env['DATABASE_URL'] ?? '';
/** For the refusals, which come before any connection: never connected to. */
const ARGS_URL = URL_ || 'postgres://postgres@127.0.0.1:5432/never-connected';
const PROCESSES = 3;
const WRITES_EACH = 40;
const HAMLET = 'Basic ' + btoa('hamlet@zulip.com:hamletKKKKKKKKKKKKKKKKKKKKApiKey');
const schema = `chat_realm_cli_${process.pid}_${Date.now().toString(36)}`;

/** Whether the server answers; the reason when it does not. */
async function reachable(): Promise<string | undefined> {
  if (URL_ === '') return 'DATABASE_URL is not set';
  const client = new pg.Client({ connectionString: URL_, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return (error as Error).message;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const unreachable = await reachable();
const inCi = Boolean(process.env['CI']);
if (unreachable !== undefined && !inCi) {
  console.warn(
    `serve-postgres.test.ts skipped: no PostgreSQL at ${URL_} (${unreachable}). Set DATABASE_URL to run it.`,
  );
}

type Server = ServeProcess;

function serve(): Promise<Server> {
  return spawnServe(['--database-url', URL_, '--schema', schema, '--port', '0', '--verbose'], {
    env: { ...process.env, DATABASE_URL: '' },
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.on('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

async function call(
  site: string,
  method: string,
  path: string,
  body?: string,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${site}/api/v1${path}`, {
    method,
    headers: {
      authorization: HAMLET,
      ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
    },
    ...(body === undefined ? {} : { body }),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

/** The versions of the changes a process's subscribers were told about (`--verbose` lines). */
const heard = (s: Server) => [...s.output().matchAll(/^change (\d+): /gm)].map((m) => Number(m[1]));

async function until(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('chat-realm serve --database-url: arguments', () => {
  const refused = async (args: string[]) => {
    let stderr = '';
    const code = await run(['serve', ...args], { out: () => undefined, err: (t) => (stderr += t) });
    return { code, stderr };
  };
  it('refuses a second store, --schema without PostgreSQL, and a URL that is not one, before connecting', async () => {
    expect(await refused(['--database-url', ARGS_URL, '--db', 'x.db'])).toEqual({
      code: 2,
      stderr: 'chat-realm: --database-url and --db exclude each other',
    });
    expect((await refused(['--database-url', ARGS_URL, '--memory'])).stderr).toMatch(/exclude each other/);
    // --db wins over DATABASE_URL, so --schema has no database to apply to.
    expect(await refused(['--db', 'x.db', '--schema', 's'])).toEqual({
      code: 2,
      stderr: 'chat-realm: --schema needs --database-url (or DATABASE_URL)',
    });
    expect(await refused(['--database-url', 'not a url'])).toEqual({
      code: 2,
      stderr: 'chat-realm: --database-url must be a URL like postgres://user@host:5432/db, got "not a url"',
    });
    expect((await refused(['--database-url', ARGS_URL, '--schema', 'Bad-Name'])).stderr).toMatch(
      /schema and tablePrefix must be lower-case identifiers/,
    );
  });
});

describe.skipIf(unreachable !== undefined && !inCi)(
  `several chat-realm serve --database-url processes on one realm (${PROCESSES} processes)`,
  () => {
    const servers: Server[] = [];
    let admin: pg.Pool;
    beforeAll(() => {
      if (unreachable !== undefined) {
        throw new Error(
          `The multi-process test needs PostgreSQL (CI is set, so it may not be skipped): ${URL_}: ${unreachable}`,
        );
      }
      admin = new pg.Pool({ connectionString: URL_, max: 2 });
    });
    afterAll(async () => {
      for (const s of servers) await stop(s.child);
      if (admin) {
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await admin.end();
      }
    });

    it('answers no 5xx under contention, loses nothing acknowledged, and keeps every process caught up in version order', async () => {
      // The first process seeds the demo organization; the others open it (two of them at once).
      servers.push(await serve());
      servers.push(...(await Promise.all(Array.from({ length: PROCESSES - 1 }, () => serve()))));
      for (const s of servers) expect(s.output()).toMatch(/version 0\) at /);

      // Conflicting writes (each snippet takes the next id) spread over the processes at once.
      const writes = Array.from({ length: PROCESSES * WRITES_EACH }, (_, i) => {
        const server = servers[i % PROCESSES]!;
        return call(server.site, 'POST', '/saved_snippets', `title=t${i}&content=multi-${i}`).then((r) => ({
          ...r,
          i,
        }));
      });
      const answers = await Promise.all(writes);
      expect(answers.filter((a) => a.status >= 500)).toEqual([]);
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
      const ids = answers.map((a) => a.json['saved_snippet_id'] as number);
      expect(new Set(ids).size).toBe(ids.length);

      // A change made in one process is seen by the next request to another.
      const renamed = await call(servers[0]!.site, 'PATCH', '/settings', 'full_name=Hamlet%20of%20Many');
      expect(renamed.status).toBe(200);
      for (const s of servers.slice(1)) {
        const me = await call(s.site, 'GET', '/users/me');
        expect(me.json['full_name']).toBe('Hamlet of Many');
      }

      // Every process's subscribers heard every change, in version order (through notifications
      // for the other processes' changes).
      const total = answers.length + 1;
      const all = Array.from({ length: total }, (_, i) => i + 1);
      await until(() => servers.every((s) => heard(s).length >= total), 15_000);
      for (const s of servers) expect(heard(s)).toEqual(all);

      // Stopped cleanly, and the store holds every acknowledged change.
      for (const s of servers) expect(await stop(s.child)).toBe(0);
      const realm = await openRealm({
        store: await postgresStore({ client: admin, realm: 'default', schema, listen: false }),
        checkpoints: false,
      });
      expect(realm.version).toBe(total);
      const snippets = realm.state.savedSnippets;
      for (const a of answers) {
        expect(snippets.get(a.json['saved_snippet_id'] as number)?.content).toBe(`multi-${a.i}`);
      }
      await realm.close();
    }, 180_000);
  },
);
