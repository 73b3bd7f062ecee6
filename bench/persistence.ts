/**
 * Persistence benchmarks: acknowledged changes per second and latency (median, p99) per adapter,
 * for small operations and for 5000-message flag updates, replay speed, record sizes, and the
 * time to load a 1,000,000-message realm from a checkpoint plus changes.
 *
 *   npx tsx bench/persistence.ts            # writes bench/persistence-results.md
 *   QUICK=1 npx tsx bench/persistence.ts    # smaller counts (a smoke run)
 *
 * `runPersistenceBench()` returns the Markdown for bench/run.ts. The large-realm part runs in a
 * child process with a bigger heap (the 1M-message snapshot, state and checkpoint text coexist).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRealm, type RealmHandle } from '../src/host/realm-handle';
import type { RealmStore } from '../src/host/store';
import { memoryStore } from '../src/stores/memory/index';
import { sqliteStore } from '../src/stores/sqlite/index';
import { postgresStore, type PgQueryable } from '../src/stores/postgres/index';
import { seededRandom } from '../src/core/context';
import { updateMessageFlagsForNarrow, updateSettings } from '../src/ops/index';
import { openCheckpoint, sealCheckpoint, sealRealmCheckpoint } from '../src/host/checkpoint';
import { snapshotRealm } from '../src/core/snapshot/export';
import type { RealmSnapshotInput } from '../src/core/snapshot/format';
import type { RealmState } from '../src/core/state';
import { largeSnapshot } from './large-realm';

const HAMLET = { userId: 4 };

export interface PersistenceBenchOptions {
  /** Small operations per adapter. Default 2000 (200 for PostgreSQL through PGlite). */
  readonly smallOps?: number;
  /** 5000-message flag updates per adapter. Default 100. */
  readonly flagOps?: number;
  /** Messages in the large realm. Default 1,000,000. */
  readonly largeMessages?: number;
  readonly log?: (line: string) => void;
}

interface Timing {
  readonly adapter: string;
  readonly workload: string;
  readonly n: number;
  readonly perSecond: number;
  readonly medianMs: number;
  readonly p99Ms: number;
  readonly replayMs: number;
  readonly changeBytes: number;
}

interface Adapter {
  readonly name: string;
  open(): Promise<{ store: () => Promise<RealmStore>; cleanup: () => Promise<void> }>;
}

function adapters(): Adapter[] {
  const list: Adapter[] = [
    { name: 'memory', open: async () => ({ store: shareMemory(), cleanup: async () => {} }) },
    sqliteAdapter('FULL'),
    sqliteAdapter('NORMAL'),
  ];
  if (process.env['DATABASE_URL'])
    list.push(postgresAdapter('postgres (local server)', process.env['DATABASE_URL']));
  list.push(postgresAdapter('postgres (PGlite, in-process)', undefined));
  return list;
}

function postgresAdapter(name: string, url: string | undefined): Adapter {
  return {
    name,
    open: async () => {
      const schema = `chat_realm_bench_${process.pid}`;
      let client: PgQueryable;
      let end: () => Promise<void>;
      if (url) {
        const pg = (await import('pg')).default;
        const pool = new pg.Pool({ connectionString: url });
        client = pool;
        end = () => pool.end();
      } else {
        const { PGlite } = await import('@electric-sql/pglite');
        const db = await PGlite.create();
        client = db;
        end = () => db.close();
      }
      return {
        store: () => postgresStore({ client, realm: 'bench', schema }),
        cleanup: async () => {
          await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          await end();
        },
      };
    },
  };
}

function shareMemory(): () => Promise<RealmStore> {
  const shared = memoryStore();
  return async () => ({ ...shared, close: async () => {} });
}

