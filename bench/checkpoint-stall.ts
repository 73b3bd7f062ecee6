/**
 * How long a checkpoint stops the realm handle's queue: small operations (one updateSettings at a
 * time, as one client would send them) run back to back on a SQLite store (synchronous=FULL)
 * while a checkpoint of a large realm is written; the longest wait of one operation during the
 * checkpoint is the stall. Also reported: the same operations without a checkpoint (the
 * baseline), and the longest gap between 1 ms timer ticks (how long the event loop was blocked).
 *
 *   node --max-old-space-size=8192 --import tsx bench/checkpoint-stall.ts   # 1,000,000 messages
 *   MESSAGES=100000 npx tsx bench/checkpoint-stall.ts                        # smaller
 *
 * The script only uses `openRealm`, `run` and `checkpoint`, so it also runs against older
 * versions of the library (for the before/after figures in bench/README.md).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRealm } from '../src/host/realm-handle';
import { updateSettings } from '../src/ops/index';
import { sqliteStore } from '../src/stores/sqlite/index';
import { largeSnapshot } from './large-realm';

const HAMLET = { userId: 4 };
const messages = Number(process.env['MESSAGES'] ?? 1_000_000);

function summary(latencies: number[]): string {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return `n=${sorted.length} median ${at(0.5).toFixed(2)} ms, p99 ${at(0.99).toFixed(2)} ms, max ${(sorted.at(-1) ?? 0).toFixed(2)} ms`;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'chat-realm-stall-'));
  try {
    const filename = join(dir, 'realm.db');
    let t = performance.now();
    const snapshot = largeSnapshot(messages);
    const realm = await openRealm({ store: sqliteStore({ filename }), snapshot, checkpoints: false });
    console.log(`realm of ${messages} messages seeded in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    let i = 0;
    // Like requests arriving over the network: each operation starts in a turn of its own.
    const op = async (): Promise<number> => {
      await new Promise((resolve) => setImmediate(resolve));
      const started = performance.now();
      await realm.run(updateSettings, HAMLET, { twenty_four_hour_time: i++ % 2 === 0 });
      return performance.now() - started;
    };
    // Event-loop blockage: the longest gap between ticks of a 1 ms timer.
    let maxGap = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
    }, 1);

    for (let k = 0; k < 200; k++) await op(); // warm-up
    const baseline: number[] = [];
    maxGap = 0;
    last = performance.now();
    for (let k = 0; k < 500; k++) baseline.push(await op());
    const baselineGap = maxGap;

    const during: number[] = [];
    maxGap = 0;
    last = performance.now();
    t = performance.now();
    let done = false;
    const written = realm.checkpoint().then(() => {
      done = true;
    });
    while (!done) during.push(await op());
    await written;
    const checkpointMs = performance.now() - t;
    clearInterval(ticker);

    const load = loadavg().map((l) => l.toFixed(2));
    console.log(`load average ${load.join(', ')}`);
    console.log(
      `baseline (no checkpoint): ${summary(baseline)}; longest event-loop gap ${baselineGap.toFixed(1)} ms`,
    );
    console.log(`checkpoint written in ${(checkpointMs / 1000).toFixed(2)} s while operations ran`);
    console.log(
      `during the checkpoint:    ${summary(during)}; longest event-loop gap ${maxGap.toFixed(1)} ms`,
    );
    await realm.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
