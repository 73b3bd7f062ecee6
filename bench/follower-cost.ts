/**
 * Where a follower's CPU goes per change it catches up with (issue 30, step 2: "apply, not
 * re-run"? measure first). One holder handle appends small changes to a PostgreSQL realm; a
 * follower reads them back and is timed, stage by stage, on the same changes:
 *
 * - query: `changesSince` (the catch-up round trip and the driver decoding the rows);
 * - decode: `openChange` (checksum chain, JSON.parse, schema check);
 * - re-run: `replayChange` (the operation, run again on the follower's state);
 * - events: what applying a recorded result would decode instead of re-running: the change's
 *   events as JSON (JSON.parse of what the holder would have to ship with the change).
 *
 * Two workloads: PATCH /settings (full_name; the scale-out bench's write) and POST /messages.
 * Stages are timed by CPU (process.cpuUsage), interleaved over rounds, both warmed first.
 *
 *   DATABASE_URL=postgres://… npx tsx bench/follower-cost.ts
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { RealmSnapshotInput } from '../src/core/snapshot/format';
import { openChange, type Change } from '../src/host/change';
import { openRealm, type RealmHandle } from '../src/host/realm-handle';
import { replayChange, type ReplayEnv } from '../src/host/replay';
import type { SealedChange } from '../src/host/store';
import { OPERATIONS } from '../src/ops/index';
import { postgresStore } from '../src/stores/postgres/index';
import type { ApiRequest } from '../src/wire/handle';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const HAMLET = 'Basic ' + btoa('hamlet@zulip.com:hamletKKKKKKKKKKKKKKKKKKKKApiKey');

type Workload = 'settings' | 'message';
const request = (w: Workload, i: number): ApiRequest =>
  w === 'settings'
    ? {
        method: 'PATCH',
        url: '/api/v1/settings',
        headers: { authorization: HAMLET, 'content-type': 'application/x-www-form-urlencoded' },
        body: `full_name=Name%20${i}`,
      }
    : {
        method: 'POST',
        url: '/api/v1/messages',
        headers: { authorization: HAMLET, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          type: 'stream',
          to: 'Denmark',
          topic: 'bench',
          content: `m ${i}`,
        }).toString(),
      };

interface Stages {
  query: number;
  decode: number;
  rerun: number;
  events: number;
  changes: number;
}

const cpuUs = (f: () => void): number => {
  const c = process.cpuUsage();
  f();
  const d = process.cpuUsage(c);
  return d.user + d.system;
};

async function round(
  holder: RealmHandle,
  follower: { state: RealmHandle['state']; version: number; chain: number },
  store: Awaited<ReturnType<typeof postgresStore>>,
  env: ReplayEnv,
  w: Workload,
  n: number,
  start: number,
): Promise<Stages> {
  const events: string[] = [];
  // The holder's run (not timed): what the follower catches up with. Events as the holder has them.
  const stop = holder.subscribe((notice) => void events.push(JSON.stringify(notice.events)));
  await Promise.all(Array.from({ length: n }, (_, i) => holder.request(request(w, start + i))));
  stop();
  let rows: readonly SealedChange[] = [];
  const c0 = process.cpuUsage();
  rows = await store.changesSince(follower.version);
  const q = process.cpuUsage(c0);
  let opened: Change[] = [];
  const decode = cpuUs(() => {
    let chain = follower.chain;
    opened = rows.map((s) => {
      const c = openChange(s, 'bench', chain);
      chain = s.checksum;
      return c;
    });
  });
  const rerun = cpuUs(() => {
    let state = follower.state;
    for (const c of opened) state = replayChange(env, state, c).state;
    follower.state = state;
  });
  const ev = cpuUs(() => {
    for (const e of events) JSON.parse(e);
  });
  follower.version = rows.at(-1)?.version ?? follower.version;
  follower.chain = rows.at(-1)?.checksum ?? follower.chain;
  return { query: q.user + q.system, decode, rerun, events: ev, changes: rows.length };
}

export async function measureFollowerCost(url: string, n = 400, rounds = 5) {
  const schema = `chat_realm_follower_${process.pid}`;
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  const snapshot = JSON.parse(readFileSync(`${ROOT}src/cli/demo-realm.json`, 'utf8')) as RealmSnapshotInput;
  const holderStore = await postgresStore({ connectionString: url, schema, realm: 'f', listen: false });
  const holder = await openRealm({ store: holderStore, snapshot, checkpoints: false });
  const store = await postgresStore({ connectionString: url, schema, realm: 'f', listen: false });
  // The follower's starting point: the realm as the holder opened it (version 0).
  const follower = { state: holder.state, version: holder.version, chain: 0 };
  const env: ReplayEnv = { ops: new Map(OPERATIONS.map((o) => [o.def.name, o])), ctx: undefined, store };
  const sums = new Map<Workload, Stages>();
  let at = 0;
  const load = loadavg();
  try {
    for (let r = -1; r < rounds; r++) {
      for (const w of ['settings', 'message'] as const) {
        const s = await round(holder, follower, store, env, w, n, at);
        at += n;
        if (r < 0) continue; // warm-up
        const t = sums.get(w) ?? { query: 0, decode: 0, rerun: 0, events: 0, changes: 0 };
        sums.set(w, {
          query: t.query + s.query,
          decode: t.decode + s.decode,
          rerun: t.rerun + s.rerun,
          events: t.events + s.events,
          changes: t.changes + s.changes,
        });
      }
    }
  } finally {
    await holder.close();
    await store.close();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  }
  return { sums, load, loadAfter: loadavg(), n, rounds };
}

export function followerCostMarkdown(r: Awaited<ReturnType<typeof measureFollowerCost>>): string {
  const f = (x: number, c: number) => (x / c).toFixed(1);
  const lines = [
    `Node ${process.version}, ${new Date().toISOString().slice(0, 16)}Z, load ${r.load.map((l) => l.toFixed(2)).join(' / ')} at the start, ${r.loadAfter.map((l) => l.toFixed(2)).join(' / ')} at the end.`,
    `${r.rounds} rounds of ${r.n} changes per workload after a warm-up round, interleaved; CPU µs per change (process.cpuUsage).`,
    '',
    '| workload | query (changesSince) | decode (openChange) | re-run (replayChange) | events JSON.parse (apply would) |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const [w, s] of r.sums) {
    lines.push(
      `| ${w === 'settings' ? 'PATCH /settings' : 'POST /messages'} | ${f(s.query, s.changes)} | ${f(s.decode, s.changes)} | ${f(s.rerun, s.changes)} | ${f(s.events, s.changes)} |`,
    );
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const url = process.env['DATABASE_URL'];
  if (!url) throw new Error('set DATABASE_URL');
  console.log(followerCostMarkdown(await measureFollowerCost(url)));
}
