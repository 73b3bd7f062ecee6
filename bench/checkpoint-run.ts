/**
 * `npm run bench -- --only=checkpoint`: runs bench/checkpoint-stall.ts in child processes (each
 * needs a large heap of its own, and a fresh one keeps the runs independent) for SQLite with the
 * writer thread, SQLite on the calling thread, and PostgreSQL when DATABASE_URL is set; parses
 * their reports into one table.
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';

interface Variant {
  readonly label: string;
  readonly env: Record<string, string>;
}

interface Parsed {
  readonly label: string;
  readonly ok: boolean;
  readonly out: string;
  readonly writtenS?: number;
  readonly opsDuring?: number;
  readonly during?: Quantiles;
  readonly gapsDuring?: Quantiles;
  readonly gcDuring?: number;
  readonly baseline?: Quantiles;
  readonly gapsBaseline?: Quantiles;
  readonly load?: string;
}

/** Median, p99, p99.9 and max, in milliseconds, and how many were over 10 ms. */
type Quantiles = readonly [number, number, number, number, number];

const quantiles = (text: string): Quantiles | undefined => {
  const m = /median ([\d.]+), p99 ([\d.]+), p99\.9 ([\d.]+), max ([\d.]+) ms, (\d+) over 10 ms/.exec(text);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5])] : undefined;
};

function parse(label: string, out: string, ok: boolean): Parsed {
  const [before = '', after = ''] = out.split('checkpoint written in');
  const latency = (part: string) => quantiles(/operation latency: (.*)/.exec(part)?.[1] ?? '');
  const gaps = (part: string) => quantiles(/event-loop gaps \(1 ms timer\): (.*)/.exec(part)?.[1] ?? '');
  const written = /^ ([\d.]+) s/.exec(after)?.[1];
  const ops = /during the checkpoint: (\d+) operations/.exec(after)?.[1];
  const gc = /garbage collection: longest pause ([\d.]+) ms/.exec(after)?.[1];
  const load = /load average (.*)/.exec(out)?.[1];
  const result: Parsed = { label, ok, out };
  return Object.assign(result, {
    ...(written ? { writtenS: Number(written) } : {}),
    ...(ops ? { opsDuring: Number(ops) } : {}),
    ...(latency(after) ? { during: latency(after) } : {}),
    ...(gaps(after) ? { gapsDuring: gaps(after) } : {}),
    ...(gc ? { gcDuring: Number(gc) } : {}),
    ...(latency(before) ? { baseline: latency(before) } : {}),
    ...(gaps(before) ? { gapsBaseline: gaps(before) } : {}),
    ...(load ? { load } : {}),
  });
}

