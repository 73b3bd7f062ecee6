/**
 * Hostile load on one realm (issue 31), on loopback. One member (Hamlet, in a child process)
 * registers a queue it never reads (`queue_lifespan_secs=604800`) and alternates mark-unread /
 * mark-read over 5,000 messages (POST /messages/flags/narrow, each mark-unread event ~205 KB of
 * ids and details), with ATTACKERS requests in flight at once; another member (Iago, in another
 * child process, so a busy server counts against every request he makes) sends GET /users/me
 * every 10 ms. The realm is served twice from one process: with fair
 * scheduling (src/server/fairness.ts, as `serve` does) and without; the rate limit is off on both
 * so the attack runs at full speed. Phases interleave (alone, attack without fairness, attack
 * with fairness; ROUNDS times), so the load of the machine weighs on all of them alike. Iago
 * always goes through the fair server. Then: the most the queues held (serialized bytes), the
 * heap, and what one GET /events answers on a queue at its byte budget.
 *
 * Run: node --expose-gc --import tsx bench/hostile.ts [rounds] [phase-ms]
 * Env: PORT (default 9150; PORT+1 too), ATTACKERS (default 4), FAIR_SHARE (ms/s, as `serve --fair-share`),
 * CLIENT_CPUS (run the clients under `taskset -c CLIENT_CPUS`; pin the bench to another CPU).
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { GCProfiler } from 'node:v8';
import { withEventQueues } from '../src/host/live-realm';
import { openRealm } from '../src/host/realm-handle';
import { FairScheduler } from '../src/server/fairness';
import { serveNode } from '../src/server/node';
import { memoryStore } from '../src/stores/memory/index';
import { authFor, flip, floodSnapshot, post } from './flag-flood-support';

const CLIENT_CPUS = process.env['CLIENT_CPUS'];

if (process.argv[2] === '--attacker') await attacker();
else if (process.argv[2] === '--victim') await victim();
else await main();

/**
 * The victim's process (its own event loop, so a server that is busy when a request is due still
 * counts against it): GET /users/me every 10 ms, each latency filed under the phase the parent
 * last named (`phase NAME`, `phase -` for none); `report` prints them all as JSON.
 */
