/**
 * Placement (issue 30, step 4): `chat-realm serve --database-url --all-realms --max-realms N`
 * processes share the realms of one database by their write leases. Eight realms over two
 * processes holding at most five each: every realm is held by exactly one process, each answers
 * for every realm (passing on what it does not hold), and when one is SIGKILLed a new process and
 * the survivor take its realms within a bounded time, with the writes acknowledged before still
 * there. Needs DATABASE_URL (child processes cannot share PGlite).
 */
import type { ChildProcess } from 'node:child_process';
import type { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRealm } from '../../src/host/realm-handle';
import { postgresStore } from '../../src/stores/postgres/index';
import { devSnapshot } from '../support/realm';
import { uniqueSchema, usingServer } from '../stores/pg-backing';
import { spawnServe, type ServeProcess } from '../support/serve-process';

const URL_ = process.env['DATABASE_URL'] ?? '';
const REALMS = Array.from({ length: 8 }, (_, i) => `team${i}`);
const LEASE_MS = 400;
const HAMLET = 'Basic ' + btoa('hamlet@zulip.com:hamletKKKKKKKKKKKKKKKKKKKKApiKey');
const schema = uniqueSchema();
const children: ChildProcess[] = [];
let admin: Pool;

async function serve(): Promise<ServeProcess> {
  const started = await spawnServe([
    ...['--database-url', URL_, '--schema', schema],
    ...['--all-realms', '--max-realms', '5', '--lease-ms', String(LEASE_MS), '--port', '0'],
  ]);
  children.push(started.child);
  return started;
}

/** Which process (by address) holds each realm, live leases only. */
async function holders(): Promise<Map<string, string>> {
  const { rows } = await admin.query<{ realm: string; address: string }>(
    `SELECT realm, address FROM "${schema}".chat_realm_leases WHERE expires_at > now()`,
  );
  return new Map(rows.map((r) => [r.realm, r.address]));
}

async function settle(want: (h: Map<string, string>) => boolean, ms: number): Promise<Map<string, string>> {
  const until = performance.now() + ms;
  for (;;) {
    const h = await holders();
    if (want(h) || performance.now() > until) return h;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const rename = (site: string, realm: string, name: string) =>
  fetch(`${site}/realm/${realm}/api/v1/settings`, {
    method: 'PATCH',
    headers: { authorization: HAMLET, 'content-type': 'application/x-www-form-urlencoded' },
    body: `full_name=${name}`,
  });
const me = async (site: string, realm: string) => {
  const res = await fetch(`${site}/realm/${realm}/api/v1/users/me`, { headers: { authorization: HAMLET } });
  return { status: res.status, body: (await res.json()) as { full_name?: string } };
};

describe.runIf(usingServer)('serve --all-realms: realms placed over processes by their leases', () => {
  beforeAll(async () => {
    const pg = (await import('pg')).default;
    admin = new pg.Pool({ connectionString: URL_, max: 2 });
    for (const realm of REALMS) {
      const h = await openRealm({
        store: await postgresStore({ client: admin, realm, schema, listen: false }),
        snapshot: devSnapshot(),
      });
      await h.close();
    }
  }, 60_000);
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin?.end();
  });

  it('spreads the realms, answers for each through any process, and moves a dead process’s realms', async () => {
    const a = await serve();
    const b = await serve();
    let h = await settle((m) => m.size === REALMS.length, 10_000);
    expect(h.size).toBe(REALMS.length);
    const count = (site: string) => [...h.values()].filter((x) => x === site).length;
    expect(count(a.site) + count(b.site)).toBe(REALMS.length);
    expect(count(a.site)).toBeLessThanOrEqual(5);
    expect(count(b.site)).toBeLessThanOrEqual(5);

    // Every realm answers through either process, writes included.
    for (const realm of REALMS) {
      const via = realm.endsWith('0') || realm.endsWith('2') ? a.site : b.site;
      expect((await rename(via, realm, `Hamlet of ${realm}`)).status).toBe(200);
      for (const site of [a.site, b.site]) {
        const got = await me(site, realm);
        expect(got.status).toBe(200);
        expect(got.body.full_name).toBe(`Hamlet of ${realm}`);
      }
    }

    // a dies: b and a newcomer take its realms within a few leases, with their acknowledged writes.
    const lost = [...h].filter(([, site]) => site === a.site).map(([realm]) => realm);
    const t0 = performance.now();
    a.child.kill('SIGKILL');
    const c = await serve();
    h = await settle((m) => m.size === REALMS.length && ![...m.values()].includes(a.site), 20_000);
    const ms = performance.now() - t0;
    expect([...h.values()].filter((x) => x === a.site)).toEqual([]);
    expect(h.size).toBe(REALMS.length);
    console.log(
      `placement: ${lost.length} realm(s) of the killed process placed again ${ms.toFixed(0)} ms after the SIGKILL (a new process started meanwhile)`,
    );
    for (const realm of lost) {
      const got = await me(c.site, realm);
      expect(got.status).toBe(200);
      expect(got.body.full_name).toBe(`Hamlet of ${realm}`);
    }
    b.child.kill('SIGTERM');
    c.child.kill('SIGTERM');
  }, 120_000);
});
