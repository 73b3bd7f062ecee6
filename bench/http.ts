/**
 * HTTP throughput: `serveNode` answering GET /users/me and PATCH /settings against a bare
 * `node:http` hello-world, all on loopback with the same load (autocannon, 32 keep-alive
 * connections, fixed duration), each server in its own process, rounds interleaved so that load
 * changes on the shared machine hit every server alike. Ratios are from the same run.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import { basicAuthHeader } from '../src/wire/auth';

interface AutocannonResult {
  readonly requests: { readonly average: number; readonly total: number };
  readonly latency: { readonly p50: number; readonly p99: number };
  readonly non2xx: number;
  readonly errors: number;
}
interface AutocannonRequest {
  readonly method: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}
type Autocannon = (opts: {
  url: string;
  connections: number;
  duration: number;
  requests?: AutocannonRequest[];
}) => Promise<AutocannonResult>;

// autocannon is CommonJS without types; loaded only when this bench runs.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const CONNECTIONS = 32;

/**
 * On a machine of 2 CPUs or more with `taskset`, every server runs on CPU 0 and this process (the
 * load generator) on CPU 1: otherwise the generator and the server share both CPUs, and a server
 * whose answers are larger (GET /users/me: ~900 bytes against the hello-world's 45) leaves the
 * generator less CPU to parse them with, which says more about the generator than about the
 * server. `HTTP_PIN=0` turns it off.
 */
function pinSelf(cpus: string): boolean {
  return (
    spawnSync('taskset', ['-a', '-p', '-c', cpus, String(process.pid)], { stdio: 'ignore' }).status === 0
  );
}
let PIN = false;

async function start(mode: string): Promise<{ child: ChildProcess; url: string }> {
  const args = ['--import', 'tsx', new URL('./http-server.ts', import.meta.url).pathname, mode];
  const child = spawn(
    PIN ? 'taskset' : process.execPath,
    PIN ? ['-c', '0', process.execPath, ...args] : args,
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const port = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    child.on('exit', (code) => reject(new Error(`${mode} server exited ${code}`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

interface Row {
  readonly name: string;
  rps: number[];
  p50: number[];
  p99: number[];
  non2xx: number;
  errors: number;
}

export async function runHttpBench(opts: { quick?: boolean; log: (line: string) => void }): Promise<string> {
  // Pinned only while this bench runs: the other benches of `npm run bench` share the process.
  PIN = process.env['HTTP_PIN'] !== '0' && os.cpus().length >= 2 && pinSelf('1');
  try {
    return await measure(opts);
  } finally {
    if (PIN) pinSelf(`0-${os.cpus().length - 1}`);
  }
}

async function measure(opts: { quick?: boolean; log: (line: string) => void }): Promise<string> {
  const duration = opts.quick ? 3 : 8;
  const rounds = opts.quick ? 2 : 3;
  // The dev-realm fixture's hamlet (known API key).
  const auth = basicAuthHeader('hamlet@zulip.com', await hamletKey());
  const me: AutocannonRequest[] = [
    { method: 'GET', path: '/api/v1/users/me', headers: { authorization: auth } },
  ];
  const form = { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' };
  // Alternating values: every PATCH is a real change (a new state, an event, a stored change).
  const settings: AutocannonRequest[] = [
    { method: 'PATCH', path: '/api/v1/settings', headers: form, body: 'enter_sends=true' },
    { method: 'PATCH', path: '/api/v1/settings', headers: form, body: 'enter_sends=false' },
  ];
  const servers = {
    hello: await start('hello'),
    direct: await start('direct'),
    fetch: await start('fetch'),
  };
  const targets: Array<[string, keyof typeof servers, AutocannonRequest[] | undefined]> = [
    ['bare node:http hello-world', 'hello', undefined],
    ['GET /users/me (serveNode, direct path)', 'direct', me],
    ['PATCH /settings (serveNode, direct path)', 'direct', settings],
    ['GET /users/me (Fetch handler + Node adapter)', 'fetch', me],
    ['PATCH /settings (Fetch handler + Node adapter)', 'fetch', settings],
  ];
  const rows: Row[] = targets.map(([name]) => ({ name, rps: [], p50: [], p99: [], non2xx: 0, errors: 0 }));
  const loads: string[] = [];
  try {
    // Warm-up: every target once, briefly.
    for (const [, server, requests] of targets)
      await autocannon({
        url: servers[server].url,
        connections: CONNECTIONS,
        duration: 1,
        ...(requests ? { requests } : {}),
      });
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < targets.length; k++) {
        const [name, server, requests] = targets[k]!;
        const res = await autocannon({
          url: servers[server].url,
          connections: CONNECTIONS,
          duration,
          ...(requests ? { requests } : {}),
        });
        const row = rows[k]!;
        row.rps.push(res.requests.average);
        row.p50.push(res.latency.p50);
        row.p99.push(res.latency.p99);
        row.non2xx += res.non2xx;
        row.errors += res.errors;
        opts.log(`http ${name}: ${res.requests.average.toFixed(0)} req/s (p50 ${res.latency.p50} ms)`);
      }
      loads.push(
        os
          .loadavg()
          .map((x) => x.toFixed(1))
          .join(' / '),
      );
    }
  } finally {
    for (const s of Object.values(servers)) s.child.kill();
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const hello = med(rows[0]!.rps);
  const table = [
    '| server and request | requests/s (median of rounds) | ÷ hello-world | latency p50 / p99 (ms) | non-2xx | errors |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${med(r.rps).toFixed(0)} | ${(med(r.rps) / hello).toFixed(2)}× | ${med(r.p50)} / ${med(r.p99)} | ${r.non2xx} | ${r.errors} |`,
    ),
  ].join('\n');
  const meRatio = med(rows[1]!.rps) / hello;
  return [
    '## HTTP throughput (in-memory store, loopback)',
    '',
    `autocannon, ${CONNECTIONS} keep-alive connections, ${duration} s per measurement, ${rounds} interleaved rounds after a 1 s warm-up of each; each server in its own process; the chat-realm servers run a realm handle on the memory store loaded from the dev-realm fixture (PATCH alternates two values, so every request is a change).`,
    '',
    table,
    '',
    `Goal: GET /users/me at least half of the hello-world's requests per second: ${meRatio.toFixed(2)}× (${meRatio >= 0.5 ? 'met' : 'not met'}).`,
    '',
    `- Machine: ${os.cpus().length} CPUs, Node ${process.version}; load average after each round: ${loads.join('; ')}. ${PIN ? 'Each server pinned to CPU 0 and the load generator to CPU 1 (`taskset`), so neither takes CPU from the other; `HTTP_PIN=0` shares both CPUs between them (measured that way on 24 Nov at load 3–4: GET /users/me 0.39×, not met).' : 'The load generator shares the CPUs with the server (not pinned).'}`,
  ].join('\n');
}

async function hamletKey(): Promise<string> {
  const { readFileSync } = await import('node:fs');
  const snap = JSON.parse(
    readFileSync(new URL('../test/fixtures/dev-realm.json', import.meta.url), 'utf8'),
  ) as {
    users: Array<{ email?: string; delivery_email?: string; api_key: string; user_id: number }>;
  };
  return snap.users.find((u) => u.user_id === 4)!.api_key;
}
