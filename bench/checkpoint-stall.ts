/**
 * How long a checkpoint stops the realm handle's queue: small operations (one updateSettings at a
 * time, as one client would send them) run back to back on a store while a checkpoint of a large
 * realm is written; the longest wait of one operation during the checkpoint is the stall. Also
 * reported: the same operations without a checkpoint (the baseline, same run), the gaps between
 * ticks of a 1 ms timer (how long the event loop was blocked), the longest garbage-collection
 * pause, and the process's CPU time (user + system, all threads) next to the wall time. The
 * baseline runs after the checkpoint, as many operations as ran during it (at least 500): the
 * longest of 5,000 waits is longer than the longest of 500 on any machine, so only samples of the
 * same size compare.
 *
 *   node --max-old-space-size=8192 --import tsx bench/checkpoint-stall.ts   # 1,000,000 messages, SQLite
 *   MESSAGES=100000 npx tsx bench/checkpoint-stall.ts                        # smaller
 *   STORE=postgres DATABASE_URL=postgres://… npx tsx bench/checkpoint-stall.ts
 *   WRITER_THREAD=0 …                                  # SQLite: checkpoints on the main thread (as before)
 *   CHECKPOINT_PACE=32 …                               # the store's checkpointBytesPerSecond in MiB/s (or Infinity)
 *   PG_WAL=fresh …                                     # PostgreSQL: no CHECKPOINT after seeding (see below)
 *
 * PostgreSQL: after seeding, the bench runs the server's own `CHECKPOINT`, so that the WAL written
 * by the seeding is recycled into segments ready for reuse, as on a server in steady state (its
 * periodic checkpoints keep about a cycle's worth of segments). Without it (`PG_WAL=fresh`, a
 * server that has just started or never wrote this much), every new 16 MB WAL segment is
 * zero-filled and synced while commits wait for it (wait events IO:WALInitWrite, IO:WALInitSync):
 * the longest wait then is the server's segment initialization, 47–60 ms here, which any burst of
 * WAL meets, not only a checkpoint's parts. The bench reports which it did.
 *
 * The measurement only uses `openRealm`, `run` and `checkpoint`, so it also runs against older
 * versions of the library (for the before/after figures in bench/README.md).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { openRealm } from '../src/host/realm-handle';
import type { RealmStore } from '../src/host/store';
import { updateSettings } from '../src/ops/index';
import { postgresStore } from '../src/stores/postgres/index';
import { sqliteStore } from '../src/stores/sqlite/index';
import { largeSnapshot } from './large-realm';

const HAMLET = { userId: 4 };
const messages = Number(process.env['MESSAGES'] ?? 1_000_000);
const storeKind = process.env['STORE'] ?? 'sqlite';
const writerThread = process.env['WRITER_THREAD'] !== '0';
/** CHECKPOINT_PACE: the store's `checkpointBytesPerSecond` in MiB/s (`Infinity`: unpaced). */
const pace =
  process.env['CHECKPOINT_PACE'] === undefined
    ? undefined
    : Number(process.env['CHECKPOINT_PACE']) * 1024 * 1024;

function at(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

function summary(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const over = sorted.filter((v) => v > 10).length;
  return `median ${at(sorted, 0.5).toFixed(2)}, p99 ${at(sorted, 0.99).toFixed(2)}, p99.9 ${at(sorted, 0.999).toFixed(2)}, max ${(sorted.at(-1) ?? 0).toFixed(2)} ms, ${over} over 10 ms`;
}

/** Everything measured over one stretch of operations. */
class Window {
  readonly latencies: number[] = [];
  readonly gaps: number[] = [];
  gcMax = 0;
  gcTotal = 0;
  private readonly started = performance.now();
  private readonly cpu = process.cpuUsage();
  private wallMs = 0;
  private cpuMs = 0;

  end(): void {
    this.wallMs = performance.now() - this.started;
    const used = process.cpuUsage(this.cpu);
    this.cpuMs = (used.user + used.system) / 1000;
  }

  report(name: string): string {
    return [
      `${name}: ${this.latencies.length} operations in ${(this.wallMs / 1000).toFixed(2)} s wall, ${(this.cpuMs / 1000).toFixed(2)} s CPU`,
      `  operation latency: ${summary(this.latencies)}`,
      `  event-loop gaps (1 ms timer): ${summary(this.gaps)}`,
      `  garbage collection: longest pause ${this.gcMax.toFixed(1)} ms, ${this.gcTotal.toFixed(0)} ms in all`,
    ].join('\n');
  }
}

/** PostgreSQL's own CHECKPOINT (see the top): WAL segments recycled, as in steady state. */
async function serverCheckpoint(url: string): Promise<string> {
  if (process.env['PG_WAL'] === 'fresh') return 'PostgreSQL WAL: fresh (no CHECKPOINT after seeding)';
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const t = performance.now();
    await client.query('CHECKPOINT');
    return `PostgreSQL WAL: steady (CHECKPOINT after seeding, ${(performance.now() - t).toFixed(0)} ms)`;
  } finally {
    await client.end();
  }
}

