/**
 * What one request of the flag flood (bench/hostile.ts) costs the server: POST
 * /messages/flags/narrow alternating mark-unread / mark-read over 5,000 messages in Verona, one
 * request at a time over loopback, with a never-read `update_message_flags` queue (re-registered
 * whenever its byte budget dropped it) or without any queue. Reported per operation: the median
 * wall and CPU time of one request (CPU of this process, which also runs the client, and includes
 * V8's helper threads), so the figure is the length of the attack request another user's request
 * may wait behind under fair scheduling.
 *
 * Also, per run, the collector's work (`v8.GCProfiler`, in this process): scavenges, their total
 * and longest pause, and the bytes they promoted to the old generation (the old and large-object
 * spaces' growth across each scavenge), which does not depend on the machine's load: what a
 * never-read queue keeps alive is copied out of the young generation, and the copying is the
 * pause everyone waits behind.
 *
 * Run: node --import tsx bench/flag-flood.ts [requests]   (env PORT, default 9170)
 */
import { loadavg } from 'node:os';
import { GCProfiler } from 'node:v8';
import { withEventQueues } from '../src/host/live-realm';
import { openRealm } from '../src/host/realm-handle';
import { serveNode } from '../src/server/node';
import { memoryStore } from '../src/stores/memory/index';
import { authFor, flip, floodSnapshot, post as postTo } from './flag-flood-support';
import { median } from './stats';

const N = Number(process.argv[2] ?? 2000);
const WARM = 200;

const snap = floodSnapshot();
const authorization = authFor(snap, 4);

const handle = await openRealm({ store: memoryStore(), snapshot: snap, checkpoints: false });
const live = withEventQueues(handle, { gcIntervalMs: 0 });
const server = await serveNode({ realm: live, port: Number(process.env['PORT'] ?? 9170) });
const post = async (path: string, body: Record<string, string>) =>
  (await postTo(server.url, authorization, path, body)).text();

interface GcStat {
  gcType: string;
  cost: number;
  beforeGC: { heapSpaceStatistics: { spaceName: string; spaceUsedSize: number }[] };
  afterGC: { heapSpaceStatistics: { spaceName: string; spaceUsedSize: number }[] };
}
/** Bytes in the spaces a scavenge promotes into. */
const oldBytes = (spaces: { spaceName: string; spaceUsedSize: number }[]) =>
  spaces
    .filter((x) => x.spaceName === 'old_space' || x.spaceName === 'large_object_space')
    .reduce((n, x) => n + x.spaceUsedSize, 0);

const rows: string[] = [];
const gcRows: string[] = [];
for (const withQueue of [true, false]) {
  const wall: Record<string, number[]> = { remove: [], add: [] };
  const cpu: Record<string, number[]> = { remove: [], add: [] };
  const profiler = new GCProfiler();
  for (let i = 0; i < N + WARM; i++) {
    if (i === WARM) profiler.start();
    if (withQueue && live.queues.bytes === 0)
      await post('/register', { queue_lifespan_secs: '604800', event_types: '["update_message_flags"]' });
    const op = i % 2 === 0 ? 'remove' : 'add';
    const t = performance.now();
    const c = process.cpuUsage();
    await post('/messages/flags/narrow', flip(op));
    const used = process.cpuUsage(c);
    if (i < WARM) continue;
    wall[op]!.push(performance.now() - t);
    cpu[op]!.push((used.user + used.system) / 1000);
  }
  const { statistics } = profiler.stop() as { statistics: GcStat[] };
  const scavenges = statistics.filter((g) => g.gcType === 'Scavenge');
  const ms = scavenges.map((g) => g.cost / 1000);
  const promoted = scavenges.reduce(
    (n, g) =>
      n + Math.max(0, oldBytes(g.afterGC.heapSpaceStatistics) - oldBytes(g.beforeGC.heapSpaceStatistics)),
    0,
  );
  const others = statistics.filter((g) => g.gcType !== 'Scavenge').map((g) => g.cost / 1000);
  gcRows.push(
    `| ${withQueue ? 'a never-read queue' : 'none'} | ${scavenges.length} | ${ms.reduce((a, b) => a + b, 0).toFixed(1)} | ${Math.max(0, ...ms).toFixed(1)} | ${(promoted / 2 ** 20).toFixed(1)} | ${others.length} | ${others.reduce((a, b) => a + b, 0).toFixed(1)} |`,
  );
  live.queues.dropAll();
  for (const op of ['remove', 'add'])
    rows.push(
      `| ${op === 'remove' ? 'mark unread' : 'mark read'} | ${withQueue ? 'a never-read queue' : 'none'} | ${median(wall[op]!).toFixed(2)} | ${median(cpu[op]!).toFixed(2)} |`,
    );
}
console.log(
  [
    `${new Date().toISOString().slice(0, 16)} UTC, load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' / ')}; ${N} requests each after ${WARM} warm-up`,
    '',
    '| request (5,000 messages) | queue | median wall ms | median CPU ms |',
    '|---|---|---:|---:|',
    ...rows,
    '',
    `| queue | scavenges in the ${N} requests | total ms | longest ms | promoted MiB | other GCs | total ms |`,
    '|---|---:|---:|---:|---:|---:|---:|',
    ...gcRows,
  ].join('\n'),
);
live.close();
await server.close();
await handle.close();
