/**
 * POST /messages/flags/narrow on the large simulated organization: chat-realm against
 * (a) PostgreSQL with Zulip's schema and queries, (b) plain JavaScript over arrays of objects and
 * (c) a raw typed-array loop (the floor). Every scenario first checks that all implementations
 * select and change the same messages, then times them side by side in the same run.
 */
import { writeFileSync } from 'node:fs';
import type { RealmState } from '../../src/core/state';
import { simulateRealm, HEAVY_USER_ID } from '../../src/simulate/simulate';
import { FlatUser, PlainRealm } from './baselines';
import { connectPg, ZulipPg, type PgLoad } from './postgres';
import { markdownTable, ratioChart, type ResultRow } from './report';
import { NO_FILTER, pickTargets, runOurs, term, type Filter, type Outcome, type Scenario } from './scenarios';

const log = (s: string) => process.stderr.write(`${s}\n`);
const WINDOW = 5000;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** CPU time (user + system, this process) of the last `timeSync`, median, in ms. */
let lastCpuMs = 0;

/** Median wall time of `fn` over `n` runs, with `reset` (untimed) before each; also records CPU time. */
function timeSync(n: number, fn: () => void, reset: () => void = () => {}): number {
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < n + 2; i++) {
    reset();
    const c = process.cpuUsage();
    const t = performance.now();
    fn();
    const dt = performance.now() - t;
    const dc = process.cpuUsage(c);
    if (i >= 2) {
      times.push(dt);
      cpu.push((dc.user + dc.system) / 1000);
    }
  }
  lastCpuMs = median(cpu);
  return median(times);
}

async function timeAsync(n: number, fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n + 1; i++) {
    const t = performance.now();
    await fn();
    const dt = performance.now() - t;
    if (i >= 1) times.push(dt);
  }
  return median(times);
}

function same(name: string, what: string, a: readonly number[], b: readonly number[]): void {
  if (a.length !== b.length || a.some((x, i) => x !== b[i])) {
    throw new Error(`${name}: ${what} disagree (${a.length} vs ${b.length} ids; first ${a[0]} vs ${b[0]})`);
  }
}

function scenario(
  name: string,
  userId: number,
  narrow: Scenario['narrow'],
  filter: Partial<Filter>,
  flag: Scenario['flag'] = 'read',
  op: Scenario['op'] = 'add',
): Scenario {
  return {
    name,
    userId,
    narrow,
    anchor: 'oldest',
    numBefore: 0,
    numAfter: WINDOW,
    includeAnchor: true,
    flag,
    op,
    filter: { ...NO_FILTER, ...filter },
  };
}

function bytesPerRow(state: RealmState): { rows: number; rowBytes: number; storeBytes: number } {
  let rows = 0;
  let rowBytes = 0;
  for (const r of state.messages.rows.values()) {
    rows += r.count;
    for (const c of r.chunks) rowBytes += c.ids.byteLength + c.flags.byteLength;
  }
  let messageBytes = 0;
  for (const c of state.messages.chunks) {
    messageBytes +=
      c.ids.byteLength +
      c.recipient.byteLength +
      c.topic.byteLength +
      c.topicKey.byteLength +
      c.sender.byteLength +
      c.timestamp.byteLength +
      c.bits.byteLength;
  }
  for (const l of state.messages.byChannel.values()) for (const c of l.chunks) messageBytes += c.byteLength;
  for (const m of state.messages.byTopic.values())
    for (const l of m.values()) for (const c of l.chunks) messageBytes += c.byteLength;
  for (const l of state.messages.byConversation.values())
    for (const c of l.chunks) messageBytes += c.byteLength;
  return { rows, rowBytes, storeBytes: rowBytes + messageBytes };
}

export interface BenchOutput {
  readonly markdown: string;
  readonly svg: string;
}

