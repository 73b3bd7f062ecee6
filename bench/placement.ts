/**
 * Placement of 100 small realms over 4 `chat-realm serve --all-realms --max-realms 30` processes
 * (issue 30, step 4): how long until every realm is held, how they spread, reads and writes per
 * second over all realms through any process (requests for a realm held elsewhere are passed on),
 * and how long after one process is SIGKILLed its realms are held again by the survivors.
 *
 *   DATABASE_URL=postgres://… npx tsx bench/placement.ts     # prints Markdown
 *   REALMS=40 PROCS=2 …                                       # other sizes
 */
import type { ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { RealmSnapshotInput } from '../src/core/snapshot/format';
import { openRealm } from '../src/host/realm-handle';
import { postgresStore } from '../src/stores/postgres/index';
import { serve } from './scale-out';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const HAMLET = 'Basic ' + btoa('hamlet@zulip.com:hamletKKKKKKKKKKKKKKKKKKKKApiKey');
const LEASE_MS = 1000;

async function heldBy(admin: pg.Pool, schema: string): Promise<Map<string, string>> {
  const { rows } = await admin.query<{ realm: string; address: string }>(
    `SELECT realm, address FROM "${schema}".chat_realm_leases WHERE expires_at > now()`,
  );
  return new Map(rows.map((r) => [r.realm, r.address]));
}

async function until(f: () => Promise<boolean>, ms: number): Promise<number> {
  const t = performance.now();
  while (!(await f())) {
    if (performance.now() - t > ms) return Number.NaN;
    await new Promise((r) => setTimeout(r, 20));
  }
  return performance.now() - t;
}

export async function measurePlacement(url: string, realms: number, procs: number) {
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  const schema = `chat_realm_placement_${process.pid}`;
  const load = loadavg();
  const names = Array.from({ length: realms }, (_, i) => `org${i}`);
  const demo = readFileSync(`${ROOT}src/cli/demo-realm.json`, 'utf8');
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  const sites: { child: ChildProcess; url: string }[] = [];
  try {
    const seedStart = performance.now();
    // One realm seeded through a handle, the others cloned from its rows (a handle per realm
    // would write the same checkpoint a hundred times).
    const first = await openRealm({
      store: await postgresStore({ client: admin, realm: names[0]!, schema, listen: false }),
      snapshot: JSON.parse(demo) as RealmSnapshotInput,
    });
    await first.close();
    const others = names.slice(1);
    for (const table of ['checkpoints', 'checkpoint_parts', 'changes', 'heads']) {
      const { rows } = await admin.query<{ column_name: string }>(
        `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 AND column_name <> 'realm'`,
        [schema, `chat_realm_${table}`],
      );
      const cols = rows.map((r) => `"${r.column_name}"`).join(', ');
      await admin.query(
        `INSERT INTO "${schema}".chat_realm_${table} (realm, ${cols})
         SELECT n, ${cols} FROM "${schema}".chat_realm_${table}, unnest($1::text[]) AS n WHERE realm = $2`,
        [others, names[0]],
      );
    }
    const seedMs = performance.now() - seedStart;
    // Room for every realm on the survivors when one process dies.
    const max = String(Math.ceil(realms / Math.max(1, procs - 1)));
    const t0 = performance.now();
    const started = await Promise.all(
      Array.from({ length: procs }, () =>
        serve(url, schema, ['--all-realms', '--max-realms', max, '--lease-ms', String(LEASE_MS)]),
      ),
    );
    for (const s of started) sites.push({ child: s.child, url: `http://${s.host}:${s.port}` });
    const placedMs = await until(async () => (await heldBy(admin, schema)).size === realms, 60_000);
    const allMs = performance.now() - t0;
    const spread = [...(await heldBy(admin, schema)).values()].reduce(
      (m, a) => m.set(a, (m.get(a) ?? 0) + 1),
      new Map<string, number>(),
    );
    // Requests over every realm through every process, round robin, 32 at a time.
    const drive = async (write: boolean, ms: number) => {
      let ok = 0;
      let n = 0;
      const stopAt = performance.now() + ms;
      await Promise.all(
        Array.from({ length: 32 }, async (_, c) => {
          while (performance.now() < stopAt) {
            const i = n++;
            const site = sites[c % sites.length]!.url;
            const realm = names[i % names.length]!;
            const res = await fetch(`${site}/realm/${realm}/api/v1/${write ? 'settings' : 'users/me'}`, {
              method: write ? 'PATCH' : 'GET',
              headers: write
                ? { authorization: HAMLET, 'content-type': 'application/x-www-form-urlencoded' }
                : { authorization: HAMLET },
              ...(write ? { body: `full_name=Hamlet+${i}` } : {}),
            }).catch(() => undefined);
            await res?.arrayBuffer();
            if (res?.status === 200) ok++;
          }
        }),
      );
      return (ok / ms) * 1000;
    };
    await drive(false, 1000);
    const readsPerSecond = await drive(false, 3000);
    const writesPerSecond = await drive(true, 3000);
    // One process dies: its realms are held again by the survivors (each has room for a third of them).
    const victim = sites[0]!;
    const lost = [...(await heldBy(admin, schema))].filter(([, a]) => a === victim.url).length;
    const k0 = performance.now();
    victim.child.kill('SIGKILL');
    const replacedMs = await until(async () => {
      const h = await heldBy(admin, schema);
      return h.size === realms && ![...h.values()].includes(victim.url);
    }, 60_000);
    const killMs = performance.now() - k0;
    return {
      realms,
      procs,
      max,
      seedMs,
      placedMs,
      allMs,
      spread: [...spread.values()].sort((a, b) => b - a),
      readsPerSecond,
      writesPerSecond,
      lost,
      replacedMs: Number.isNaN(replacedMs) ? Number.NaN : killMs,
      load,
      loadAfter: loadavg(),
    };
  } finally {
    for (const s of sites) if (s.child.exitCode === null) s.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1000));
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  }
}