async function openStore(dir: string): Promise<{ store: RealmStore; drop: () => Promise<void> }> {
  if (storeKind === 'postgres') {
    const url = process.env['DATABASE_URL'];
    if (!url) throw new Error('STORE=postgres needs DATABASE_URL');
    const schema = `checkpoint_stall_${process.pid}`;
    const store = await postgresStore({
      connectionString: url,
      realm: 'stall',
      schema,
      ...(pace === undefined ? {} : { checkpointBytesPerSecond: pace }),
    });
    const drop = async () => {
      const pg = (await import('pg')).default;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    };
    return { store, drop };
  }
  const store = sqliteStore({
    filename: join(dir, 'realm.db'),
    writerThread,
    ...(pace === undefined ? {} : { checkpointBytesPerSecond: pace }),
  });
  return { store, drop: async () => {} };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'chat-realm-stall-'));
  const { store, drop } = await openStore(dir);
  try {
    let t = performance.now();
    const snapshot = largeSnapshot(messages);
    const realm = await openRealm({ store, snapshot, checkpoints: false });
    console.log(
      `${storeKind}${storeKind === 'sqlite' ? ` (writer thread: ${writerThread})` : ''}: realm of ${messages} messages seeded in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );

    if (storeKind === 'postgres') console.log(await serverCheckpoint(process.env['DATABASE_URL']!));
    let window: Window | undefined;
    const gc = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        if (!window) continue;
        window.gcMax = Math.max(window.gcMax, entry.duration);
        window.gcTotal += entry.duration;
      }
    });
    gc.observe({ entryTypes: ['gc'] });
    let i = 0;
    // Like requests arriving over the network: each operation starts in a turn of its own.
    const op = async (): Promise<void> => {
      await new Promise((resolve) => setImmediate(resolve));
      const started = performance.now();
      await realm.run(updateSettings, HAMLET, { twenty_four_hour_time: i++ % 2 === 0 });
      window?.latencies.push(performance.now() - started);
    };
    // Event-loop blockage: the gaps between ticks of a 1 ms timer.
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      window?.gaps.push(now - last);
      last = now;
    }, 1);

    for (let k = 0; k < 200; k++) await op(); // warm-up

    const during = new Window();
    window = during;
    last = performance.now();
    t = performance.now();
    let done = false;
    const written = realm.checkpoint().then(() => {
      done = true;
    });
    while (!done) await op();
    await written;
    during.end();
    const checkpointMs = performance.now() - t;
    // The baseline: as many operations again (at least 500) without a checkpoint, so that the
    // longest waits of the two compare samples of the same size (a longer run meets rarer pauses).
    const baseline = new Window();
    window = baseline;
    last = performance.now();
    for (let k = 0; k < Math.max(500, during.latencies.length); k++) await op();
    baseline.end();
    window = undefined;
    clearInterval(ticker);
    gc.disconnect();

    console.log(
      `load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(', ')}`,
    );
    console.log(baseline.report('baseline (no checkpoint)'));
    console.log(`checkpoint written in ${(checkpointMs / 1000).toFixed(2)} s while operations ran`);
    console.log(during.report('during the checkpoint'));
    await realm.close();
  } finally {
    await drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
