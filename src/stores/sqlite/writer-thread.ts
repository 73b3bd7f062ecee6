/**
 * The SQLite store's writer thread: a worker with its own connection to the same file, which
 * writes checkpoint parts, prunes, and runs SQLite's WAL checkpoints (copying the log into the main
 * file, and the fsyncs that go with it). better-sqlite3 is synchronous, so whatever SQLite does on
 * the main connection stops the thread that commits the realm's changes; here the bulk of a
 * checkpoint's I/O happens on another thread, and the main connection keeps its commits small.
 *
 * - The two connections take turns for SQLite's write lock through a lock word in shared memory
 *   (`WriteTurn`), not through SQLite's busy handler, which polls after sleeping 1, 2, 5, 10...
 *   up to 100 ms: it would block the main thread while the writer holds the lock, and it starves
 *   the writer while the main connection commits back to back. The main thread waits for its turn
 *   without blocking (`Atomics.waitAsync`); after each of its transactions the writer lets a
 *   waiting main-thread writer go first.
 * - Parts are written with `synchronous = NORMAL` (no fsync each), each in its own IMMEDIATE
 *   transaction of one part (256 KiB: well under a millisecond holding the lock).
 * - Parts are paced (16 MiB/s by default): at full speed the part writes and the WAL checkpoints'
 *   syncs fill the disk's queue, and the main connection's small commits wait behind them; paced,
 *   its fsyncs meet an idle disk most of the time (bench/checkpoint-stall.ts).
 * - After every few parts, and on request, a PASSIVE WAL checkpoint (which never waits for or
 *   blocks a writer) fsyncs the log, copies it into the main file and fsyncs that. So the log's
 *   unsynced tail stays small, and the main connection's own commit (FULL: one fsync) never has to
 *   flush megabytes of parts first. While the thread runs, the main connection's automatic WAL
 *   checkpoints are off and this thread takes them, on a timer.
 * - Durability does not depend on this thread: the checkpoint row is committed by the main
 *   connection with its own synchronous setting, and its commit frame follows every part's in the
 *   log, so the fsync that makes the row durable makes the parts durable too (or they were already
 *   copied into the main file and synced by a WAL checkpoint).
 *
 * The thread's code is a plain script (`eval`), so it runs the same from the sources (tsx, vitest)
 * and from the built package (ESM or CommonJS); it loads the driver from the path the main thread
 * resolved.
 */
import { createRequire } from 'node:module';
import { PACE_SCRIPT, PartsThread } from '../parts-thread';

/** What the thread needs to open its connection. */
interface WriterConfig {
  readonly driver: string;
  readonly filename: string;
  readonly realm: string;
  readonly busyTimeoutMs: number;
  /** WAL checkpoint after this many bytes of parts. */
  readonly syncBytes: number;
  /** Parts are written at most this many bytes per second (`Infinity`: no pacing). */
  readonly bytesPerSecond: number;
  /** The shared lock word (`WriteTurn`). */
  readonly turn: Int32Array;
  /** WAL checkpoint every this many milliseconds (the main connection's are off). */
  readonly walEveryMs: number;
  readonly pruneParts: string;
  readonly pruneChanges: string;
  readonly pruneChangesBatch: number;
}

/** The thread's own requests (besides `part`, see `parts-thread.ts`). */
type Request =
  { readonly op: 'sync' } | { readonly op: 'prune'; readonly changes: boolean } | { readonly op: 'close' };

const SCRIPT = String.raw`
'use strict';
const { parentPort, workerData: c } = require('node:worker_threads');
const Database = require(c.driver);
const db = new Database(c.filename, { timeout: c.busyTimeoutMs });
db.pragma('synchronous = NORMAL');
db.pragma('wal_autocheckpoint = 0');
const insertPart = db.prepare(
  'INSERT INTO checkpoint_parts (realm, version, parts_key, part, data) VALUES (?, ?, ?, ?, ?)');
const pruneParts = db.prepare(c.pruneParts);
const pruneChanges = db.prepare(c.pruneChanges);
const turn = c.turn;
const transaction = db.transaction((statement, args) => statement.run(...args).changes);
// One write transaction in our turn; then a main-thread writer that waits goes first.
const step = (statement, args) => {
  while (Atomics.compareExchange(turn, 0, 0, 1) !== 0) Atomics.wait(turn, 0, 1, 50);
  try {
    return transaction.immediate(statement, args);
  } finally {
    Atomics.store(turn, 0, 0);
    Atomics.notify(turn, 0);
    const waiting = Atomics.load(turn, 1);
    if (waiting > 0) Atomics.wait(turn, 1, waiting, 20);
  }
};
const walCheckpoint = () => db.pragma('wal_checkpoint(PASSIVE)');
let unsynced = 0;
${PACE_SCRIPT}
// After each part the thread sleeps until its bytes are due at the configured rate.
const pause = new Int32Array(new SharedArrayBuffer(4));
const pace = (key, bytes) => {
  const wait = paceWait(key, bytes);
  if (wait > 0) Atomics.wait(pause, 0, 0, wait);
};
const timer = setInterval(() => { try { walCheckpoint(); } catch {} }, c.walEveryMs);
timer.unref();
const run = (m) => {
  if (m.op === 'part') {
    const data = Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength);
    step(insertPart, [c.realm, m.version, m.key, m.part, data]);
    unsynced += data.length;
    if (unsynced >= c.syncBytes) { walCheckpoint(); unsynced = 0; }
    pace(m.key, data.length);
    return { data: m.data, transfer: [m.data.buffer] };
  }
  if (m.op === 'sync') { walCheckpoint(); unsynced = 0; return {}; }
  if (m.op === 'prune') {
    while (step(pruneParts, [c.realm, c.realm, 1]) > 0);
    if (m.changes) while (step(pruneChanges, [c.realm, c.realm, c.realm, c.pruneChangesBatch]) > 0);
    walCheckpoint();
    return {};
  }
  if (m.op === 'close') { clearInterval(timer); walCheckpoint(); db.close(); return {}; }
  throw new Error('unknown request ' + m.op);
};
parentPort.on('message', (m) => {
  let reply;
  try {
    const r = run(m);
    parentPort.postMessage({ id: m.id, data: r.data }, r.transfer || []);
    return;
  } catch (error) {
    reply = { id: m.id, error: { message: String((error && error.message) || error), code: error && error.code } };
  }
  parentPort.postMessage(reply);
});
`;

