/**
 * Failover time of `chat-realm serve --lease` (issue 30): two processes on one realm; the lease
 * holder is SIGKILLed while a client writes through the other one, and the time from the kill to
 * the first write that process acknowledges is measured (it waits for the lease to expire, takes
 * it, catches up and runs the write). The killed process is started again between rounds. With
 * the default lease (3000 ms) and a short one (500 ms).
 *
 *   DATABASE_URL=postgres://… npx tsx bench/lease-failover.ts        # prints Markdown
 *   ROUNDS=3 LEASES=500 DATABASE_URL=… npx tsx bench/lease-failover.ts
 */
import type { ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import pg from 'pg';
import { serve } from './scale-out';

const HAMLET = 'Basic ' + btoa('hamlet@zulip.com:hamletKKKKKKKKKKKKKKKKKKKKApiKey');

interface Site {
  readonly child: ChildProcess;
  readonly url: string;
}

async function start(url: string, schema: string, leaseMs: number): Promise<Site> {
  const s = await serve(url, schema, ['--lease', '--lease-ms', String(leaseMs)]);
  return { child: s.child, url: `http://${s.host}:${s.port}` };
}

async function write(site: Site, n: string): Promise<boolean> {
  try {
    const res = await fetch(`${site.url}/api/v1/settings`, {
      method: 'PATCH',
      headers: { authorization: HAMLET, 'content-type': 'application/x-www-form-urlencoded' },
      body: `full_name=Failover+${n}`,
      signal: AbortSignal.timeout(30_000),
    });
    return res.status === 200;
  } catch {
    return false;
  }
}

export interface FailoverRow {
  readonly leaseMs: number;
  readonly ms: readonly number[];
}

export async function measureFailover(url: string, rounds: number, leases: readonly number[]) {
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  const rows: FailoverRow[] = [];
  const load = loadavg();
  try {
    for (const leaseMs of leases) {
      const schema = `chat_realm_failover_${process.pid}_${leaseMs}`;
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      const sites = [await start(url, schema, leaseMs)];
      sites.push(await start(url, schema, leaseMs));
      const ms: number[] = [];
      try {
        for (let round = 0; round < rounds; round++) {
          const { rows: lease } = await admin.query<{ address: string }>(
            `SELECT address FROM "${schema}".chat_realm_leases`,
          );
          const leader = sites.findIndex((s) => s.url === lease[0]?.address);
          if (leader < 0) throw new Error('no lease holder among the processes');
          const survivor = sites[1 - leader]!;
          // Warm: writes through the survivor reach the holder.
          for (let i = 0; i < 20; i++) await write(survivor, `warm${round}x${i}`);
          const t0 = performance.now();
          sites[leader]!.child.kill('SIGKILL');
          let i = 0;
          while (!(await write(survivor, `after${round}x${i++}`)));
          ms.push(performance.now() - t0);
          console.error(
            `lease ${leaseMs} ms, round ${round + 1}: ${ms.at(-1)!.toFixed(0)} ms, load ${loadavg()[0]!.toFixed(2)}`,
          );
          sites[leader] = await start(url, schema, leaseMs);
        }
      } finally {
        for (const s of sites) s.child.kill('SIGTERM');
        await new Promise((r) => setTimeout(r, 500));
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      }
      rows.push({ leaseMs, ms });
    }
  } finally {
    await admin.end();
  }
  return { rows, load, loadAfter: loadavg() };
}

export function failoverMarkdown(r: Awaited<ReturnType<typeof measureFailover>>): string {
  const fmt = (xs: readonly number[]) => xs.map((x) => x.toFixed(2)).join(' / ');
  const sorted = (xs: readonly number[]) => [...xs].sort((a, b) => a - b);
  return [
    '## Failover of `serve --lease` (leader SIGKILL → first write acknowledged by the survivor)',
    '',
    `Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, load average ${fmt(r.load)} at the start, ${fmt(r.loadAfter)} at the end. \`npx tsx bench/lease-failover.ts\`.`,
    'Two processes on one realm; one client writes (PATCH /settings) through the one without the lease, sequentially; the holder is SIGKILLed and restarted between rounds.',
    '',
    '| lease | rounds | median ms | min ms | max ms |',
    '|---:|---:|---:|---:|---:|',
    ...r.rows.map((x) => {
      const s = sorted(x.ms);
      return `| ${x.leaseMs} ms | ${s.length} | ${s[s.length >> 1]!.toFixed(0)} | ${s[0]!.toFixed(0)} | ${s.at(-1)!.toFixed(0)} |`;
    }),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const url = process.env['DATABASE_URL'];
  if (!url) throw new Error('set DATABASE_URL');
  const leases = (process.env['LEASES'] ?? '3000,500').split(',').map(Number);
  console.log(failoverMarkdown(await measureFailover(url, Number(process.env['ROUNDS'] ?? 5), leases)));
}