function sqliteAdapter(sync: 'FULL' | 'NORMAL'): Adapter {
  return {
    name: `sqlite (WAL, synchronous=${sync})`,
    open: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'chat-realm-bench-'));
      return {
        store: async () => sqliteStore({ filename: join(dir, 'realm.db'), synchronous: sync }),
        cleanup: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  };
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function measure(
  adapter: string,
  workload: string,
  open: () => Promise<RealmStore>,
  snapshot: RealmSnapshotInput,
  n: number,
  step: (h: RealmHandle, i: number) => Promise<{ status: number }>,
): Promise<Timing> {
  const store = await open();
  const handle = await openRealm({
    store,
    snapshot,
    ctx: { now: 1795219200, random: seededRandom(1) },
    checkpoints: false,
  });
  const latencies: number[] = [];
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = await step(handle, i);
    latencies.push(performance.now() - t);
    if (r.status !== 200) throw new Error(`${workload} #${i} answered ${r.status}`);
    const updated = (r as { body?: { updated_count?: unknown } }).body?.updated_count;
    if (updated !== undefined && updated !== 5000)
      throw new Error(`${workload} #${i} updated ${String(updated)} rows`);
  }
  const total = performance.now() - start;
  const changes = await store.changesSince(0);
  const changeBytes = Math.round(
    changes.reduce((s, c) => s + c.payload.length, 0) / Math.max(1, changes.length),
  );
  await handle.close();
  // Replay: open again from the checkpoint at version 0 and every change.
  const t = performance.now();
  const again = await openRealm({ store: await open(), checkpoints: false });
  const replayMs = performance.now() - t;
  await again.close();
  latencies.sort((a, b) => a - b);
  return {
    adapter,
    workload,
    n,
    perSecond: (n / total) * 1000,
    medianMs: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    replayMs,
    changeBytes,
  };
}

const smallStep = (h: RealmHandle, i: number) =>
  h.run(updateSettings, HAMLET, { twenty_four_hour_time: i % 2 === 0 });
const flagStep = (h: RealmHandle, i: number) =>
  h.run(updateMessageFlagsForNarrow, HAMLET, {
    anchor: 'oldest',
    num_before: 0,
    num_after: 5000,
    include_anchor: true,
    narrow: [],
    op: i % 2 === 0 ? 'add' : 'remove',
    flag: 'starred',
  });

interface LargeResult {
  messages: number;
  buildMs: number;
  encodeMs: number;
  checkpointWriteMs: number;
  checkpointBytes: number;
  fileBytes: number;
  changesAfter: number;
  loadMs: number;
  readMs: number;
  decodeMs: number;
  jsonBytes: number;
  jsonWriteMs: number;
  jsonLoadMs: number;
}

