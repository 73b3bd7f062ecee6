/**
 * Presence at scale: 10,000 users of one organization each pinging `POST /users/me/presence` on
 * Zulip's default interval (60 s, `ping_only`, as zulip-terminal and the mobile app do; one round
 * in four as a full poll with `last_update_id`), through `LiveRealm.request` — authentication,
 * parameter parsing, the pure operation, the host's presence table, event delivery — on one
 * process. Measures CPU per ping (process.cpuUsage over whole rounds), the rate one core
 * sustains against the 167 pings/s the organization sends, the heap the presence table costs per
 * user, and that the change log stayed empty.
 *
 *   node --expose-gc --import tsx bench/presence.ts
 */
import { loadavg } from 'node:os';
import { snapshotRealm } from '../src/core/snapshot/export';
import { withEventQueues } from '../src/host/live-realm';
import { openRealm } from '../src/host/realm-handle';
import { PresenceTable } from '../src/host/presence-table';
import { simulateRealm } from '../src/simulate/simulate';
import { memoryStore } from '../src/stores/memory/index';
import { basicAuthHeader } from '../src/wire/auth';

const USERS = 10_000;
const ROUNDS = 4;
const gc = (globalThis as { gc?: () => void }).gc;
const heap = () => {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
};

export async function runPresenceBench(log: (line: string) => void = console.log): Promise<string> {
  const state = simulateRealm({ preset: 'large', users: USERS, channels: 100, messages: 1000, seed: 1 });
  const store = memoryStore();
  const handle = await openRealm({ store, snapshot: snapshotRealm(state), checkpoints: false });
  let nowMs = 1_800_000_000_000;
  const clock = {
    now: () => nowMs,
    setTimer: (fn: () => void, ms: number) => setTimeout(fn, ms),
    clearTimer: (t: unknown) => clearTimeout(t as ReturnType<typeof setTimeout>),
  };
  const live = withEventQueues(handle, { clock, gcIntervalMs: 0 });
  const humans = [...handle.state.users.values()].filter((u) => u.is_active && !u.is_bot);
  const auth = humans.map((u) => basicAuthHeader(u.delivery_email, u.api_key));
  const before = heap();
  const perRound: number[] = [];
  let fullPolls = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const cpu = process.cpuUsage();
    for (let i = 0; i < humans.length; i++) {
      // Spread the round's pings over Zulip's 60 s interval.
      nowMs += 60_000 / humans.length;
      const full = i % 4 === 0;
      if (full) fullPolls++;
      const body = full
        ? `status=active&last_update_id=${live.presence.lastUpdateId - 50}`
        : `status=${i % 3 === 0 ? 'idle' : 'active'}&ping_only=true`;
      const r = await live.request({
        method: 'POST',
        url: '/api/v1/users/me/presence',
        headers: { authorization: auth[i]! },
        body,
      });
      if (r.status !== 200) throw new Error(JSON.stringify(r.body));
    }
    const used = process.cpuUsage(cpu);
    perRound.push((used.user + used.system) / humans.length);
    log(`round ${round}: ${perRound[round]!.toFixed(1)} µs CPU per ping`);
  }
  const after = heap();
  // The table alone, filled with as many rows, for a per-user figure free of the realm's noise.
  const probe = new PresenceTable();
  const empty = heap();
  for (const row of live.presence.values()) probe.apply([{ type: 'update_presence', row: { ...row } }]);
  const full = heap();
  const changes = (await store.changesSince(0)).length;
  const steady = perRound.slice(1);
  const cpuPerPing = steady.reduce((a, b) => a + b, 0) / steady.length;
  const lines = [
    `- ${humans.length.toLocaleString('en')} humans pinging, ${ROUNDS} rounds of 60 s (simulated clock), ` +
      `${fullPolls.toLocaleString('en')} of the pings full polls with \`last_update_id\`: ` +
      `**${cpuPerPing.toFixed(0)} µs CPU per ping** (rounds 2–${ROUNDS}; first round ${perRound[0]!.toFixed(0)} µs, rows created)`,
    `- one core sustains ~${Math.round(1e6 / cpuPerPing).toLocaleString('en')} pings/s; the organization sends ` +
      `${Math.round(humans.length / 60)} pings/s (${((cpuPerPing * humans.length) / 60 / 1e4).toFixed(1)} % of a core)`,
    `- presence table: ${probe.size.toLocaleString('en')} rows, **${((full - empty) / probe.size).toFixed(0)} bytes of heap per user**; ` +
      `the whole run's heap growth ${((after - before) / 1e6).toFixed(1)} MB` +
      (gc ? '' : ' (run with --expose-gc for a stable figure)'),
    `- change log after ${(ROUNDS * humans.length).toLocaleString('en')} pings: ${changes} records; realm version ${handle.version}`,
    `- load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(', ')}`,
  ];
  live.close();
  await handle.close();
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runPresenceBench().then(
    (text) => console.log(text),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
