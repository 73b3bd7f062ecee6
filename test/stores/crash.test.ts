/**
 * Crash safety of the SQLite store: a child process applies a stream of operations from eight
 * concurrent writers (so they are committed in batches) and is killed with SIGKILL at random
 * moments, many times. After each restart every acknowledged change is there, nothing
 * unacknowledged is half-applied (every stored change is complete and replays, no batch is
 * stored in part), and the store loads.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openRealm } from '../../src/host/realm-handle';
import { sqliteStore } from '../../src/stores/sqlite/index';
import { ALL_OPS, randomSnippet } from '../support/host-ops';
import { cast } from '../support/realm';

const CHILD = new URL('./crash-child.ts', import.meta.url).pathname;
const ROOT = new URL('../..', import.meta.url).pathname;

interface Run {
  loaded: number;
  acked: number[];
  contents: string[];
  largestBatch: number;
  /** Checkpoints the child started writing after loading. */
  checkpointing: number;
}

/**
 * Starts the child and kills it: `afterFirstAck` ms after its first acknowledgement, or (when
 * `afterSpawn` is given) that many ms after starting, which may land while it loads or replays.
 * With `messages`, the child's realm is large (checkpoints of many parts) and the kill comes
 * `afterFirstAck` ms after the first checkpoint past its loaded version starts instead.
 */
function runOnce(filename: string, afterFirstAck: number, afterSpawn?: number, messages = 0): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, filename], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CRASH_MESSAGES: String(messages) },
    });
    const run: Run = { loaded: -1, acked: [], contents: [], largestBatch: 0, checkpointing: 0 };
    let buffer = '';
    let stderr = '';
    let timer: NodeJS.Timeout | undefined =
      afterSpawn === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), afterSpawn);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const [word, n, content] = buffer.slice(0, nl).split(' ');
        buffer = buffer.slice(nl + 1);
        if (word === 'loaded') run.loaded = Number(n);
        if (word === 'batch') run.largestBatch = Math.max(run.largestBatch, Number(n));
        if (word === 'checkpointing' && Number(n) > run.loaded && run.loaded >= 0) {
          run.checkpointing++;
          if (messages > 0) timer ??= setTimeout(() => child.kill('SIGKILL'), afterFirstAck);
        }
        if (word === 'ack') {
          run.acked.push(Number(n));
          run.contents.push(content!);
          if (messages === 0) timer ??= setTimeout(() => child.kill('SIGKILL'), afterFirstAck);
        }
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (signal !== 'SIGKILL') reject(new Error(`child exited with ${code}: ${stderr}`));
      else resolve(run);
    });
  });
}

interface Outcome {
  runs: number;
  loads: number;
  lastAcked: number;
  acknowledged: string[];
  largestBatch: number;
  checkpointing: number;
}

/** Kills the child again and again, checking after each restart that nothing acknowledged is lost. */
async function killRepeatedly(
  filename: string,
  seconds: number,
  runOne: (next: (n: number) => number, run: number) => Promise<Run>,
): Promise<Outcome> {
  const outcome: Outcome = {
    runs: 0,
    loads: 0,
    lastAcked: 0,
    acknowledged: [],
    largestBatch: 0,
    checkpointing: 0,
  };
  const deadline = Date.now() + seconds * 1000;
  // Pseudo-random kill moments (mulberry-ish, fixed seed so a failure can be reproduced).
  let seed = 12345;
  const next = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
  for (; outcome.runs < 14 && Date.now() < deadline; outcome.runs++) {
    const run = await runOne(next, outcome.runs);
    if (run.loaded >= 0) {
      outcome.loads++;
      // The restart found every change acknowledged before the last kill.
      expect(run.loaded).toBeGreaterThanOrEqual(outcome.lastAcked);
    }
    outcome.checkpointing += run.checkpointing;
    if (run.acked.length > 0) {
      expect(run.acked[0]).toBe(run.loaded + 1);
      // Answers come in version order, batch after batch.
      expect(run.acked).toEqual([...run.acked].sort((a, b) => a - b));
      outcome.lastAcked = run.acked.at(-1)!;
      outcome.acknowledged.push(...run.contents);
      outcome.largestBatch = Math.max(outcome.largestBatch, run.largestBatch);
    }
  }
  expect(outcome.runs).toBeGreaterThanOrEqual(3);
  expect(outcome.loads).toBeGreaterThanOrEqual(2);
  return outcome;
}

/** Every stored change is complete: one snippet per version, none doubled, every acknowledged one there. */
async function verify(filename: string, outcome: Outcome) {
  const handle = await openRealm({
    store: sqliteStore({ filename, realm: 'crash' }),
    operations: ALL_OPS,
    checkpoints: false,
  });
  expect(handle.version).toBeGreaterThanOrEqual(outcome.lastAcked);
  const contents = [...handle.state.savedSnippets.values()]
    .filter((s) => s.user_id === cast.hamlet && s.content.startsWith('crash-'))
    .map((s) => s.content);
  expect(contents).toHaveLength(handle.version);
  expect(new Set(contents).size).toBe(contents.length);
  const stored = new Set(contents);
  expect(outcome.acknowledged.filter((c) => !stored.has(c))).toEqual([]);
  expect(outcome.acknowledged.length).toBeGreaterThan(0);
  return handle;
}

describe('sqlite crash safety', () => {
  it('keeps every acknowledged change through repeated SIGKILLs, and loads', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chat-realm-crash-'));
    const filename = join(dir, 'realm.db');
    try {
      const outcome = await killRepeatedly(filename, 22, (next, run) =>
        // Every third run dies at a random moment after spawning: while loading, replaying or running.
        run % 3 === 2 ? runOnce(filename, 0, 300 + next(1500)) : runOnce(filename, next(300)),
      );
      const handle = await verify(filename, outcome);
      // The kills did land among batches of several changes.
      expect(outcome.largestBatch).toBeGreaterThan(1);
      await handle.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('loads from the previous checkpoint and the log when killed while the writer thread writes a large checkpoint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chat-realm-crash-'));
    const filename = join(dir, 'realm.db');
    try {
      // 40,000 messages: checkpoints of ~20 parts, killed 0–400 ms after one starts.
      const outcome = await killRepeatedly(filename, 25, (next) =>
        runOnce(filename, next(400), undefined, 40_000),
      );
      expect(outcome.checkpointing).toBeGreaterThan(0);
      const handle = await verify(filename, outcome);
      // The parts of interrupted checkpoints go once two newer checkpoints are kept.
      await handle.checkpoint();
      await handle.run(randomSnippet, { userId: cast.hamlet }, { content: 'crash-last' });
      await handle.checkpoint();
      const version = handle.version;
      await handle.close();
      const db = new Database(filename, { readonly: true });
      const orphans = db
        .prepare(
          `SELECT count(*) AS n FROM checkpoint_parts p WHERE NOT EXISTS (SELECT 1 FROM checkpoints c
             WHERE c.realm = p.realm AND c.version = p.version AND c.parts_key = p.parts_key)`,
        )
        .get() as { n: number };
      db.close();
      expect(orphans.n).toBe(0);
      const again = await openRealm({
        store: sqliteStore({ filename, realm: 'crash' }),
        operations: ALL_OPS,
      });
      expect(again.version).toBe(version);
      await again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