async function victim(): Promise<void> {
  const authorization = process.env['AUTH']!;
  const url = process.env['URL']!;
  let phase: string | undefined;
  let on = true;
  const latencies: Record<string, number[]> = {};
  const loop = (async () => {
    while (on) {
      const at = phase;
      const t = performance.now();
      await (await fetch(`${url}/api/v1/users/me`, { headers: { authorization } })).text();
      const ms = performance.now() - t;
      if (at !== undefined && at === phase) (latencies[at] ??= []).push(ms);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  for await (const line of createInterface({ input: process.stdin })) {
    if (line.startsWith('phase ')) {
      const name = line.slice(6);
      phase = name === '-' ? undefined : name;
    } else if (line === 'report') {
      on = false;
      await loop;
      process.stdout.write(`${JSON.stringify(latencies)}\n`);
      process.exit(0);
    }
  }
}

/**
 * The attacker's process: on `attack URL` it registers a never-read queue there and flips flags
 * with ATTACKERS requests in flight until `pause`, then prints how many it made and their statuses.
 */
async function attacker(): Promise<void> {
  const authorization = process.env['AUTH']!;
  const concurrency = Number(process.env['ATTACKERS'] ?? 4);
  let target: string | undefined;
  let running: Promise<void>[] = [];
  let count = 0;
  const statuses: Record<number, number> = {};
  const loop = async (base: string) => {
    let i = 0;
    while (target === base) {
      const r = await post(
        base,
        authorization,
        '/messages/flags/narrow',
        flip(i++ % 2 === 0 ? 'remove' : 'add'),
      );
      await r.text();
      count++;
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    }
  };
  for await (const line of createInterface({ input: process.stdin })) {
    const [command, url] = line.split(' ');
    if (command === 'attack') {
      target = url!;
      count = 0;
      for (const k of Object.keys(statuses)) delete statuses[Number(k)];
      await (
        await post(target, authorization, '/register', {
          queue_lifespan_secs: '604800',
          event_types: '["update_message_flags"]',
        })
      ).text();
      running = Array.from({ length: concurrency }, () => loop(url!));
    } else if (command === 'pause') {
      target = undefined;
      await Promise.all(running);
      process.stdout.write(`${JSON.stringify({ count, statuses })}\n`);
    } else if (command === 'quit') {
      process.exit(0);
    }
  }
}

async function main(): Promise<void> {
  const ROUNDS = Number(process.argv[2] ?? 6);
  const PHASE_MS = Number(process.argv[3] ?? 1500);
  const PORT = Number(process.env['PORT'] ?? 9150);
  const gc = (globalThis as { gc?: () => void }).gc;

  const snap = floodSnapshot();
  const auth = (id: number) => authFor(snap, id);

  const handle = await openRealm({ store: memoryStore(), snapshot: snap, checkpoints: false });
  const live = withEventQueues(handle, { gcIntervalMs: 0 });
  // FAIR_SHARE=ms/s (default: the scheduler's, as in `serve`).
  const share = /^(\d+)\/(\d+)$/.exec(process.env['FAIR_SHARE'] ?? '');
  const scheduler = new FairScheduler(
    share === null ? {} : { shareMsPerSec: Number(share[1]) / Number(share[2]) },
  );
  const fair = await serveNode({ realm: live, port: PORT, fairness: scheduler });
  const unfair = await serveNode({ realm: live, port: PORT + 1 });

  const spawnRole = (role: string, env: Record<string, string>) => {
    // CLIENT_CPUS (e.g. "1", with the bench itself under `taskset -c 0`): the clients on their own
    // core, so the attacker's client does not take the server's CPU, as on separate machines.
    const argv = [process.execPath, '--import', 'tsx', fileURLToPath(import.meta.url), role];
    const pinned = CLIENT_CPUS === undefined ? argv : ['taskset', '-c', CLIENT_CPUS, ...argv];
    const child = spawn(pinned[0]!, pinned.slice(1), {
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const replies = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    return {
      tell: (line: string) => child.stdin.write(`${line}\n`),
      reply: async () => (await replies.next()).value as string,
    };
  };
  const attack = spawnRole('--attacker', { AUTH: auth(4) });
  // Iago always goes through the fair server.
  const victim = spawnRole('--victim', { AUTH: auth(2), URL: fair.url });

  type Phase = 'alone' | 'attack, no fairness' | 'attack, fair scheduling';
  const phases: Phase[] = ['alone', 'attack, no fairness', 'attack, fair scheduling'];
  const attacks = new Map<Phase, { count: number; ms: number; statuses: Record<string, number> }>();

  let mostBytes = 0;
  let mostHeap = 0;
  // The phase being measured (undefined between phases) and, per phase, the most heap used.
  let current: Phase | undefined;
  const phaseHeap = new Map<Phase, number>();
  const sample = setInterval(() => {
    mostBytes = Math.max(mostBytes, live.queues.bytes);
    const used = process.memoryUsage().heapUsed;
    mostHeap = Math.max(mostHeap, used);
    if (current !== undefined) phaseHeap.set(current, Math.max(phaseHeap.get(current) ?? 0, used));
  }, 20);
  // The server's collector pauses (this process runs both servers), filed under the phase whose
  // measured window they started in: load-insensitive evidence of what the tail waits behind.
  const windows: { phase: Phase; start: number; end: number }[] = [];
  const pauses: { start: number; ms: number; major: boolean }[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      pauses.push({
        start: e.startTime,
        ms: e.duration,
        major: kind !== perfConstants.NODE_PERFORMANCE_GC_MINOR,
      });
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  interface SpaceUse {
    spaceName: string;
    spaceUsedSize: number;
  }
  interface GcStat {
    gcType: string;
    beforeGC: { heapSpaceStatistics: SpaceUse[] };
    afterGC: { heapSpaceStatistics: SpaceUse[] };
  }
  const oldBytes = (spaces: SpaceUse[]) =>
    spaces
      .filter((x) => x.spaceName === 'old_space' || x.spaceName === 'large_object_space')
      .reduce((n, x) => n + x.spaceUsedSize, 0);
  const promoted = new Map<Phase, number>();
  const loads: string[] = [];
  const t0 = performance.now();
  for (let round = 0; round < ROUNDS; round++) {
    loads.push(loadavg()[0]!.toFixed(2));
    // Rotated each round, so no phase always follows the same one.
    for (let k = 0; k < phases.length; k++) {
      const p = phases[(k + round) % phases.length]!;
      const base = p === 'alone' ? undefined : p === 'attack, no fairness' ? unfair.url : fair.url;
      if (base !== undefined) attack.tell(`attack ${base}`);
      // Let the attack get going before measuring.
      await new Promise((r) => setTimeout(r, 100));
      victim.tell(`phase ${p}`);
      current = p;
      // Bytes the scavenges of this phase promoted (the old and large-object spaces' growth across
      // each): what the server keeps alive of the attack, independent of the machine's load.
      const profiler = new GCProfiler();
      profiler.start();
      const started = performance.now();
      await new Promise((r) => setTimeout(r, PHASE_MS));
      victim.tell('phase -');
      current = undefined;
      windows.push({ phase: p, start: started, end: performance.now() });
      const { statistics } = profiler.stop() as { statistics: GcStat[] };
      for (const g of statistics)
        if (g.gcType === 'Scavenge')
          promoted.set(
            p,
            (promoted.get(p) ?? 0) +
              Math.max(0, oldBytes(g.afterGC.heapSpaceStatistics) - oldBytes(g.beforeGC.heapSpaceStatistics)),
          );
      if (base !== undefined) {
        attack.tell('pause');
        const reply = JSON.parse(await attack.reply()) as {
          count: number;
          statuses: Record<string, number>;
        };
        const seen = attacks.get(p) ?? { count: 0, ms: 0, statuses: {} };
        seen.count += reply.count;
        seen.ms += performance.now() - started;
        for (const [s, n] of Object.entries(reply.statuses)) seen.statuses[s] = (seen.statuses[s] ?? 0) + n;
        attacks.set(p, seen);
      }
    }
  }
  const elapsed = performance.now() - t0;
  attack.tell('quit');
  victim.tell('report');
  const latencies = JSON.parse(await victim.reply()) as Partial<Record<Phase, number[]>>;
  clearInterval(sample);
  // Entries are delivered asynchronously: let the last ones arrive before disconnecting.
  await new Promise((r) => setTimeout(r, 50));
  observer.disconnect();

  // A queue full to its budget (16 MiB), read by its client: one poll's size and time. The
  // attacker's queues go first (they would also receive these flag events).
  live.queues.dropAll();
  const hamlet = auth(4);
  const reader = (await (
    await post(unfair.url, hamlet, '/register', { event_types: '["update_message_flags"]' })
  ).json()) as { queue_id: string };
  // 64 flips: 32 mark-unread events of ~205 KB, ~14.5 MiB (one more pair and the queue would
  // pass its 16 MiB budget and be dropped).
  let filled = 0;
  while (filled < 64) {
    await (
      await post(unfair.url, hamlet, '/messages/flags/narrow', flip(filled % 2 === 0 ? 'remove' : 'add'))
    ).text();
    filled++;
  }
  const heldBefore = live.queues.bytes;
  const tp = performance.now();
  const full = await fetch(
    `${unfair.url}/api/v1/events?queue_id=${reader.queue_id}&last_event_id=-1&dont_block=true`,
    { headers: { authorization: hamlet } },
  );
  const fullBody = await full.text();
  const pollMs = performance.now() - tp;
  gc?.();

  const stats = (xs: readonly number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return {
      n: s.length,
      median: s[Math.floor(s.length / 2)] ?? Number.NaN,
      p99: s[Math.min(s.length - 1, Math.floor(s.length * 0.99))] ?? Number.NaN,
      longest: s.at(-1) ?? Number.NaN,
    };
  };
  const alone = stats(latencies.alone ?? []);
  const out = [
    `load average at each round: ${loads.join(', ')}; at the end: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(', ')}`,
    `${ROUNDS} rounds of ${phases.length} × ${PHASE_MS} ms phases in ${(elapsed / 1000).toFixed(1)} s; ${process.env['ATTACKERS'] ?? 4} attack requests in flight`,
    '',
    '| Iago GET /users/me | requests | median ms | p99 ms | longest ms | median / alone | p99 / alone | attack requests/s |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...phases.map((p) => {
      const s = stats(latencies[p] ?? []);
      const a = attacks.get(p);
      const rate =
        a === undefined ? '' : `${((a.count * 1000) / a.ms).toFixed(0)} (${JSON.stringify(a.statuses)})`;
      return `| ${p} | ${s.n} | ${s.median.toFixed(2)} | ${s.p99.toFixed(2)} | ${s.longest.toFixed(1)} | ${(s.median / alone.median).toFixed(2)} | ${(s.p99 / alone.p99).toFixed(2)} | ${rate} |`;
    }),
    '',
    '',
    '| server GC in phase (all phases summed) | scavenges | > 2 ms | total ms | longest ms | other (mark-compact…) | total ms | longest ms | GC ms per attack request | promoted MiB | promoted KiB per attack request | heap at most MiB |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...phases.map((p) => {
      const mine = pauses.filter((g) =>
        windows.some((w) => w.phase === p && g.start >= w.start && g.start < w.end),
      );
      const minor = mine.filter((g) => !g.major).map((g) => g.ms);
      const major = mine.filter((g) => g.major).map((g) => g.ms);
      const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
      const most = (xs: number[]) => xs.reduce((a, b) => Math.max(a, b), 0);
      // The collector's time per attack request: comparable between runs whatever the attack's rate.
      const made = attacks.get(p)?.count ?? 0;
      const perRequest = made === 0 ? '' : ((sum(minor) + sum(major)) / made).toFixed(3);
      const up = promoted.get(p) ?? 0;
      return `| ${p} | ${minor.length} | ${minor.filter((ms) => ms > 2).length} | ${sum(minor).toFixed(1)} | ${most(minor).toFixed(1)} | ${major.length} | ${sum(major).toFixed(1)} | ${most(major).toFixed(1)} | ${perRequest} | ${(up / 2 ** 20).toFixed(1)} | ${made === 0 ? '' : (up / 1024 / made).toFixed(1)} | ${((phaseHeap.get(p) ?? 0) / 2 ** 20).toFixed(0)} |`;
    }),
    '',
    `queues held at most ${(mostBytes / 2 ** 20).toFixed(2)} MiB (serialized); heap at most ${(mostHeap / 2 ** 20).toFixed(0)} MiB`,
    `a queue holding ${(heldBefore / 2 ** 20).toFixed(1)} MiB: one GET /events answered ${full.status}, ${(fullBody.length / 2 ** 20).toFixed(2)} MiB in ${pollMs.toFixed(1)} ms`,
  ];
  console.log(out.join('\n'));
  live.close();
  await fair.close();
  await unfair.close();
  await handle.close();
}
