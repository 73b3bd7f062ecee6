/**
 * Register (POST /register's initial state, `registerState`) against the `JSON.stringify` of the
 * same answer rebuilt from plain, fast-shaped objects (the floor: serializing the answer is work
 * every register must do). Interleaved, warmed, medians of batches from one run, wall and CPU time.
 *
 *   node --expose-gc --import tsx bench/register.ts [--preset=large|medium] [--users=N --channels=N --messages=N]
 *
 * or `npm run bench -- --only=register` (the large preset; `--quick`: medium). Measures, for one
 * ordinary member: `event_types=["stream"]`, `["subscription"]` (with subscribers),
 * `["realm_user"]`, and every state type; `["realm_user"]` right after a realm change (its cached
 * user dicts cold) against the next ones; then 10,000 registers of `["stream"]` in a row.
 */
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { registerState } from '../src/core/register/register-state';
import type { RegisterOptions } from '../src/core/register/options';
import type { RealmState } from '../src/core/state';
import { simulateRealm, type Preset } from '../src/simulate/simulate';
import { interleaved, interleavedSized } from './interleave';

const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

/** Plain objects of the same shape: every object rebuilt by JSON, so all are fast-mode literals. */
const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v)) as unknown;

const CASES: Array<[string, RegisterOptions]> = [
  ['event_types=["stream"]', { event_types: ['stream'] }],
  [
    'event_types=["subscription"], include_subscribers',
    { event_types: ['subscription'], include_subscribers: true },
  ],
  ['event_types=["realm_user"]', { event_types: ['realm_user'] }],
  ['every state type (no subscribers)', {}],
];

interface Row {
  readonly name: string;
  readonly bytes: number;
  readonly regWall: number;
  readonly regCpu: number;
  readonly strWall: number;
  readonly strCpu: number;
}

const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

function measure(state: RealmState, log: (s: string) => void): { rows: Row[]; tenK: string } {
  const member = [...state.users.values()].find((u) => u.role === 400 && !u.is_bot && u.is_active)!;
  const now = state.now ?? 0;
  const rows: Row[] = [];
  for (const [name, opts] of CASES) {
    const answer = registerState(state, member.user_id, opts, now);
    const flat = plain(answer);
    const bytes = JSON.stringify(answer).length;
    gc();
    // Batches of at least 100 ms each, each starting with an empty young generation and ending with
    // a scavenge inside its timing: each side pays for the garbage it made. (Batches of a fixed
    // 2 MB of answer were 3 calls for the largest answer: a scavenge the register's garbage made
    // due landed in whichever batch came next, and a run's ratio moved by ±0.2 with the luck.)
    const [reg, str] = interleavedSized(
      [() => JSON.stringify(registerState(state, member.user_id, opts, now)), () => JSON.stringify(flat)],
      { minBatchMs: 100, batches: 11, warm: 2 },
    );
    rows.push({ name, bytes, regWall: reg!.wall, regCpu: reg!.cpu, strWall: str!.wall, strCpu: str!.cpu });
    log(`register: ${name}: ${bytes} bytes`);
  }
  // The cold case: a register right after a change that invalidates every cached user dict (a
  // realm settings change: the realm record is new), against the warm one, interleaved.
  const userOpts: RegisterOptions = { event_types: ['realm_user'] };
  const changed = (): RealmState => ({ ...state, realm: { ...state.realm } });
  gc();
  const [cold, warm] = interleaved(
    [
      () => JSON.stringify(registerState(changed(), member.user_id, userOpts, now)),
      () => JSON.stringify(registerState(state, member.user_id, userOpts, now)),
    ],
    { per: 5, batches: 11, warm: 1 },
  );
  const fmtMs = (t: { wall: number; cpu: number }): string =>
    `${(t.wall / 1000).toFixed(2)} / ${(t.cpu / 1000).toFixed(2)} ms`;
  const coldText = `\`event_types=["realm_user"]\` right after a realm change (every cached user dict rebuilt): ${fmtMs(cold!)} wall / CPU, against ${fmtMs(warm!)} for the next ones (interleaved, same run).`;
  log(`register: cold realm_user measured`);
  gc();
  const opts: RegisterOptions = { event_types: ['stream'] };
  for (let i = 0; i < 200; i++) registerState(state, member.user_id, opts, now);
  const loadBefore = load();
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  for (let i = 0; i < 10_000; i++) registerState(state, member.user_id, opts, now);
  const wall = (performance.now() - w0) / 1000;
  const c = process.cpuUsage(c0);
  const cpu = (c.user + c.system) / 1e6;
  const tenK = `10,000 registers of \`event_types=["stream"]\` in a row (state only, no serialization; after 200 to warm up): ${wall.toFixed(2)} s wall, ${cpu.toFixed(2)} s CPU (load average ${loadBefore} before, ${load()} after).`;
  return { rows, tenK: `${coldText}\n\n${tenK}` };
}