/** Runs in a child with a big heap: build a 1M-message realm, checkpoint it to SQLite, add changes, load. */
async function largeChild(messages: number): Promise<LargeResult> {
  const dir = mkdtempSync(join(tmpdir(), 'chat-realm-bench-large-'));
  const filename = join(dir, 'realm.db');
  try {
    let t = performance.now();
    let snapshot: RealmSnapshotInput | undefined = largeSnapshot(messages);
    const buildMs = performance.now() - t;
    const opening = openRealm({
      store: sqliteStore({ filename }),
      snapshot,
      checkpoints: false,
      ctx: { now: 1795219200 },
    });
    snapshot = undefined; // let the million snapshot objects go once the realm is built
    const h = await opening;
    t = performance.now();
    for (let i = 0; i < 20; i++) await flagStep(h, i);
    for (let i = 0; i < 80; i++) await smallStep(h, i);
    t = performance.now();
    const encoded = sealRealmCheckpoint(h.version, h.state);
    const encodeMs = performance.now() - t;
    t = performance.now();
    await h.checkpoint(); // at version 100: the load below replays only what follows
    const checkpointWriteMs = performance.now() - t;
    void encoded;
    for (let i = 0; i < 10; i++) await flagStep(h, i);
    for (let i = 0; i < 40; i++) await smallStep(h, i);
    // The JSON (format 1) checkpoint of the same realm, for comparison (in memory, no database).
    t = performance.now();
    const json = sealCheckpoint(100, snapshotRealm(h.state));
    const jsonWriteMs = performance.now() - t;
    t = performance.now();
    openCheckpoint(json, 'json');
    const jsonLoadMs = performance.now() - t;
    await h.close();
    const fileBytes = statSync(filename).size;
    // The parts of a load: read the rows, decode the checkpoint (the rest is replaying 50 changes).
    const probe = sqliteStore({ filename });
    t = performance.now();
    const stored = await probe.load();
    const readMs = performance.now() - t;
    t = performance.now();
    openCheckpoint(stored.checkpoint!, 'probe');
    const decodeMs = performance.now() - t;
    const checkpointBytes = stored.checkpoint!.payload.length;
    await probe.close();
    t = performance.now();
    const loaded = await openRealm({ store: sqliteStore({ filename }), checkpoints: false });
    const loadMs = performance.now() - t;
    if (loaded.version !== 150) throw new Error(`loaded version ${loaded.version}`);
    await loaded.close();
    return {
      messages,
      buildMs,
      encodeMs,
      checkpointWriteMs,
      checkpointBytes,
      fileBytes,
      changesAfter: 50,
      loadMs,
      readMs,
      decodeMs,
      jsonBytes: json.payload.length,
      jsonWriteMs,
      jsonLoadMs,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface SimulatedResult {
  messages: number;
  rows: number;
  simulateMs: number;
  checkpointBytes: number;
  writeMs: number;
  loadMs: number;
  changes: number;
  reloadMs: number;
}

/**
 * The `simulateRealm` "large" preset (10,000 users, 1,000 channels, 1,000,000 messages, tens of
 * millions of rows): write its checkpoint to SQLite, open it, apply 100 changes, open it again.
 */
async function simulatedChild(): Promise<SimulatedResult> {
  const { simulateRealm, HEAVY_USER_ID } = await import('../src/simulate/index');
  const dir = mkdtempSync(join(tmpdir(), 'chat-realm-bench-sim-'));
  const filename = join(dir, 'realm.db');
  try {
    let t = performance.now();
    let state: RealmState | undefined = simulateRealm({ preset: 'large' });
    const simulateMs = performance.now() - t;
    let rows = 0;
    for (const [, r] of state.messages.rows) rows += r.count;
    const messages = state.messages.count;
    const store = sqliteStore({ filename });
    t = performance.now();
    const sealed = sealRealmCheckpoint(0, state);
    await store.writeCheckpoint(sealed);
    const writeMs = performance.now() - t;
    const checkpointBytes = sealed.payload.length;
    state = undefined;
    t = performance.now();
    const h = await openRealm({ store, checkpoints: false, ctx: { now: 1795219200 } });
    const loadMs = performance.now() - t;
    const heavy = { userId: HEAVY_USER_ID };
    for (let i = 0; i < 20; i++) {
      const r = await h.run(updateMessageFlagsForNarrow, heavy, {
        anchor: 'oldest',
        num_before: 0,
        num_after: 5000,
        narrow: [],
        op: i % 2 === 0 ? 'add' : 'remove',
        flag: 'starred',
      });
      if (r.status !== 200) throw new Error(`flag update answered ${r.status}`);
    }
    for (let i = 0; i < 80; i++) await smallStep(h, i);
    await h.close();
    t = performance.now();
    const again = await openRealm({ store: sqliteStore({ filename }), checkpoints: false });
    const reloadMs = performance.now() - t;
    await again.close();
    return { messages, rows, simulateMs, checkpointBytes, writeMs, loadMs, changes: 100, reloadMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function child<T>(args: string[]): T {
  const run = spawnSync(
    process.execPath,
    ['--max-old-space-size=12000', '--import', 'tsx', new URL(import.meta.url).pathname, ...args],
    { encoding: 'utf8', maxBuffer: 1 << 24 },
  );
  if (run.status !== 0) throw new Error(`bench child ${args.join(' ')} failed: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as T;
}

export async function runPersistenceBench(options: PersistenceBenchOptions = {}): Promise<string> {
  const log = options.log ?? ((line: string) => console.log(line));
  const quick = Boolean(process.env['QUICK']);
  const flagRealm = largeSnapshot(quick ? 12_000 : 40_000);
  const dev = largeSnapshot(0);
  const rows: Timing[] = [];
  for (const adapter of adapters()) {
    const slowPg = adapter.name.includes('PGlite');
    const small = options.smallOps ?? (quick ? 200 : slowPg ? 500 : 2000);
    const flags = options.flagOps ?? (quick ? 20 : 100);
    for (const [workload, snapshot, n, step] of [
      ['small op (updateSettings)', dev, small, smallStep],
      ['flag update, 5000 messages (updateMessageFlagsForNarrow)', flagRealm, flags, flagStep],
    ] as const) {
      const backing = await adapter.open();
      try {
        const r = await measure(adapter.name, workload, backing.store, snapshot, n, step);
        rows.push(r);
        log(
          `${r.adapter} | ${r.workload}: ${r.perSecond.toFixed(0)}/s, median ${r.medianMs.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms`,
        );
      } finally {
        await backing.cleanup();
      }
    }
  }

  const messages = options.largeMessages ?? (quick ? 100_000 : 1_000_000);
  log(`large realm: ${messages} messages (child process)…`);
  const large = child<LargeResult>(['--large-child', String(messages)]);
  log(`large realm: load ${large.loadMs.toFixed(0)} ms`);
  let simulated: SimulatedResult | undefined;
  if (!quick) {
    log('simulated large realm (child process)…');
    simulated = child<SimulatedResult>(['--simulated-child']);
    log(`simulated large realm: load ${simulated.loadMs.toFixed(0)} ms`);
  }
  return format(rows, large, simulated);
}

function format(rows: Timing[], large: LargeResult, simulated: SimulatedResult | undefined): string {
  const ms = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(0));
  const mb = (x: number) => `${(x / 1e6).toFixed(0)} MB`;
  const lines = [
    '# Persistence benchmarks',
    '',
    `Node ${process.version}, ${new Date().toISOString().slice(0, 10)}. \`npx tsx bench/persistence.ts\`.`,
    'Each row: a realm handle runs the operations one after another; a change is acknowledged once the',
    'store has it (SQLite FULL: fsynced). "replay" = opening the store again from the version-0 checkpoint',
    'and replaying every change. "change" = average stored change record.',
    '',
    '| adapter | workload | ops | acknowledged/s | median ms | p99 ms | replay all (ms) | change (bytes) |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.adapter} | ${r.workload} | ${r.n} | ${r.perSecond.toFixed(0)} | ${ms(r.medianMs)} | ${ms(r.p99Ms)} | ${ms(r.replayMs)} | ${r.changeBytes} |`,
    ),
    '',
    `## Loading a ${large.messages.toLocaleString('en')}-message realm`,
    '',
    `Generated with bench/large-realm.ts (dev realm + generated channel messages with every subscriber's row) in ${ms(large.buildMs)} ms.`,
    'Stored in SQLite (WAL, FULL) as a checkpoint plus changes (flag updates of 5000 messages and settings changes).',
    '',
    '| measure | binary checkpoint (format 2, default) | JSON checkpoint (format 1) |',
    '|---|---:|---:|',
    `| checkpoint size | ${mb(large.checkpointBytes)} | ${mb(large.jsonBytes)} |`,
    `| encode a checkpoint (+ CRC) | ${ms(large.encodeMs)} ms | ${ms(large.jsonWriteMs)} ms (snapshotRealm + JSON) |`,
    `| write a checkpoint (encode + CRC + SQLite insert, fsync) | ${ms(large.checkpointWriteMs)} ms | |`,
    `| decode a checkpoint into a realm | ${ms(large.decodeMs)} ms | ${ms(large.jsonLoadMs)} ms |`,
    `| **open the realm: read + decode checkpoint + replay ${large.changesAfter} changes** | **${ms(large.loadMs)} ms** (of which SQLite read ${ms(large.readMs)} ms) | — |`,
    `| database file (2 checkpoints kept + changes) | ${mb(large.fileBytes)} | |`,
    '',
    ...(simulated
      ? [
          `## Loading the simulated "large" organization`,
          '',
          `\`simulateRealm({ preset: 'large' })\`: 10,000 users, 1,000 channels, ${simulated.messages.toLocaleString('en')} messages,`,
          `${simulated.rows.toLocaleString('en')} UserMessage rows (built in ${ms(simulated.simulateMs)} ms). SQLite (WAL, FULL).`,
          '',
          '| measure | value |',
          '|---|---:|',
          `| binary checkpoint size | ${mb(simulated.checkpointBytes)} |`,
          `| encode + CRC + write the checkpoint | ${ms(simulated.writeMs)} ms |`,
          `| **open the realm from the checkpoint** | **${ms(simulated.loadMs)} ms** |`,
          `| open again after ${simulated.changes} changes (20 flag updates of 5000 messages, 80 settings changes), replaying them | ${ms(simulated.reloadMs)} ms |`,
          '',
        ]
      : []),
  ];
  return lines.join('\n');
}

if (process.argv[2] === '--large-child') {
  const result = await largeChild(Number(process.argv[3]));
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else if (process.argv[2] === '--simulated-child') {
  const result = await simulatedChild();
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else if (import.meta.url === `file://${process.argv[1]}`) {
  const md = await runPersistenceBench();
  writeFileSync(new URL('./persistence-results.md', import.meta.url), md);
  console.log(md);
}
