/**
 * Serving one realm from 1, 2 and 4 processes: `chat-realm serve --database-url` processes on one
 * PostgreSQL schema, driven over HTTP by 64 concurrent clients spread over them (round robin).
 * Two workloads: writes (PATCH /settings, a new full name each time: every request is a change)
 * and reads (GET /users/me). Counted: answers within a timed window after a warm-up, and any 5xx.
 *
 *   DATABASE_URL=postgres://… npx tsx bench/scale-out.ts      # prints Markdown
 *   QUICK=1 DATABASE_URL=postgres://… npx tsx bench/scale-out.ts
 *   PROCS=1,2 DATABASE_URL=postgres://… npx tsx bench/scale-out.ts   # other process counts
 *
 * The load generator runs in this process, on the same machine as the servers and the database,
 * so on a small machine the figures measure sharing the CPU as much as the design.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLIENTS = 64;
const HAMLET = 'Basic ' + btoa('hamlet@zulip.com:hamletKKKKKKKKKKKKKKKKKKKKApiKey');

export interface ScaleOutRow {
  readonly processes: number;
  readonly workload: 'writes' | 'reads';
  readonly perSecond: number;
  readonly medianMs: number;
  readonly p99Ms: number;
  readonly errors5xx: number;
  readonly other: number;
}

export interface ScaleOutResult {
  readonly rows: readonly ScaleOutRow[];
  readonly load: readonly number[];
  readonly loadAfter: readonly number[];
  readonly windowMs: number;
  readonly rounds: number;
}

interface Server {
  readonly child: ChildProcess;
  readonly site: string;
}

function serve(url: string, schema: string): Promise<Server> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--database-url', url, '--schema', schema, '--port', '0'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}:\n${out}`)));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const site = /^site=(.+)$/m.exec(out)?.[1];
      if (site) {
        child.removeAllListeners('exit');
        resolve({ child, site });
      }
    });
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.on('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

async function drive(
  servers: readonly Server[],
  workload: 'writes' | 'reads',
  warmMs: number,
  windowMs: number,
): Promise<Omit<ScaleOutRow, 'processes' | 'workload'>> {
  const start = performance.now();
  const windowStart = start + warmMs;
  const stopAt = windowStart + windowMs;
  let ok = 0;
  let errors5xx = 0;
  let other = 0;
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      const site = servers[c % servers.length]!.site;
      for (let n = 0; performance.now() < stopAt; n++) {
        const t = performance.now();
        const response =
          workload === 'writes'
            ? await fetch(`${site}/api/v1/settings`, {
                method: 'PATCH',
                headers: { authorization: HAMLET, 'content-type': 'application/x-www-form-urlencoded' },
                body: `full_name=${encodeURIComponent(`Client ${c} #${n}`)}`,
              })
            : await fetch(`${site}/api/v1/users/me`, { headers: { authorization: HAMLET } });
        await response.arrayBuffer();
        const done = performance.now();
        if (response.status >= 500) errors5xx++;
        if (t < windowStart || done > stopAt) continue;
        if (response.status === 200) {
          ok++;
          latencies.push(done - t);
        } else if (response.status < 500) other++;
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return {
    perSecond: (ok / windowMs) * 1000,
    medianMs: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    errors5xx,
    other,
  };
}

export async function measureScaleOut(
  options: { url?: string; quick?: boolean; log?: (line: string) => void } = {},
): Promise<ScaleOutResult | undefined> {
  const url = options.url ?? process.env['DATABASE_URL'];
  if (!url) return undefined;
  const log = options.log ?? ((line: string) => console.error(line));
  const warmMs = options.quick ? 500 : 1000;
  const windowMs = options.quick ? 2000 : 4000;
  const load = loadavg();
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  const rounds = options.quick ? 1 : 2;
  const best = new Map<string, ScaleOutRow>();
  try {
    // Several rounds over every configuration, keeping each one's best: on a shared machine the
    // other processes' load comes and goes, and the best round is the least disturbed.
    for (let round = 0; round < rounds; round++) {
      for (const processes of (process.env['PROCS'] ?? '1,2,4').split(',').map(Number)) {
        const schema = `chat_realm_scale_${process.pid}_${processes}`;
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        const first = await serve(url, schema);
        const servers = [
          first,
          ...(await Promise.all(Array.from({ length: processes - 1 }, () => serve(url, schema)))),
        ];
        try {
          for (const workload of ['writes', 'reads'] as const) {
            const r = await drive(servers, workload, warmMs, windowMs);
            const key = `${processes} ${workload}`;
            const row = { processes, workload, ...r };
            const kept = best.get(key);
            if (!kept || row.perSecond > kept.perSecond)
              best.set(key, { ...row, errors5xx: row.errors5xx + (kept?.errors5xx ?? 0) });
            else best.set(key, { ...kept, errors5xx: kept.errors5xx + row.errors5xx });
            log(
              `round ${round + 1}, ${processes} process(es), ${workload}: ${r.perSecond.toFixed(0)}/s, median ${r.medianMs.toFixed(1)} ms, 5xx ${r.errors5xx}`,
            );
          }
        } finally {
          await Promise.all(servers.map((s) => stop(s.child)));
          await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        }
      }
    }
  } finally {
    await admin.end();
  }
  const rows = [...best.values()];
  return { rows, load, loadAfter: loadavg(), windowMs, rounds };
}

export function scaleOutMarkdown(r: ScaleOutResult | undefined): string {
  const title = '## Serving one realm from 1, 2 and 4 processes (PostgreSQL)';
  if (!r) return `${title}\n\nNot measured: set DATABASE_URL to a PostgreSQL server.`;
  const fmt = (xs: readonly number[]) => xs.map((x) => x.toFixed(2)).join(' / ');
  return [
    title,
    '',
    `Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, load average ${fmt(r.load)} at the start, ${fmt(r.loadAfter)} at the end (1/5/15 min). \`npx tsx bench/scale-out.ts\`.`,
    `\`chat-realm serve --database-url\` processes on one realm, ${CLIENTS} concurrent HTTP clients (keep-alive) spread over them,`,
    `answers counted over ${r.windowMs / 1000} s after a warm-up; best of ${r.rounds} round(s) per row (5xx: summed over all rounds).`,
    'The clients, the servers and PostgreSQL share one machine (2 cores, shared with other work): the figures measure CPU sharing as much as the design.',
    '',
    '| processes | workload | answers/s | median ms | p99 ms | 5xx | other non-200 |',
    '|---:|---|---:|---:|---:|---:|---:|',
    ...r.rows.map(
      (x) =>
        `| ${x.processes} | ${x.workload === 'writes' ? 'writes (PATCH /settings)' : 'reads (GET /users/me)'} | ${x.perSecond.toFixed(0)} | ${x.medianMs.toFixed(1)} | ${x.p99Ms.toFixed(1)} | ${x.errors5xx} | ${x.other} |`,
    ),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await measureScaleOut({ quick: Boolean(process.env['QUICK']) });
  console.log(scaleOutMarkdown(result));
}
