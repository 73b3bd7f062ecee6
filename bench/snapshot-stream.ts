/**
 * Large realms in and out (issue 15 item 5): the large preset written as a streamed snapshot
 * (NDJSON, stream format 2, `snapshotChunks`) to a file, read back with `createRealmFromChunks`
 * from a file read stream in a fresh process, checked by writing the imported realm again and
 * comparing its SHA-256 with the file's, and `snapshotRealm` as an object. Wall time, this
 * process's CPU time (user + system, all threads, so GC helpers count) and peak memory for each;
 * the load average is printed with the figures (the machine is shared). Goal: each of export,
 * import and `snapshotRealm` within 10 s.
 *
 * `npm run bench -- --only=snapshot`, or alone:
 * `node --max-old-space-size=12000 --import tsx bench/snapshot-stream.ts`.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { snapshotRealm } from '../src/core/snapshot/export';
import { createRealmFromChunks, snapshotChunks } from '../src/core/snapshot/snapshot-stream';
import type { RealmState } from '../src/core/state';
import { simulateRealm } from '../src/simulate';

interface Figures {
  wallS: number;
  cpuS: number;
  /** Largest heapUsed seen (sampled between chunks), GB. */
  peakHeapGB: number;
  /** heapUsed before the step, GB (the realm itself, for steps on a loaded realm). */
  baseHeapGB: number;
  /** The process's peak resident set size so far, GB. */
  maxRssGB: number;
}

const GB = 1e9;
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' / ');

function measure<T>(fn: (sample: () => void) => T): { value: T; figures: Figures } {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const base = process.memoryUsage().heapUsed;
  let peak = base;
  const sample = () => {
    const h = process.memoryUsage().heapUsed;
    if (h > peak) peak = h;
  };
  const t = performance.now();
  const c = cpu();
  const value = fn(sample);
  sample();
  return {
    value,
    figures: {
      wallS: (performance.now() - t) / 1000,
      cpuS: cpu() - c,
      peakHeapGB: peak / GB,
      baseHeapGB: base / GB,
      maxRssGB: (process.resourceUsage().maxRSS * 1024) / GB,
    },
  };
}

async function measureAsync<T>(
  fn: (sample: () => void) => Promise<T>,
): Promise<{ value: T; figures: Figures }> {
  let inner!: Promise<T>;
  const { figures } = measure((sample) => (inner = fn(sample)));
  const t = performance.now() - figures.wallS * 1000;
  const c = cpu() - figures.cpuS;
  let peak = figures.peakHeapGB * GB;
  const value = await inner;
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  return {
    value,
    figures: {
      ...figures,
      wallS: (performance.now() - t) / 1000,
      cpuS: cpu() - c,
      peakHeapGB: Math.max(peak, figures.peakHeapGB * GB) / GB,
      maxRssGB: (process.resourceUsage().maxRSS * 1024) / GB,
    },
  };
}

/** Writes the streamed snapshot to `file`; returns its size in bytes. */
async function exportTo(state: RealmState, file: string, sample: () => void): Promise<number> {
  const out = createWriteStream(file, { encoding: 'utf8' });
  for (const chunk of snapshotChunks(state)) {
    sample();
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return statSync(file).size;
}

/** SHA-256 of a file (after the timed steps). */
async function fileHash(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The child: reads the file back, reports figures and a hash of the re-exported text. */
async function importChild(file: string): Promise<void> {
  const { value: state, figures } = await measureAsync(async (sample) => {
    const input = createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 });
    async function* sampled() {
      for await (const chunk of input as AsyncIterable<string>) {
        sample();
        yield chunk;
      }
    }
    return createRealmFromChunks(sampled());
  });
  const check = measure(() => {
    const hash = createHash('sha256');
    for (const chunk of snapshotChunks(state)) hash.update(chunk);
    return hash.digest('hex');
  });
  process.stdout.write(
    JSON.stringify({ figures, check: check.figures, sha: check.value, messages: state.messages.count }),
  );
}

/** Against the 10 s goal: by CPU time (the fair figure on a shared machine) and by wall time. */
const goal = (f: Figures) =>
  f.cpuS <= 10 ? (f.wallS <= 10 ? 'met' : 'met in CPU (wall over: machine load)') : '**not met**';