export interface WriterOptions {
  readonly filename: string;
  readonly realm: string;
  readonly busyTimeoutMs: number;
  readonly bytesPerSecond: number;
  readonly pruneParts: string;
  readonly pruneChanges: string;
  readonly pruneChangesBatch: number;
}

/** `Atomics.waitAsync` (ES2024; Node 16+), which the configured lib does not declare. */
interface AtomicsWaitAsync {
  waitAsync(
    array: Int32Array,
    index: number,
    value: number,
    timeoutMs?: number,
  ): { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<'ok' | 'timed-out'> };
}

/**
 * Turns for SQLite's write lock between the main connection and the writer thread's, in shared
 * memory: word 0 is the lock (0 free, 1 taken), word 1 counts main-thread writers waiting for it.
 */
export class WriteTurn {
  readonly words = new Int32Array(new SharedArrayBuffer(8));

  /** Runs `write` (one synchronous transaction) in the main connection's turn. */
  async run<T>(write: () => T): Promise<T> {
    if (Atomics.compareExchange(this.words, 0, 0, 1) !== 0) await this.wait();
    try {
      return write();
    } finally {
      Atomics.store(this.words, 0, 0);
      Atomics.notify(this.words, 0);
    }
  }

  /** Waits without blocking the thread until the lock is ours. */
  private async wait(): Promise<void> {
    const atomics = Atomics as typeof Atomics & AtomicsWaitAsync;
    Atomics.add(this.words, 1, 1);
    try {
      while (Atomics.compareExchange(this.words, 0, 0, 1) !== 0) {
        const waiting = atomics.waitAsync(this.words, 0, 1, 50);
        if (waiting.async) await waiting.value;
      }
    } finally {
      Atomics.sub(this.words, 1, 1);
      Atomics.notify(this.words, 1);
    }
  }

  /** The writer thread died, perhaps in its turn: free the lock. */
  reset(): void {
    Atomics.store(this.words, 0, 0);
    Atomics.notify(this.words, 0);
  }
}

/** The main thread's end (`PartsThread`), with the SQLite thread's own requests. */
export class WriterThread extends PartsThread<Request> {
  constructor(
    options: WriterOptions,
    turn: WriteTurn,
    /** Called once when the thread stops (an error, or `close`): the main connection takes over. */
    stopped: () => void,
  ) {
    const config: WriterConfig = {
      driver: createRequire(import.meta.url).resolve('better-sqlite3'),
      filename: options.filename,
      realm: options.realm,
      busyTimeoutMs: options.busyTimeoutMs,
      bytesPerSecond: options.bytesPerSecond,
      syncBytes: 1 << 20,
      turn: turn.words,
      walEveryMs: 200,
      pruneParts: options.pruneParts,
      pruneChanges: options.pruneChanges,
      pruneChangesBatch: options.pruneChangesBatch,
    };
    super({
      script: SCRIPT,
      config,
      name: 'the SQLite writer thread',
      // A thread that died in its turn must not keep the lock.
      stopped: () => {
        turn.reset();
        stopped();
      },
    });
  }

  /** A WAL checkpoint now: what was written so far is synced and copied into the main file. */
  sync(): Promise<void> {
    return this.request({ op: 'sync' });
  }

  /** Deletes unreferenced parts (and, if `changes`, changes before the oldest checkpoint kept). */
  prune(changes: boolean): Promise<void> {
    return this.request({ op: 'prune', changes });
  }
}
