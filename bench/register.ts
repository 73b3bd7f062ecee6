/**
 * Register (POST /register's initial state, `registerState`) against the `JSON.stringify` of the
 * same answer rebuilt from plain, fast-shaped objects (the floor: serializing the answer is work
 * every register must do). Interleaved, warmed, medians of batches from one run, wall and CPU time.
 *
 *   node --expose-gc --import tsx bench/register.ts [--users=10000] [--channels=1000] [--messages=100000]
 *
 * Measures, for one ordinary member: `event_types=["stream"]`, `["subscription"]` (with
 * subscribers), `["realm_user"]`, and every state type; and 10,000 registers of `["stream"]`.
 */
import { registerState } from '../src/core/register/register-state';
import type { RegisterOptions } from '../src/core/register/options';
import { simulateRealm } from '../src/simulate/simulate';
import { median } from './stats';

function arg(name: string, fallback: number): number {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`));
  return a === undefined ? fallback : Number(a.slice(name.length + 3));
}

const users = arg('users', 10_000);
const channels = arg('channels', 1000);
const messages = arg('messages', 100_000);

const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

/** Plain objects of the same shape: every object rebuilt by JSON, so all are fast-mode literals. */
const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v)) as unknown;

const t0 = performance.now();
const state = simulateRealm({ users, channels, messages, seed: 1 });
process.stderr.write(
  `built ${users} users / ${channels} channels / ${messages} messages in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
);
const member = [...state.users.values()].find((u) => u.role === 400 && !u.is_bot && u.is_active)!;
const now = state.now ?? 0;

const cases: Array<[string, RegisterOptions]> = [
  ['event_types=["stream"]', { event_types: ['stream'] }],
  [
    'event_types=["subscription"], include_subscribers',
    { event_types: ['subscription'], include_subscribers: true },
  ],
  ['event_types=["realm_user"]', { event_types: ['realm_user'] }],
  ['every state type (no subscribers)', {}],
];

interface Row {
  name: string;
  bytes: number;
  regWall: number;
  regCpu: number;
  strWall: number;
  strCpu: number;
}

/** Median wall and CPU µs per call over batches, `fns` interleaved batch by batch. */
function interleaved(fns: Array<() => unknown>, per: number, batches: number): Array<[number, number]> {
  for (const fn of fns) for (let i = 0; i < per; i++) fn();
  const wall: number[][] = fns.map(() => []);
  const cpu: number[][] = fns.map(() => []);
  for (let b = 0; b < batches; b++) {
    fns.forEach((fn, k) => {
      const c0 = process.cpuUsage();
      const w0 = performance.now();
      for (let i = 0; i < per; i++) fn();
      const w = ((performance.now() - w0) / per) * 1000;
      const c = process.cpuUsage(c0);
      wall[k]!.push(w);
      cpu[k]!.push((c.user + c.system) / per);
    });
  }
  return fns.map((_, k) => [median(wall[k]!), median(cpu[k]!)]);
}

const rows: Row[] = [];
for (const [name, opts] of cases) {
  const answer = registerState(state, member.user_id, opts, now);
  const flat = plain(answer);
  const bytes = JSON.stringify(answer).length;
  const per = Math.max(3, Math.min(500, Math.round(2e6 / bytes)));
  gc();
  const [[regWall, regCpu], [strWall, strCpu]] = interleaved(
    [() => JSON.stringify(registerState(state, member.user_id, opts, now)), () => JSON.stringify(flat)],
    per,
    11,
  ) as [[number, number], [number, number]];
  rows.push({ name, bytes, regWall, regCpu, strWall, strCpu });
  process.stderr.write(`${name}: ${bytes} bytes\n`);
}

gc();
const c0 = process.cpuUsage();
const w0 = performance.now();
for (let i = 0; i < 10_000; i++) registerState(state, member.user_id, { event_types: ['stream'] }, now);
const tenK = (performance.now() - w0) / 1000;
const tenKCpu = (process.cpuUsage(c0).user + process.cpuUsage(c0).system) / 1e6;

const { loadavg } = await import('node:os');
const load = loadavg()
  .map((x) => x.toFixed(2))
  .join(' ');
const fmt = (us: number): string => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(1)} µs`);
const lines = [
  `## Register (${users.toLocaleString('en')} users, ${channels.toLocaleString('en')} channels, ${messages.toLocaleString('en')} messages)`,
  '',
  `One ordinary member; median of 11 interleaved batches; load average ${load}; ${new Date().toISOString().slice(0, 16)} UTC.`,
  'Register = `JSON.stringify(registerState(...))`; floor = `JSON.stringify` of the same answer rebuilt from plain objects.',
  '',
  '| register with | answer | register wall / CPU | floor wall / CPU | ratio wall / CPU |',
  '|---|---:|---:|---:|---:|',
  ...rows.map(
    (r) =>
      `| ${r.name} | ${(r.bytes / 1024).toFixed(0)} KiB | ${fmt(r.regWall)} / ${fmt(r.regCpu)} | ${fmt(r.strWall)} / ${fmt(r.strCpu)} | ${(r.regWall / r.strWall).toFixed(2)}× / ${(r.regCpu / r.strCpu).toFixed(2)}× |`,
  ),
  '',
  `10,000 registers of \`event_types=["stream"]\` (state only, no serialization): ${tenK.toFixed(2)} s wall, ${tenKCpu.toFixed(2)} s CPU.`,
];
process.stdout.write(`${lines.join('\n')}\n`);
