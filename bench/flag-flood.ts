/**
 * What one request of the flag flood (bench/hostile.ts) costs the server: POST
 * /messages/flags/narrow alternating mark-unread / mark-read over 5,000 messages in Verona, one
 * request at a time over loopback, with a never-read `update_message_flags` queue (re-registered
 * whenever its byte budget dropped it) or without any queue. Reported per operation: the median
 * wall and CPU time of one request (CPU of this process, which also runs the client, and includes
 * V8's helper threads), so the figure is the length of the attack request another user's request
 * may wait behind under fair scheduling.
 *
 * Run: node --import tsx bench/flag-flood.ts [requests]   (env PORT, default 9170)
 */
import { loadavg } from 'node:os';
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

const rows: string[] = [];
for (const withQueue of [true, false]) {
  const wall: Record<string, number[]> = { remove: [], add: [] };
  const cpu: Record<string, number[]> = { remove: [], add: [] };
  for (let i = 0; i < N + WARM; i++) {
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
  ].join('\n'),
);
live.close();
await server.close();
await handle.close();