function markdown(state: RealmState, label: string, rows: Row[], tenK: string, loadText: string): string {
  const fmt = (us: number): string => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(1)} µs`);
  return [
    `## Register against its own JSON.stringify (${label}: ${state.users.size.toLocaleString('en')} users, ${state.channels.size.toLocaleString('en')} channels, ${state.messages.count.toLocaleString('en')} messages)`,
    '',
    `Written by \`npm run bench -- --only=register\` (bench/register.ts). One ordinary member; register = \`JSON.stringify(registerState(...))\`, floor = \`JSON.stringify\` of the same answer rebuilt from plain objects (every object a fast-mode literal made by \`JSON.parse\`); the two interleaved batch by batch (each batch at least 100 ms, starting with an empty young generation and ending with a scavenge inside its timing, so each side pays for its own garbage), medians of 11 batches, wall / CPU time per call (\`process.cpuUsage\`) from one run. Load average ${loadText}; ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC. The machine is shared (2 cores): read the CPU columns.`,
    '',
    '| register with | answer | register wall / CPU | floor wall / CPU | ratio wall / CPU |',
    '|---|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${(r.bytes / 1024).toFixed(0)} KiB | ${fmt(r.regWall)} / ${fmt(r.regCpu)} | ${fmt(r.strWall)} / ${fmt(r.strCpu)} | ${(r.regWall / r.strWall).toFixed(2)}× / ${(r.regCpu / r.strCpu).toFixed(2)}× |`,
    ),
    '',
    tenK,
  ].join('\n');
}

/** The bench for bench/run.ts: the large preset (`quick`: medium). */
export async function runRegisterBench(opts: { quick: boolean; log: (s: string) => void }): Promise<string> {
  const preset: Preset = opts.quick ? 'medium' : 'large';
  return runOn(simulateRealm({ preset, seed: 1 }), `${preset} preset`, opts.log);
}

async function runOn(state: RealmState, label: string, log: (s: string) => void): Promise<string> {
  const loadStart = load();
  const { rows, tenK } = measure(state, log);
  return Promise.resolve(
    markdown(state, label, rows, tenK, `${loadStart} at the start, ${load()} at the end`),
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name: string): string | undefined =>
    process.argv.find((x) => x.startsWith(`--${name}=`))?.slice(name.length + 3);
  const preset = (arg('preset') ?? 'large') as Preset;
  const custom = arg('users') !== undefined;
  const t0 = performance.now();
  const state = custom
    ? simulateRealm({
        users: Number(arg('users')),
        channels: Number(arg('channels') ?? 1000),
        messages: Number(arg('messages') ?? 100_000),
        seed: 1,
      })
    : simulateRealm({ preset, seed: 1 });
  process.stderr.write(`built in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  const log = (s: string): void => void process.stderr.write(`${s}\n`);
  process.stdout.write(`${await runOn(state, custom ? 'custom sizes' : `${preset} preset`, log)}\n`);
}
