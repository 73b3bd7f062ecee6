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
import { Worker } from 'node:worker_threads';

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

type Request =
  | {
      readonly op: 'part';
      readonly version: number;
      readonly key: number;
      readonly part: number;
      readonly data: Uint8Array;
    }
  | { readonly op: 'sync' }
  | { readonly op: 'prune'; readonly changes: boolean }
  | { readonly op: 'close' };

interface Reply {
  readonly id: number;
  readonly data?: Uint8Array<ArrayBuffer>;
  readonly error?: { readonly message: string; readonly code?: string };
}

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
// Pacing: the parts of one checkpoint (one parts_key) started at paceFrom and came to paced bytes;
// after each part the thread sleeps until that many bytes are due at the configured rate.
let paceKey = -1, paceFrom = 0, paced = 0;
const pause = new Int32Array(new SharedArrayBuffer(4));
const pace = (key, bytes) => {
  if (!(c.bytesPerSecond > 0 && c.bytesPerSecond < Infinity)) return;
  if (key !== paceKey) { paceKey = key; paceFrom = performance.now(); paced = 0; }
  paced += bytes;
  const wait = paceFrom + (paced / c.bytesPerSecond) * 1000 - performance.now();
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

/** The main thread's end: requests answered in order, a few parts in flight at most. */
export class WriterThread {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  private failure: Error | undefined;
  /** Buffers the thread handed back, reused for the next parts. */
  private readonly pool: Array<Uint8Array<ArrayBuffer>> = [];

  constructor(
    options: WriterOptions,
    private readonly turn: WriteTurn,
    /** Called once when the thread stops (an error, or `close`): the main connection takes over. */
    private readonly stopped: () => void,
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
    this.worker = new Worker(SCRIPT, { eval: true, workerData: config });
    // An idle thread does not keep the process alive; one with requests in flight does.
    this.worker.unref();
    this.worker.on('message', (reply: Reply) => this.settle(reply));
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`the SQLite writer thread exited (code ${code})`)));
  }

  /** Whether the thread can take requests (it stopped after an error, or was closed). */
  get alive(): boolean {
    return this.failure === undefined;
  }

  /**
   * Writes the parts of one checkpoint, numbered from 0, and resolves with how many there were.
   * Each part is copied into a buffer the thread owns (and returns), then handed back to its
   * stream (`recycle`); two parts are in flight at most, so encoding keeps pace with the disk.
   */
  async writeParts(
    version: number,
    key: number,
    parts: AsyncIterable<Uint8Array>,
    recycle: ((part: Uint8Array) => void) | undefined,
  ): Promise<number> {
    const inFlight: Array<Promise<void>> = [];
    let count = 0;
    let failed: { error: unknown } | undefined;
    try {
      for await (const part of parts) {
        const data = this.buffer(part.length);
        data.set(part);
        recycle?.(part);
        const sent = this.request({ op: 'part', version, key, part: count++, data }, [data.buffer]).then(
          (reply) => {
            if (reply.data) this.pool.push(new Uint8Array(reply.data.buffer));
          },
        );
        // Observed at once (no unhandled rejection); the first failure stops the loop.
        inFlight.push(sent.catch((error: unknown) => void (failed ??= { error })));
        if (inFlight.length >= 2) await inFlight.shift();
        if (failed) throw failed.error;
      }
    } finally {
      await Promise.all(inFlight);
    }
    if (failed) throw failed.error;
    return count;
  }

  /** A WAL checkpoint now: what was written so far is synced and copied into the main file. */
  async sync(): Promise<void> {
    await this.request({ op: 'sync' });
  }

  /** Deletes unreferenced parts (and, if `changes`, changes before the oldest checkpoint kept). */
  async prune(changes: boolean): Promise<void> {
    await this.request({ op: 'prune', changes });
  }

  /** Checkpoints the log one last time, closes the connection and stops the thread. */
  async close(): Promise<void> {
    if (this.alive) {
      try {
        await this.request({ op: 'close' });
      } catch {
        // Closing anyway.
      }
    }
    this.fail(new Error('the SQLite writer thread was closed'));
    await this.worker.terminate();
  }

  private buffer(length: number): Uint8Array<ArrayBuffer> {
    const pooled = this.pool.pop();
    if (pooled !== undefined && pooled.length >= length) return pooled.subarray(0, length);
    return new Uint8Array(length);
  }

  private request(message: Request, transfer: ArrayBuffer[] = []): Promise<Reply> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<Reply>((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...message, id }, transfer);
    });
  }

  private settle(reply: Reply): void {
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker.unref();
    if (reply.error) {
      const error = new Error(reply.error.message) as Error & { code?: string };
      if (reply.error.code !== undefined) error.code = reply.error.code;
      waiting.reject(error);
    } else {
      waiting.resolve(reply);
    }
  }

  private fail(error: Error): void {
    if (this.failure === undefined) this.stopped();
    this.failure ??= error;
    this.turn.reset();
    for (const waiting of this.pending.values()) waiting.reject(this.failure);
    this.pending.clear();
    this.worker.unref();
  }
}