export function runCheckpointStallBench(quick: boolean): string {
  const messages = quick ? 100_000 : 1_000_000;
  const variants: Variant[] = [
    { label: 'SQLite, writer thread, paced 16 MiB/s (default)', env: { STORE: 'sqlite' } },
    { label: 'SQLite, writer thread, unpaced', env: { STORE: 'sqlite', CHECKPOINT_PACE: 'Infinity' } },
    { label: 'SQLite, calling thread (`WRITER_THREAD=0`)', env: { STORE: 'sqlite', WRITER_THREAD: '0' } },
  ];
  if (process.env['DATABASE_URL']) {
    variants.push({
      label: 'PostgreSQL (local server), paced 16 MiB/s (default)',
      env: { STORE: 'postgres' },
    });
    variants.push({
      label: 'PostgreSQL (local server), unpaced',
      env: { STORE: 'postgres', CHECKPOINT_PACE: 'Infinity' },
    });
  }
  // The longest wait is a rare event: each variant runs more than once (CHECKPOINT_RUNS).
  const runs = Number(process.env['CHECKPOINT_RUNS'] ?? (quick ? 1 : 2));
  const results: Parsed[] = [];
  for (let run = 1; run <= runs; run++) {
    for (const variant of variants) {
      const label = runs > 1 ? `${variant.label}, run ${run}` : variant.label;
      console.log(`checkpoint stall: ${label}, ${messages} messages`);
      const r = spawnSync(
        process.execPath,
        ['--max-old-space-size=10000', '--import', 'tsx', 'bench/checkpoint-stall.ts'],
        {
          env: { ...process.env, ...variant.env, MESSAGES: String(messages) },
          encoding: 'utf8',
          maxBuffer: 1 << 24,
        },
      );
      const out = `${r.stdout}${r.status === 0 ? '' : `\n${r.stderr}`}`;
      console.log(out);
      results.push(parse(label, out, r.status === 0));
    }
  }
  const fmt = (t: Quantiles | undefined) =>
    t
      ? `${t[0].toFixed(1)} / ${t[1].toFixed(1)} / ${t[2].toFixed(1)} / ${t[3].toFixed(1)} ms (${t[4]} over 10 ms)`
      : 'n/a';
  const rows = results.map((p) =>
    p.ok
      ? `| ${p.label} | ${p.load ?? ''} | ${p.writtenS?.toFixed(2) ?? ''} s | ${p.opsDuring ?? ''} | ${fmt(p.during)} | ${p.gapsDuring?.[3].toFixed(1) ?? ''} ms | ${p.gcDuring?.toFixed(1) ?? ''} ms | ${fmt(p.baseline)} | ${p.gapsBaseline?.[3].toFixed(1) ?? ''} ms |`
      : `| ${p.label} | failed: see the run's output | | | | | | | |`,
  );
  // The stall a checkpoint adds: its longest operation wait, its p99.9 and its p99, beyond those of
  // as many of the same operations without a checkpoint (same process, right after; what remains is
  // each commit's own fsync, garbage collection and the scheduler).
  const goal = results
    .filter((p) => p.ok && p.during && p.baseline)
    .map((p) => {
      const added = Math.max(0, p.during![3] - p.baseline![3]);
      const addedP99 = Math.max(0, p.during![1] - p.baseline![1]);
      const addedP999 = Math.max(0, p.during![2] - p.baseline![2]);
      const met = added <= 5 && addedP999 <= 5 && addedP99 <= 5;
      return `| ${p.label} | ${added.toFixed(1)} ms (${p.during![3].toFixed(1)} vs ${p.baseline![3].toFixed(1)}) | ${addedP999.toFixed(1)} ms (${p.during![2].toFixed(1)} vs ${p.baseline![2].toFixed(1)}) | ${addedP99.toFixed(1)} ms (${p.during![1].toFixed(1)} vs ${p.baseline![1].toFixed(1)}) | ${met ? 'met' : 'not met'} |`;
    });
  return [
    '## Checkpoint stall (bench/checkpoint-stall.ts, run by bench/checkpoint-run.ts)',
    '',
    `A realm of ${messages.toLocaleString('en-US')} messages; one client sends \`updateSettings\` back to back while \`checkpoint()\` writes. Latencies are median / p99 / p99.9 / max of one operation, and how many operations waited over 10 ms; the gap is the longest between ticks of a 1 ms timer (the event loop blocked). The baseline is as many of the same operations right after, without a checkpoint (at least 500). PostgreSQL runs its own \`CHECKPOINT\` after seeding, so WAL segments are recycled as on a server in steady state (bench/checkpoint-stall.ts says why; \`PG_WAL=fresh\` skips it).`,
    '',
    '| store | load average | checkpoint written in | operations during | op latency during | longest gap during | longest GC pause during | baseline op latency | longest gap, baseline |',
    '|---|---|---:|---:|---|---:|---:|---|---:|',
    ...rows,
    '',
    "| goal: a checkpoint stops the queue for at most a few ms (5 ms) | longest wait beyond the baseline's (same run) | p99.9 beyond the baseline's | p99 beyond the baseline's | |",
    '|---|---|---|---|---|',
    ...goal,
    '',
    `- Load average at the end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' / ')}.`,
  ].join('\n');
}
