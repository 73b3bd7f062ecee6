/**
 * The main thread's end of a store's writer thread (SQLite: `sqlite/writer-thread.ts`,
 * PostgreSQL: `postgres/writer-thread.ts`): a worker with its own connection that writes a
 * checkpoint's parts, so that the driver's work for them (SQLite's writes and syncs, or pg's
 * serializing and the socket writes that copy each part into the kernel) does not stop the thread
 * that runs the realm's operations.
 *
 * Requests are answered in order. A part is copied once, into a buffer the thread owns for the
 * time of the write (transferred, not cloned) and hands back to be filled again; two parts are in
 * flight at most, so encoding keeps pace with the writes. The thread's script is plain JavaScript
 * (`eval`), so it runs the same from the sources (tsx, vitest) and from the built package.
 */
import { Worker } from 'node:worker_threads';

/**
 * Pacing inside a thread's script (spliced into it: the scripts are plain JavaScript and cannot
 * import `pace.ts`). `paceWait(key, bytes)`: after a part of `bytes`, how many milliseconds to wait
 * so that the parts of one checkpoint (one parts_key) are not ahead of `c.bytesPerSecond`.
 */
export const PACE_SCRIPT = String.raw`
let paceKey = -1, paceFrom = 0, paced = 0;
const paceWait = (key, bytes) => {
  if (!(c.bytesPerSecond > 0 && c.bytesPerSecond < Infinity)) return 0;
  if (key !== paceKey) { paceKey = key; paceFrom = performance.now(); paced = 0; }
  paced += bytes;
  return Math.max(0, paceFrom + (paced / c.bytesPerSecond) * 1000 - performance.now());
};
`;

/**
 * The flags a thread starts with: the host's (a worker inherits `process.execArgv`), except under
 * `--input-type=module` (e.g. `node --input-type=module -e "…"`), which would read the thread's
 * CommonJS `eval` script as a module (`require is not defined`): then none. The scripts are plain
 * JavaScript that load their drivers by resolved path, so they need no loader flags. (Passing a
 * filtered copy instead is no option: Node refuses V8 flags such as `--max-old-space-size` in an
 * explicit `execArgv`.)
 */
export function workerExecArgv(execArgv: readonly string[]): string[] | undefined {
  return execArgv.some((a) => a === '--input-type' || a.startsWith('--input-type=')) ? [] : undefined;
}

/** How long `close` waits for the thread to close its connection. */
const CLOSE_WAIT_MS = 5000;

/** What every thread's script answers: the request's id, a part's buffer back, or an error. */
interface Reply {
  readonly id: number;
  readonly data?: Uint8Array<ArrayBuffer>;
  readonly error?: { readonly message: string; readonly code?: string };
}

/** A request to write one part (every thread's script handles `part`, and `close`). */
export interface PartRequest {
  readonly op: 'part';
  readonly version: number;
  readonly key: number;
  readonly part: number;
  readonly data: Uint8Array;
}

/** The request that closes a thread's connection (every thread's script handles it). */
interface CloseRequest {
  readonly op: 'close';
}

export interface PartsThreadOptions {
  /** The thread's script (plain JavaScript, run with `eval`). */
  readonly script: string;
  /** Its `workerData`. */
  readonly config: object;
  /** For error messages: "the SQLite writer thread". */
  readonly name: string;
  /** Called once when the thread stops (an error, or `close`). */
  readonly stopped?: () => void;
  /**
   * Close the thread when writing a checkpoint's parts fails (its connection may be broken); the
   * store starts a new one for the next checkpoint.
   */
  readonly closeOnFailedWrite?: boolean;
}

/** `Request`: the thread's own requests, besides `part` and `close`. */
export class PartsThread<Request extends { readonly op: string } = never> {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  private failure: Error | undefined;
  /** Buffers the thread handed back, reused for the next parts. */
  private readonly pool: Array<Uint8Array<ArrayBuffer>> = [];

  constructor(private readonly options: PartsThreadOptions) {
    const execArgv = workerExecArgv(process.execArgv);
    this.worker = new Worker(options.script, {
      eval: true,
      workerData: options.config,
      ...(execArgv === undefined ? {} : { execArgv }),
    });
    // An idle thread does not keep the process alive; one with requests in flight does.
    this.worker.unref();
    this.worker.on('message', (reply: Reply) => this.settle(reply));
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`${options.name} exited (code ${code})`)));
  }

  /** Whether the thread can take requests (it stopped after an error, or was closed). */
  get alive(): boolean {
    return this.failure === undefined;
  }

  /**
   * Writes the parts of one checkpoint, numbered from 0, and resolves with how many there were.
   * Each part is copied into a buffer the thread owns (and returns), then handed back to its
   * stream (`recycle`).
   */
  async writeParts(
    version: number,
    key: number,
    parts: AsyncIterable<Uint8Array>,
    recycle: ((part: Uint8Array) => void) | undefined,
  ): Promise<number> {
    try {
      return await this.sendParts(version, key, parts, recycle);
    } catch (error) {
      if (this.options.closeOnFailedWrite === true) await this.close();
      throw error;
    }
  }

  /** Copies each part into a thread-owned buffer and sends it, two in flight at most. */
  private async sendParts(
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
        const message: PartRequest = { op: 'part', version, key, part: count++, data };
        const sent = this.send(message, [data.buffer]).then((reply) => {
          if (reply.data) this.pool.push(new Uint8Array(reply.data.buffer));
        });
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

  /** A request of the thread's own (its script says which); resolves when it is done. */
  async request(message: Request): Promise<void> {
    await this.send(message);
  }

  /**
   * Asks the thread to close its connection, then stops it. A thread that does not answer within
   * `CLOSE_WAIT_MS` (a connection that hangs) is stopped anyway.
   */
  async close(): Promise<void> {
    if (this.alive) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)));
      try {
        await Promise.race([this.send({ op: 'close' }), late]);
      } catch {
        // Closing anyway.
      } finally {
        clearTimeout(timer);
      }
    }
    this.fail(new Error(`${this.options.name} was closed`));
    await this.worker.terminate();
  }

  private buffer(length: number): Uint8Array<ArrayBuffer> {
    const pooled = this.pool.pop();
    if (pooled !== undefined && pooled.length >= length) return pooled.subarray(0, length);
    return new Uint8Array(length);
  }

  private send(message: Request | PartRequest | CloseRequest, transfer: ArrayBuffer[] = []): Promise<Reply> {
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
    if (this.failure === undefined) this.options.stopped?.();
    this.failure ??= error;
    for (const waiting of this.pending.values()) waiting.reject(this.failure);
    this.pending.clear();
    this.worker.unref();
  }
}