export function placementMarkdown(r: Awaited<ReturnType<typeof measurePlacement>>): string {
  const fmt = (xs: readonly number[]) => xs.map((x) => x.toFixed(2)).join(' / ');
  return [
    `## Placement: ${r.realms} small realms over ${r.procs} processes (\`serve --all-realms\`)`,
    '',
    `Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, load average ${fmt(r.load)} at the start, ${fmt(r.loadAfter)} at the end. \`npx tsx bench/placement.ts\`.`,
    `${r.realms} copies of the demo organization in one schema (seeded in ${(r.seedMs / 1000).toFixed(1)} s), ${r.procs} processes with \`--max-realms ${r.max}\` and \`--lease-ms ${LEASE_MS}\` started together; 32 clients send requests round robin over every realm and every process (a process passes on what it does not hold).`,
    '',
    '| figure | value |',
    '|---|---:|',
    `| every realm held, after the processes were started (includes their start-up) | ${(r.allMs / 1000).toFixed(1)} s |`,
    `| realms per process | ${r.spread.join(', ')} |`,
    `| reads (GET /users/me) over all realms | ${r.readsPerSecond.toFixed(0)}/s |`,
    `| writes (PATCH /settings) over all realms | ${r.writesPerSecond.toFixed(0)}/s |`,
    `| one process SIGKILLed: its ${r.lost} realms held again by the survivors after | ${Number.isNaN(r.replacedMs) ? 'not within 60 s' : `${(r.replacedMs / 1000).toFixed(2)} s`} |`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const url = process.env['DATABASE_URL'];
  if (!url) throw new Error('set DATABASE_URL');
  const r = await measurePlacement(
    url,
    Number(process.env['REALMS'] ?? 100),
    Number(process.env['PROCS'] ?? 4),
  );
  console.log(placementMarkdown(r));
}
