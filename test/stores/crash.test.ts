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
import { describe, expect, it } from 'vitest';
import { openRealm } from '../../src/host/realm-handle';
import { sqliteStore } from '../../src/stores/sqlite/index';
import { ALL_OPS } from '../support/host-ops';
import { cast } from '../support/realm';

const CHILD = new URL('./crash-child.ts', import.meta.url).pathname;
const ROOT = new URL('../..', import.meta.url).pathname;

interface Run {
  loaded: number;
  acked: number[];
  contents: string[];
  largestBatch: number;
}

/**
 * Starts the child and kills it: `afterFirstAck` ms after its first acknowledgement, or (when
 * `afterSpawn` is given) that many ms after starting, which may land while it loads or replays.
 */
function runOnce(filename: string, afterFirstAck: number, afterSpawn?: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, filename], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const run: Run = { loaded: -1, acked: [], contents: [], largestBatch: 0 };
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
        if (word === 'ack') {
          run.acked.push(Number(n));
          run.contents.push(content!);
          timer ??= setTimeout(() => child.kill('SIGKILL'), afterFirstAck);
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

describe('sqlite crash safety', () => {
  it('keeps every acknowledged change through repeated SIGKILLs, and loads', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chat-realm-crash-'));
    const filename = join(dir, 'realm.db');
    try {
      let lastAcked = 0;
      let loads = 0;
      const acknowledged: string[] = [];
      let largestBatch = 0;
      const deadline = Date.now() + 22_000;
      let runs = 0;
      // Pseudo-random kill moments (mulberry-ish, fixed seed so a failure can be reproduced).
      let seed = 12345;
      const next = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
      for (; runs < 14 && Date.now() < deadline; runs++) {
        // Every third run dies at a random moment after spawning: while loading, replaying or running.
        const run =
          runs % 3 === 2 ? await runOnce(filename, 0, 300 + next(1500)) : await runOnce(filename, next(300));
        if (run.loaded >= 0) {
          loads++;
          // The restart found every change acknowledged before the last kill.
          expect(run.loaded).toBeGreaterThanOrEqual(lastAcked);
        }
        if (run.acked.length > 0) {
          expect(run.acked[0]).toBe(run.loaded + 1);
          // Answers come in version order, batch after batch.
          expect(run.acked).toEqual([...run.acked].sort((a, b) => a - b));
          lastAcked = run.acked.at(-1)!;
          acknowledged.push(...run.contents);
          largestBatch = Math.max(largestBatch, run.largestBatch);
        }
      }
      expect(runs).toBeGreaterThanOrEqual(3);
      expect(loads).toBeGreaterThanOrEqual(2);
      const handle = await openRealm({
        store: sqliteStore({ filename, realm: 'crash' }),
        operations: ALL_OPS,
      });
      expect(handle.version).toBeGreaterThanOrEqual(lastAcked);
      // Every stored change is complete: one snippet per version, none doubled, and every
      // acknowledged one among them.
      const contents = [...handle.state.savedSnippets.values()]
        .filter((s) => s.user_id === cast.hamlet && s.content.startsWith('crash-'))
        .map((s) => s.content);
      expect(contents).toHaveLength(handle.version);
      expect(new Set(contents).size).toBe(contents.length);
      const stored = new Set(contents);
      expect(acknowledged.filter((c) => !stored.has(c))).toEqual([]);
      expect(acknowledged.length).toBeGreaterThan(0);
      // The kills did land among batches of several changes.
      expect(largestBatch).toBeGreaterThan(1);
      await handle.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
