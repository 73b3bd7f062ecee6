/**
 * Hostile load on one realm (issue 31), on loopback: one member registers a queue it never reads
 * (`queue_lifespan_secs=604800`) and alternates mark-unread / mark-read over 5,000 messages
 * (POST /messages/flags/narrow, each mark-unread event ~205 KB of ids and details), while another
 * member sends GET /users/me every 10 ms. Reports the most the queues held (serialized bytes), the
 * heap, the victim's median and longest latency, and what one GET /events answers on a queue at
 * its byte budget. Run: node --expose-gc --import tsx bench/hostile.ts [requests]
 */
import { loadavg } from 'node:os';
import { withEventQueues } from '../src/host/live-realm';
import { openRealm } from '../src/host/realm-handle';
import { serveNode } from '../src/server/node';
import { memoryStore } from '../src/stores/memory/index';
import { basicAuthHeader } from '../src/wire/auth';
import { readFileSync } from 'node:fs';
import type { RealmSnapshotInput } from '../src/core/snapshot/format';

const REQUESTS = Number(process.argv[2] ?? 300);
const MESSAGES = 5000;
const PORT = Number(process.env['PORT'] ?? 9150);
const gc = (globalThis as { gc?: () => void }).gc;

interface SnapUser {
  user_id: number;
  email: string;
  api_key: string;
}
const snap = JSON.parse(
  readFileSync(new URL('../test/fixtures/dev-realm.json', import.meta.url), 'utf8'),
) as RealmSnapshotInput & { users: SnapUser[]; messages: Record<string, unknown>[] };
for (let i = 0; i < MESSAGES; i++)
  snap.messages.push({
    id: 10_000 + i,
    sender_id: 2,
    stream_id: 1,
    topic: `topic ${i % 50}`,
    content: `message ${i}`,
    timestamp: 1735700000 + i,
    flags: { '4': ['read'] },
  });
const auth = (id: number) => {
  const u = snap.users.find((x) => x.user_id === id)!;
  return basicAuthHeader(u.email, u.api_key);
};

const handle = await openRealm({ store: memoryStore(), snapshot: snap, checkpoints: false });
const live = withEventQueues(handle, { gcIntervalMs: 0 });
const server = await serveNode({ realm: live, port: PORT });
const url = (path: string) => `${server.url}/api/v1${path}`;
const post = (who: number, path: string, body: Record<string, string>) =>
  fetch(url(path), {
    method: 'POST',
    headers: { authorization: auth(who), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(body).toString(),
  });

const flip = (op: string) => ({
  op,
  flag: 'read',
  anchor: 'oldest',
  num_before: '0',
  num_after: '5000',
  narrow: JSON.stringify([{ operator: 'channel', operand: 'Verona' }]),
});

const reg = (await (
  await post(4, '/register', { queue_lifespan_secs: '604800', event_types: '["update_message_flags"]' })
).json()) as {
  queue_id: string;
};
let attacking = true;
const victimLoop = async (into: number[]) => {
  while (attacking) {
    const t = performance.now();
    await (await fetch(url('/users/me'), { headers: { authorization: auth(2) } })).text();
    into.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 10));
  }
};
// Baseline: the victim alone for 3 s.
const baseline: number[] = [];
const alone = victimLoop(baseline);
await new Promise((r) => setTimeout(r, 3000));
attacking = false;
await alone;
attacking = true;
const latencies: number[] = [];
const victim = victimLoop(latencies);
let mostBytes = 0;
let firstDrop = -1;
let mostHeap = 0;
const statuses = new Map<number, number>();
const t0 = performance.now();
for (let i = 0; i < REQUESTS; i++) {
  const r = await post(4, '/messages/flags/narrow', flip(i % 2 === 0 ? 'remove' : 'add'));
  await r.text();
  statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
  mostBytes = Math.max(mostBytes, live.queues.bytes);
  if (live.queues.size === 0 && firstDrop < 0) firstDrop = i;
  if (i % 20 === 0) mostHeap = Math.max(mostHeap, process.memoryUsage().heapUsed);
}
const elapsed = performance.now() - t0;
attacking = false;
await victim;
const poll = await fetch(url(`/events?queue_id=${reg.queue_id}&last_event_id=-1&dont_block=true`), {
  headers: { authorization: auth(4) },
});
const pollBody = await poll.text();

// A queue full to its budget (16 MiB), read by its client: one poll's size and time.
const reader = (await (await post(4, '/register', { event_types: '["update_message_flags"]' })).json()) as {
  queue_id: string;
};
let filled = 0;
while (live.queues.bytes < 15 * 1024 * 1024 && filled < 200) {
  await (await post(4, '/messages/flags/narrow', flip(filled % 2 === 0 ? 'remove' : 'add'))).text();
  filled++;
}
const heldBefore = live.queues.bytes;
const tp = performance.now();
const full = await fetch(url(`/events?queue_id=${reader.queue_id}&last_event_id=-1&dont_block=true`), {
  headers: { authorization: auth(4) },
});
const fullBody = await full.text();
const pollMs = performance.now() - tp;
gc?.();

const sorted = [...latencies].sort((a, b) => a - b);
const base = [...baseline].sort((a, b) => a - b);
const out = [
  `load average: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(', ')}`,
  `attack: ${REQUESTS} requests in ${(elapsed / 1000).toFixed(1)} s, statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
  `queues held at most ${(mostBytes / 2 ** 20).toFixed(2)} MiB (serialized); heap at most ${(mostHeap / 2 ** 20).toFixed(0)} MiB; queues open after: ${live.queues.size}`,
  `never-read queue's next poll: ${poll.status} ${pollBody.slice(0, 80)}`,
  `never-read queue dropped (BAD_EVENT_QUEUE_ID) after attack request ${firstDrop}`,
  `victim alone: ${base.length} requests, median ${base[Math.floor(base.length / 2)]!.toFixed(1)} ms, longest ${base.at(-1)!.toFixed(1)} ms`,
  `victim GET /users/me during the attack: ${latencies.length} requests, median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} ms, p99 ${sorted[Math.floor(sorted.length * 0.99)]!.toFixed(1)} ms, longest ${sorted.at(-1)!.toFixed(1)} ms`,
  `a queue holding ${(heldBefore / 2 ** 20).toFixed(1)} MiB: one GET /events answered ${full.status}, ${(fullBody.length / 2 ** 20).toFixed(2)} MiB in ${pollMs.toFixed(1)} ms`,
];
console.log(out.join('\n'));
live.close();
await server.close();
await handle.close();