export async function runFlagsNarrowBench(opts: { quick?: boolean } = {}): Promise<BenchOutput> {
  const notes: string[] = [];
  const iterations = opts.quick ? 5 : 21;
  // --- the organization --------------------------------------------------------------------------
  global.gc?.();
  const heapBefore = process.memoryUsage();
  let t = performance.now();
  log('simulating the large preset (10,000 users, 1,000 channels, 1,000,000 messages)…');
  let large: RealmState | null = simulateRealm({ preset: 'large', seed: 1 });
  const buildSeconds = (performance.now() - t) / 1000;
  global.gc?.();
  const heapAfter = process.memoryUsage();
  const mem = bytesPerRow(large);
  const heapDelta =
    heapAfter.heapUsed + heapAfter.arrayBuffers - (heapBefore.heapUsed + heapBefore.arrayBuffers);
  log(`  built in ${buildSeconds.toFixed(1)} s: ${large.messages.count} messages, ${mem.rows} rows`);
  const heavy = HEAVY_USER_ID;
  const targets = pickTargets(large, heavy);
  log(
    `  targets: channel ${targets.channel}, topic "${targets.topic}", sender ${targets.sender}, DM user ${targets.dmUser}`,
  );

  const scenarios: Scenario[] = [
    scenario('is:unread + channel', heavy, [term('is', 'unread'), term('channel', targets.channel)], {
      unread: true,
      channel: targets.channel,
    }),
    scenario(
      'is:unread + channel + topic',
      heavy,
      [term('is', 'unread'), term('channel', targets.channel), term('topic', targets.topic)],
      {
        unread: true,
        channel: targets.channel,
        topicKey: targets.topicKey,
        topic: targets.topic,
      },
    ),
    scenario('is:unread + sender', heavy, [term('is', 'unread'), term('sender', targets.sender)], {
      unread: true,
      sender: targets.sender,
    }),
    scenario('is:unread + is:dm', targets.dmUser, [term('is', 'unread'), term('is', 'dm')], {
      unread: true,
      dm: true,
    }),
    scenario('is:unread (everything)', heavy, [term('is', 'unread')], { unread: true }),
    scenario(
      'star a topic',
      heavy,
      [term('channel', targets.channel), term('topic', targets.topic)],
      { channel: targets.channel, topicKey: targets.topicKey, topic: targets.topic },
      'starred',
      'add',
    ),
    scenario(
      'unstar a topic',
      heavy,
      [term('channel', targets.channel), term('topic', targets.topic)],
      { channel: targets.channel, topicKey: targets.topicKey, topic: targets.topic },
      'starred',
      'remove',
    ),
    scenario(
      'mark unread (channel window)',
      heavy,
      [term('channel', targets.channel)],
      { channel: targets.channel },
      'read',
      'remove',
    ),
  ];

  log('building baselines…');
  const flats = new Map<number, FlatUser>([
    [heavy, new FlatUser(large, heavy)],
    [targets.dmUser, new FlatUser(large, targets.dmUser)],
  ]);
  const plain = new PlainRealm(large, [heavy, targets.dmUser]);

  const pgClient = await connectPg();
  let pg: ZulipPg | null = null;
  let pgLoad: PgLoad | null = null;
  if (pgClient === null) {
    notes.push('PostgreSQL was not reachable at the configured URL: the PostgreSQL column is n/a.');
    log('PostgreSQL not reachable: skipping baseline (a)');
  } else {
    pg = new ZulipPg(pgClient);
    const others = [...large.messages.rows.keys()].filter((u) => u !== heavy && u !== targets.dmUser);
    log('loading PostgreSQL (Zulip schema)…');
    pgLoad = await pg.load(
      large,
      [heavy, targets.dmUser, ...others],
      opts.quick ? 1_500_000 : 3_000_000,
      log,
    );
    log(`  loaded in ${pgLoad.loadSeconds.toFixed(1)} s, indexes ${pgLoad.indexSeconds.toFixed(1)} s`);
  }

  const results: ResultRow[] = [];
  const scale: Array<{ name: string; window: number; largeMs: number; smallMs: number }> = [];
  let pgMarkAll: { batches: number; rows: number; ms: number } | null = null;
  try {
    // --- per-request scenarios ---------------------------------------------------------------------
    for (const s0 of scenarios) {
      let s = s0;
      let base = large;
      const flat = flats.get(s.userId)!;
      const flatSaved = flat.snapshotFlags();
      const plainSaved = plain.snapshotFlags(s.userId);
      // Setup states for unstar / mark unread: first apply the opposite change everywhere.
      const setupOpposite = s.name === 'unstar a topic' || s.name === 'mark unread (channel window)';
      let setupIds: number[] = [];
      if (setupOpposite) {
        const opposite: Scenario = { ...s, op: 'add' };
        const r = runOurs(large, opposite);
        base = r.state;
        setupIds = r.outcome.updated;
        flat.run(opposite);
        plain.run(opposite);
        if (pg) await pg.setBits(s.userId, setupIds, s.flag === 'read' ? 1 : 2, true);
      }
      const flatBase = flat.snapshotFlags();
      const plainBase = plain.snapshotFlags(s.userId);
      // Agreement first.
      const ours = runOurs(base, s);
      const floorOut = flat.run(s);
      flat.restoreFlags(flatBase);
      const plainOut = plain.run(s);
      plain.restoreFlags(s.userId, plainBase);
      same(s.name, 'floor vs chat-realm (updated)', floorOut.updated, ours.outcome.updated);
      same(s.name, 'plain vs chat-realm (updated)', plainOut.updated, ours.outcome.updated);
      const processed = Number(ours.body['processed_count']);
      if (processed !== plainOut.processed.length || processed !== floorOut.processed.length)
        throw new Error(`${s.name}: processed ${processed} vs plain ${plainOut.processed.length}`);
      let pgOut: Outcome | null = null;
      if (pg) {
        pgOut = await pg.run(s, 0, false);
        same(s.name, 'PostgreSQL vs chat-realm (updated)', pgOut.updated, ours.outcome.updated);
        if (pgOut.processed.length !== processed)
          throw new Error(`${s.name}: processed ${processed} vs PostgreSQL ${pgOut.processed.length}`);
      }
      log(
        `${s.name}: ${processed} processed, ${ours.outcome.updated.length} updated — all implementations agree`,
      );
      // Then time them side by side.
      const stateForRun = base;
      const oursMs = timeSync(iterations, () => void runOurs(stateForRun, s));
      const oursCpuMs = lastCpuMs;
      const floorMs = timeSync(
        iterations,
        () => void flat.run(s),
        () => flat.restoreFlags(flatBase),
      );
      const plainMs = timeSync(
        iterations,
        () => void plain.run(s),
        () => plain.restoreFlags(s.userId, plainBase),
      );
      const pgMs = pg ? await timeAsync(opts.quick ? 2 : 5, () => pg!.run(s, 0, false)) : null;
      flat.restoreFlags(flatSaved);
      plain.restoreFlags(s.userId, plainSaved);
      if (pg && setupOpposite) await pg.setBits(s.userId, setupIds, s.flag === 'read' ? 1 : 2, false);
      results.push({ scenario: s.name, rows: processed, oursMs, oursCpuMs, floorMs, plainMs, pgMs });
      log(
        `  chat-realm ${oursMs.toFixed(3)} ms (CPU ${oursCpuMs.toFixed(3)}) · floor ${floorMs.toFixed(3)} ms · plain ${plainMs.toFixed(3)} ms · PostgreSQL ${pgMs?.toFixed(1) ?? 'n/a'} ms`,
      );
      s = s0;
    }

    // --- per-request cost versus organization size ---------------------------------------------------
    log('simulating the small preset for the scale comparison…');
    const small = simulateRealm({ preset: 'small', seed: 1 });
    const smallTargets = pickTargets(small, heavy);
    for (const [name, narrowLarge, narrowSmall] of [
      ['is:unread (everything)', [term('is', 'unread')], [term('is', 'unread')]],
      [
        'is:unread + channel',
        [term('is', 'unread'), term('channel', targets.channel)],
        [term('is', 'unread'), term('channel', smallTargets.channel)],
      ],
    ] as const) {
      const window = 200;
      const sL = { ...scenario(name, heavy, [...narrowLarge], {}), numAfter: window };
      const sS = { ...scenario(name, heavy, [...narrowSmall], {}), numAfter: window };
      const nL = Number(runOurs(large, sL).body['processed_count']);
      const nS = Number(runOurs(small, sS).body['processed_count']);
      if (nL !== window || nS !== window)
        notes.push(`scale check "${name}": windows of ${nL} (large) and ${nS} (small) rows`);
      const largeMs = timeSync(iterations * 3, () => void runOurs(large!, sL));
      const smallMs = timeSync(iterations * 3, () => void runOurs(small, sS));
      scale.push({ name, window, largeMs, smallMs });
      log(
        `scale ${name}: large ${largeMs.toFixed(3)} ms, small ${smallMs.toFixed(3)} ms (${(largeMs / smallMs).toFixed(2)}×)`,
      );
    }

    // --- mark everything read, 5000 per request ------------------------------------------------------
    // PostgreSQL: time the first batches of the same loop on the large preset's heavy user and
    // extrapolate per row (a full 1M-row run takes minutes).
    if (pg) {
      const s = scenario('mark all read', heavy, [term('is', 'unread')], { unread: true });
      const batches = opts.quick ? 3 : 10;
      let after = 0;
      let rows = 0;
      const t0 = performance.now();
      for (let b = 0; b < batches; b++) {
        const out = await pg.run({ ...s, includeAnchor: b === 0 }, after, true);
        rows += out.updated.length;
        after = out.processed[out.processed.length - 1] ?? after;
      }
      pgMarkAll = { batches, rows, ms: performance.now() - t0 };
      log(`PostgreSQL mark-all: ${batches} batches, ${rows} rows in ${pgMarkAll.ms.toFixed(0)} ms`);
    }
  } finally {
    if (pg) {
      await pg.drop();
      await pg.client.end();
    }
  }
  flats.clear();
  large = null;
  global.gc?.();

  log('simulating the large preset with channel messages only (the heavy user then has 1,000,000 unread)…');
  t = performance.now();
  const allChannel = simulateRealm({ preset: 'large', seed: 1, dmRatio: 0 });
  log(`  built in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const unread = allChannel.messages.rows.get(heavy)!.count;
  const markAll = scenario('mark all read', heavy, [term('is', 'unread')], { unread: true });
  const loopOurs = (): { ms: number; cpuMs: number; requests: number; rows: number } => {
    let state = allChannel;
    let anchor: Scenario['anchor'] = 'oldest';
    let requests = 0;
    let rows = 0;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (;;) {
      const r = runOurs(state, { ...markAll, anchor, includeAnchor: anchor === 'oldest' });
      state = r.state;
      requests++;
      rows += r.outcome.updated.length;
      if (r.body['found_newest'] === true) break;
      anchor = Number(r.body['last_processed_id']);
    }
    const ms = performance.now() - t0;
    const c = process.cpuUsage(c0);
    return { ms, cpuMs: (c.user + c.system) / 1000, requests, rows };
  };
  // Filled after the chat-realm runs, so the baselines' data is not alive during them.
  const all = {} as { flat: FlatUser; saved: Uint16Array; plain: PlainRealm; plainSaved: number[] };
  const loopFloor = () => {
    all.flat.restoreFlags(all.saved);
    let after = 0;
    let rows = 0;
    const t0 = performance.now();
    for (;;) {
      const n = all.flat.window({ ...NO_FILTER, unread: true }, after, WINDOW, 1, true);
      rows += all.flat.changed;
      if (n < WINDOW) break;
      after = all.flat.last;
    }
    return { ms: performance.now() - t0, rows };
  };
  const loopPlain = () => {
    all.plain.restoreFlags(heavy, all.plainSaved);
    let after = 0;
    let rows = 0;
    const t0 = performance.now();
    for (;;) {
      const out = all.plain.run(markAll, after);
      rows += out.updated.length;
      if (out.processed.length < WINDOW) break;
      after = out.processed[out.processed.length - 1]!;
    }
    return { ms: performance.now() - t0, rows };
  };
  // chat-realm first, while only its own data is alive (the baselines' copies would slow its GC).
  global.gc?.();
  const ourRuns = [loopOurs(), loopOurs(), loopOurs(), loopOurs(), loopOurs()];
  const oursAll = ourRuns.sort((a, b) => a.ms - b.ms)[2]!;
  all.flat = new FlatUser(allChannel, heavy);
  all.saved = all.flat.snapshotFlags();
  all.plain = new PlainRealm(allChannel, [heavy]);
  all.plainSaved = all.plain.snapshotFlags(heavy);
  const floorRuns = [loopFloor(), loopFloor(), loopFloor()].sort((a, b) => a.ms - b.ms);
  const plainRuns = [loopPlain(), loopPlain(), loopPlain()].sort((a, b) => a.ms - b.ms);
  if (oursAll.rows !== unread || floorRuns[1]!.rows !== unread || plainRuns[1]!.rows !== unread) {
    throw new Error(
      `mark-all disagrees: ours ${oursAll.rows}, floor ${floorRuns[1]!.rows}, plain ${plainRuns[1]!.rows}, unread ${unread}`,
    );
  }
  const pgAllMs = pgMarkAll ? (pgMarkAll.ms / pgMarkAll.rows) * unread : null;
  log(
    `mark all read (${unread} rows, ${oursAll.requests} requests): chat-realm ${oursAll.ms.toFixed(1)} ms, floor ${floorRuns[1]!.ms.toFixed(1)} ms, plain ${plainRuns[1]!.ms.toFixed(1)} ms, PostgreSQL ≈ ${pgAllMs === null ? 'n/a' : `${(pgAllMs / 1000).toFixed(1)} s`} (extrapolated)`,
  );
  results.push({
    scenario: `mark all read (${oursAll.requests} × 5000)`,
    rows: unread,
    oursMs: oursAll.ms,
    oursCpuMs: oursAll.cpuMs,
    floorMs: floorRuns[1]!.ms,
    plainMs: plainRuns[1]!.ms,
    pgMs: pgAllMs,
  });

  // --- report --------------------------------------------------------------------------------------
  const window1 = results[0]!;
  const lines = [
    `Machine: ${process.platform} ${process.arch}, Node ${process.version}, ${(await import('node:os')).cpus().length} CPUs, load average ${(
      await import('node:os')
    )
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' / ')} at the end of the run.`,
    `Large preset built in ${buildSeconds.toFixed(1)} s: ${mem.rows.toLocaleString('en-US')} (user, message) rows.`,
    `Memory: ${(mem.rowBytes / mem.rows).toFixed(2)} bytes per row for the rows themselves (ids + flags); ${(mem.storeBytes / mem.rows).toFixed(2)} bytes per row including message columns and the channel/topic/conversation indexes (typed arrays only); heap + array buffers grew by ${(heapDelta / mem.rows).toFixed(2)} bytes per row while building the whole organization (strings and records included).`,
    pgLoad
      ? `PostgreSQL (${pgClient ? 'local server' : ''}): all ${pgLoad.messages.toLocaleString('en-US')} messages, but only ${pgLoad.usermessages.toLocaleString('en-US')} usermessage rows (${pgLoad.users} users, the benchmark users first) to keep loading short; COPY ${pgLoad.loadSeconds.toFixed(0)} s, Zulip's indexes ${pgLoad.indexSeconds.toFixed(0)} s. Each timed request runs in one transaction ended by ROLLBACK (so no commit fsync is counted, which favours PostgreSQL).`
      : 'PostgreSQL: not reachable, column n/a.',
    pgMarkAll
      ? `PostgreSQL mark-all: ${pgMarkAll.batches} committed batches of the same loop (${pgMarkAll.rows.toLocaleString('en-US')} rows in ${(pgMarkAll.ms / 1000).toFixed(1)} s) extrapolated per row to ${unread.toLocaleString('en-US')} rows; the other three ran the whole loop, on the variant of the large preset without direct messages where the heavy user has ${unread.toLocaleString('en-US')} unread.`
      : '',
    ...notes,
  ].filter((l) => l !== '');
  const targetsTable = [
    '| target | reached |',
    '|---|---|',
    `| one 5000-window request within 5× of the floor | ${results
      .slice(0, 5)
      .map((r) => `${r.scenario}: ${(r.oursMs / r.floorMs).toFixed(2)}×`)
      .join('; ')} |`,
    `| at least 1,000× faster than PostgreSQL | ${results.map((r) => (r.pgMs === null ? `${r.scenario}: n/a` : `${r.scenario}: ${(r.pgMs / r.oursMs).toFixed(0)}×`)).join('; ')} |`,
    `| 1,000,000-row mark-all-read under 50 ms | ${oursAll.ms.toFixed(1)} ms wall (${oursAll.cpuMs.toFixed(1)} ms CPU) for ${unread.toLocaleString('en-US')} rows in ${oursAll.requests} requests |`,
    `| per-request cost independent of organization size (large ÷ small ≤ 2) | ${scale.map((x) => `${x.name} (${x.window} rows): ${(x.largeMs / x.smallMs).toFixed(2)}×`).join('; ')} |`,
    `| ≤ 8 bytes per (user, message) row | ${(mem.rowBytes / mem.rows).toFixed(2)} bytes (rows); ${(mem.storeBytes / mem.rows).toFixed(2)} with message columns and indexes |`,
  ].join('\n');
  const markdown = [
    '## POST /messages/flags/narrow (large preset)',
    '',
    'Median time of one request (one 5000-message window, anchor `oldest`) unless noted; chat-realm runs the whole operation',
    '(parameter parsing, narrow, window, copy-on-write update, event) and keeps every older state valid; the baselines mutate in place.',
    '',
    markdownTable(results),
    '',
    ratioLine(window1),
    '',
    '![ratios](flags-narrow.svg)',
    '',
    targetsTable,
    '',
    ...lines.map((l) => `- ${l}`),
  ].join('\n');
  const svg = ratioChart(results);
  void writeFileSync;
  return { markdown, svg };
}

function ratioLine(r: ResultRow): string {
  return `Headline (${r.scenario}): chat-realm ${r.oursMs.toFixed(3)} ms = ${(r.oursMs / r.floorMs).toFixed(2)}× the floor, ${(r.plainMs / r.oursMs).toFixed(1)}× faster than plain JS${r.pgMs === null ? '' : `, ${(r.pgMs / r.oursMs).toFixed(0)}× faster than PostgreSQL`}.`;
}