const row = (name: string, f: Figures, extra = '', withGoal = false) =>
  `| ${name} | ${f.wallS.toFixed(1)} | ${f.cpuS.toFixed(1)} | ${f.peakHeapGB.toFixed(2)} (${(f.peakHeapGB - f.baseHeapGB).toFixed(2)} above the start) | ${f.maxRssGB.toFixed(2)} | ${withGoal ? goal(f) : ''} | ${extra} |`;

export async function runSnapshotStreamBench(
  options: { log?: (line: string) => void } = {},
): Promise<string> {
  const log = options.log ?? (() => undefined);
  const dir = mkdtempSync(join(tmpdir(), 'chat-realm-snapshot-bench-'));
  try {
    const startLoad = load();
    log(`building the large preset (load ${startLoad})`);
    const built = measure(() => simulateRealm({ preset: 'large', seed: 1 }));
    const state = built.value;
    let rows = 0;
    for (const [, r] of state.messages.rows) for (const c of r.chunks) rows += c.ids.length;
    const file = join(dir, 'large.ndjson');
    log(`streaming export (load ${load()})`);
    const exported = await measureAsync((sample) => exportTo(state, file, sample));
    log(`streaming import in a fresh process (load ${load()})`);
    const child = spawnSync(
      process.execPath,
      [
        '--max-old-space-size=12000',
        '--expose-gc',
        '--import',
        'tsx',
        fileURLToPath(import.meta.url),
        '--import-child',
        file,
      ],
      { encoding: 'utf8', maxBuffer: 1 << 20 },
    );
    if (child.status !== 0) throw new Error(`import child failed: ${child.stderr}`);
    const imported = JSON.parse(child.stdout) as {
      figures: Figures;
      check: Figures;
      sha: string;
      messages: number;
    };
    log(`snapshotRealm (load ${load()})`);
    const object = measure(() => snapshotRealm(state));
    const messages = object.value['messages'] as Array<{ flags: unknown }>;
    log(`reading every message's flags (load ${load()})`);
    const flags = measure((sample) => {
      let n = 0;
      for (let i = 0; i < messages.length; i++) {
        n += Object.keys(messages[i]!.flags as object).length;
        if ((i & 0xffff) === 0) sample();
      }
      return n;
    });
    const same = imported.sha === (await fileHash(file)) && imported.messages === state.messages.count;
    return [
      '## Large realms in and out (large preset)',
      '',
      `\`simulateRealm({ preset: 'large', seed: 1 })\`: ${state.users.size.toLocaleString('en')} users, ${state.channels.size.toLocaleString('en')} channels, ${state.messages.count.toLocaleString('en')} messages, ${rows.toLocaleString('en')} (user, message) rows. One run; CPU is this process's user + system time (GC threads included).`,
      '',
      `Load average at the start: ${startLoad}.`,
      '',
      '| step | wall (s) | CPU (s) | peak heap (GB) | peak RSS so far (GB) | goal ≤ 10 s | notes |',
      '|---|---:|---:|---:|---:|---|---|',
      row('build the preset (for reference)', built.figures),
      row(
        'streaming export to a file (`snapshotChunks`, NDJSON format 2)',
        exported.figures,
        `${(exported.value / 1e6).toFixed(0)} MB`,
        true,
      ),
      row(
        'streaming import from the file (`createRealmFromChunks`, fresh process)',
        imported.figures,
        '',
        true,
      ),
      row(
        'round-trip check: the imported realm written again, SHA-256 against the file',
        imported.check,
        same ? 'identical' : '**differs**',
      ),
      row('`snapshotRealm` (object)', object.figures, 'flags objects not yet built', true),
      row(
        "… then reading every message's `flags`",
        flags.figures,
        `${flags.value.toLocaleString('en')} flag entries`,
      ),
      '',
      `- Machine: ${process.platform} ${process.arch}, Node ${process.version}; load average ${load()} at the end of the run.`,
      '- The import child holds only its own realm; its peak heap is the realm it builds plus one chunk of text.',
    ].join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--import-child')) {
  await importChild(process.argv[process.argv.indexOf('--import-child') + 1]!);
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${await runSnapshotStreamBench({ log: (l) => process.stderr.write(`${l}\n`) })}\n`);
}
