/**
 * The realm handle: the impure shell around one pure realm and one store.
 *
 * - Requests run one at a time, in arrival order (a promise queue); the pure core never awaits.
 * - Group commit: requests that arrive while a batch is being committed form the next batch. A
 *   batch catches up with changes other writers appended, runs its requests one after another in
 *   memory, each on the state the previous one left, and appends all of their changes to the
 *   store in one transaction (`appendBatch`: one fsync) *before* anyone in it is answered; only
 *   then does the in-memory realm move on and do subscribers get the changes' events, in order.
 *   Reads queue like writes: a read in a batch may see the batch's earlier changes, so it too is
 *   answered only once they are durable; `handle.state` is always the last durable state.
 * - A failed or no-op result (the same state object) writes nothing.
 * - A batch that cannot be persisted is not acknowledged: each of its changes rejects with
 *   `PersistError` (cause: the store's error) and the in-memory realm stays as it was. Requests
 *   that ran on its uncommitted changes without changing anything are run again, on the realm as
 *   it is. A version conflict (another process appended first) runs the batch again on the
 *   caught-up state, up to `maxRetries` times. With a store that has a write lock (`exclusive`,
 *   PostgreSQL) the batch that lost a race runs again holding it, after catching up, and so do
 *   all batches while other writers were seen recently (`writeLock`): writers then take turns
 *   instead of racing. A lone writer appends without it (one round trip).
 * - Catching up: before a batch, only when the realm may be behind (the store cannot notify, or
 *   did, or the batch lost a race); a batch that writes nothing always catches up (and runs again
 *   if that brought anything), so reads see every change acknowledged before they arrived.
 * - Secrets never reach the store: password parameters are redacted and the hasher's answers are
 *   recorded instead; a redacted change is replayed once before it is stored, to prove it loads.
 *
 * The pieces live beside it: handle-queue (one task at a time), handle-batch (gathering batches),
 * handle-input (what is stored and how it runs), record-change (a live run as a change), replay
 * (stored changes back to a realm), checkpoint-policy (when to checkpoint) and listeners.
 */
import type { Actor, AnyOperation, DataOf, ParamsArg, ParamsOf } from '../core/operation';
import type { OperationName, OperationNamed } from '../ops/index';
import type { OpResult } from '../core/result';
import { createRealm, type RealmOptions } from '../core/snapshot/create';
import type { RealmSnapshotInput } from '../core/snapshot/format';
import type { RealmState } from '../core/state';
import { OPERATIONS } from '../ops/index';
import { authenticate } from '../wire/auth';
import { handleApiRequest, headerValue, type ApiRequest } from '../wire/handle';
import type { Change, ChangeInput } from './change';
import { checkpointStream, readCheckpoint } from './checkpoint';
import { CheckpointSchedule, type CheckpointPolicy } from './checkpoint-policy';
import {
  CorruptStoreError,
  PersistError,
  RealmClosedError,
  RealmHaltedError,
  ReplayMismatchError,
  UnsupportedFormatError,
  VersionConflictError,
} from './errors';
import { Batches, type BatchEntry } from './handle-batch';
import { clock, opContext, type HandleContext } from './handle-context';
import { applyInput, plainActor, requestInput } from './handle-input';
import { checkChangeSize, checkHead, DEFAULT_MAX_CHANGE_BYTES } from './load-checks';
import { TaskQueue } from './handle-queue';
import { Listeners, type ChangeListener } from './listeners';
import { ChangeRecorder } from './record-change';
import { proveReplay, replayStored, type ReplayEnv } from './replay';
import type { RealmStore, SealedChange } from './store';
import {
  keepableAnswer,
  RecentAnswers,
  repeatedBody,
  REQUEST_ID_HEADER,
  type RecordedAnswer,
} from './request-ids';

/** How long after seeing another writer race this one batches keep taking the write lock first. */
const CONTENTION_MS = 1000;

/** One request of a batch after it ran: its result (and change, if any), or what it threw. */
type Ran =
  | {
      readonly entry: BatchEntry<HandleResult>;
      readonly result: HandleResult;
      readonly change?: {
        readonly sealed: SealedChange;
        readonly cost: number;
        /** A forwarded request's id and answer, remembered once the change is durable. */
        readonly tagged?: { readonly id: string; readonly answer: RecordedAnswer };
      };
    }
  | { readonly entry: BatchEntry<HandleResult>; readonly error: unknown };

interface RanBatch {
  /** The version the batch ran from (what the append expects). */
  readonly baseVersion: number;
  readonly tip: RealmState;
  readonly version: number;
  /** The checksum chain value after the batch's last change. */
  readonly chain: number;
  readonly ran: readonly Ran[];
  readonly sealed: readonly SealedChange[];
}

/** Whether a request may change the realm (a library call, or any HTTP method but GET and HEAD). */
function mayWrite(entry: BatchEntry<HandleResult>): boolean {
  if (entry.work.kind === 'input') return true;
  const method = entry.work.request.method.toUpperCase();
  return method !== 'GET' && method !== 'HEAD';
}

/** Errors that say a stored change cannot be applied here (as opposed to a store that failed to answer). */
function isUnappliable(error: unknown): boolean {
  return (
    error instanceof ReplayMismatchError ||
    error instanceof CorruptStoreError ||
    error instanceof UnsupportedFormatError
  );
}

/** How often a read that comes alone still waits for a turn, to see whether others join it. */
const SAMPLE_EVERY = 64;

/** Runs `fn` after pending I/O callbacks (setImmediate where there is one). */
const afterTurn: (fn: () => void) => void =
  typeof setImmediate === 'function' ? (fn) => void setImmediate(fn) : (fn) => void setTimeout(fn, 0);

function answer(r: Ran): void {
  if ('error' in r) r.entry.reject(r.error);
  else r.entry.resolve(r.result);
}

export type { HandleContext } from './handle-context';
export type { CheckpointPolicy } from './checkpoint-policy';
export type { ChangeListener, ChangeNotice } from './listeners';

export interface OpenRealmOptions {
  readonly store: RealmStore;
  /** The organization to start with when the store is empty; ignored otherwise. */
  readonly snapshot?: RealmSnapshotInput;
  /** Instead of `snapshot`: the initial realm already built (e.g. by `createRealmFromChunks`). */
  readonly initialState?: RealmState;
  readonly ctx?: HandleContext;
  /** Operations `run` accepts and replays find by name. Default: the 20 operations. */
  readonly operations?: readonly AnyOperation[];
  /** Automatic checkpoints; `false` for none (call `checkpoint()` yourself). */
  readonly checkpoints?: CheckpointPolicy | false;
  /** Retries of a batch that lost a race with another writer. Default 10. */
  readonly maxRetries?: number;
  /**
   * When a batch with changes takes the store's write lock (stores with `exclusive`: PostgreSQL).
   * `'contended'` (default): it appends optimistically, and takes the lock to run again only after
   * losing a race, and for every batch while other writers were seen within the last second; a
   * lone writer never pays for the lock. `'always'`: every batch with changes appends holding it.
   */
  readonly writeLock?: 'contended' | 'always';
  /**
   * The largest stored change, in bytes of its record (UTF-8). A change beyond it is not stored or
   * acknowledged: the call rejects with `PersistError` (cause: `ChangeTooLargeError`). Default
   * 1 MiB, the Node server's default body limit.
   */
  readonly maxChangeBytes?: number;
  /**
   * Most requests run and persisted together (group commit). Default 256; 1 turns group commit
   * off: one transaction, so one fsync, per change.
   */
  readonly maxBatch?: number;
  /** Passed to `createRealm` for the initial snapshot. */
  readonly realmOptions?: RealmOptions;
  /**
   * Errors nobody awaits: a subscriber that throws, a failed automatic checkpoint (the change itself
   * is persisted), a failed catch-up after a notification. Default: console.error.
   */
  readonly onBackgroundError?: (error: unknown) => void;
}

/** An operation's result, with the realm version it left (unchanged when nothing was written). */
export type HandleResult<D extends object = Readonly<Record<string, unknown>>> = OpResult<D> & {
  readonly version: number;
};

/** `run`'s parameters for an operation given by value or by name (a custom one's are untyped). */
export type RunArgs<O> = O extends AnyOperation
  ? ParamsArg<ParamsOf<O>>
  : O extends OperationName
    ? ParamsArg<ParamsOf<OperationNamed<O>>>
    : [params?: Readonly<Record<string, unknown>>];
/** What `run` answers for an operation given by value or by name. */
export type RunResult<O> = O extends AnyOperation
  ? HandleResult<DataOf<O>>
  : O extends OperationName
    ? HandleResult<DataOf<OperationNamed<O>>>
    : HandleResult;

export interface RealmHandle {
  readonly state: RealmState;
  readonly version: number;
  /**
   * Set once a stored change (another writer's, caught up with) could not be applied: the handle
   * then refuses everything for this realm (see `RealmHaltedError`); `state` stays the last state
   * known to be right, at `version`.
   */
  readonly halted: RealmHaltedError | undefined;
  /**
   * Runs an operation with decoded parameters, typed as the operation's own: pass the operation
   * (`run(editChannel, actor, { stream_id: 1, description: 'x' })`) or a built-in's name.
   */
  run<const O extends AnyOperation | string>(op: O, actor: Actor, ...args: RunArgs<O>): Promise<RunResult<O>>;
  /** Runs a wire request through `handleApiRequest`. */
  request(request: ApiRequest): Promise<HandleResult>;
  /** Listener gets each change's events after it is persisted, in version order. */
  subscribe(listener: ChangeListener): () => void;
  /** Applies changes other writers appended (also done before every operation). */
  catchUp(): Promise<void>;
  /** Writes a checkpoint of the current version. */
  checkpoint(): Promise<void>;
  /** Waits for queued work, writes a checkpoint (see `CheckpointPolicy.onClose`), stops watching, closes the store. */
  close(): Promise<void>;
}

export async function openRealm(options: OpenRealmOptions): Promise<RealmHandle> {
  // The handle keeps its options but not the initial snapshot (it can be a million messages).
  const { snapshot, initialState, ...rest } = options;
  const handle = new Handle(rest);
  await handle.open(initialState !== undefined ? { state: initialState } : snapshot);
  return handle;
}

class Handle implements RealmHandle {
  private current!: RealmState;
  private ver = 0;
  /** The checksum of the latest change (the chain value the next change continues). */
  private chain = 0;
  /** Checkpoint writes, one at a time, outside the queue. */
  private checkpointTail: Promise<void> = Promise.resolve();
  private checkpointsPending = 0;
  private closing = false;
  private readonly queue = new TaskQueue();
  private readonly listeners = new Listeners((error) => this.reportBackgroundError(error));
  private readonly ops = new Map<string, AnyOperation>();
  private readonly store: RealmStore;
  private readonly env: ReplayEnv;
  private readonly checkpoints: CheckpointSchedule;
  private readonly batches: Batches<HandleResult>;
  private readonly maxBatch: number;
  private stopWatching: (() => Promise<void>) | undefined;
  private catchUpQueued = false;
  /** Whether the store tells this handle when other writers append (`watch`). */
  private watched = false;
  /** The last version of the batch being appended (its notification may come before the answer). */
  private appendingTo = 0;
  /** A notification arrived since the last catch-up started: the realm may be behind. */
  private notified = false;
  /** When another writer was last seen racing this handle (`performance.now()`). */
  private contendedAt = Number.NEGATIVE_INFINITY;
  /** Set when a stored change could not be applied: nothing is answered from this realm any more. */
  private haltedBy: RealmHaltedError | undefined;
  /** Whether the last reads answered came alone (`addRead`), and reads answered since a turn. */
  private readsAlone = false;
  private readsSinceSample = 0;
  /** Reads waiting to be answered (`addRead`). */
  private reads:
    { request: ApiRequest; resolve: (r: HandleResult) => void; reject: (e: unknown) => void }[] | undefined;
  /** Forwarded requests' ids of the latest changes, with their answers (request-ids.ts). */
  private readonly answers = new RecentAnswers();

  constructor(private readonly options: Omit<OpenRealmOptions, 'snapshot' | 'initialState'>) {
    this.store = options.store;
    const maxBatch = options.maxBatch ?? 256;
    if (!Number.isSafeInteger(maxBatch) || maxBatch < 1)
      throw new RangeError(`maxBatch must be a positive integer, got ${String(options.maxBatch)}`);
    this.maxBatch = maxBatch;
    this.batches = new Batches(
      this.queue,
      maxBatch,
      (entries) => this.commitBatch(entries),
      this.store.appendsAtOnce === true,
    );
    for (const op of options.operations ?? OPERATIONS) this.ops.set(op.def.name, op);
    this.env = { ops: this.ops, ctx: options.ctx, store: this.store };
    this.checkpoints = new CheckpointSchedule(options.checkpoints);
  }

  get state(): RealmState {
    return this.current;
  }

  get version(): number {
    return this.ver;
  }

  get halted(): RealmHaltedError | undefined {
    return this.haltedBy;
  }

  async open(initial: { readonly state: RealmState } | RealmSnapshotInput | undefined): Promise<void> {
    let stored = await this.store.load();
    if (stored.checkpoint === null && stored.changes.length === 0) {
      if (initial === undefined) {
        throw new Error(`${this.store.describe} is empty: pass the initial realm as \`snapshot\``);
      }
      // Validate (createRealm) before storing: version 0 is a realm that loads.
      const state = 'state' in initial ? initial.state : createRealm(initial, this.options.realmOptions);
      // Streamed like every checkpoint, so that pruning it later goes part by part.
      await this.store.writeCheckpoint(checkpointStream(0, state, 0));
      // Another process may have initialized the store first: load what is there.
      stored = await this.store.load();
    }
    if (stored.checkpoint === null)
      throw new CorruptStoreError(this.store.describe, 'changes without a checkpoint');
    const cpWhere = `${this.store.describe}, checkpoint ${stored.checkpoint.version}`;
    const loaded = readCheckpoint(stored.checkpoint, cpWhere);
    this.current = loaded.state;
    this.ver = stored.checkpoint.version;
    this.chain = loaded.chain ?? (await this.legacyChain(this.ver));
    this.checkpoints.loaded(this.ver);
    this.applyStored(stored.changes, false);
    checkHead(this.store.describe, stored, this.ver, this.chain);
    if (this.store.watch) {
      this.stopWatching = await this.store.watch((version) => {
        // Our own appends notify too: nothing to catch up with.
        if (version !== undefined && version <= Math.max(this.ver, this.appendingTo)) return;
        this.notified = true;
        this.scheduleCatchUp();
      });
      this.watched = true;
    }
  }

  subscribe(listener: ChangeListener): () => void {
    return this.listeners.add(listener);
  }

  run<const O extends AnyOperation | string>(
    op: O,
    actor: Actor,
    ...args: RunArgs<O>
  ): Promise<RunResult<O>> {
    const params: unknown = args[0];
    const name = typeof op === 'string' ? op : op.def.name;
    const known = this.ops.get(name);
    if (!known || (typeof op !== 'string' && known !== op)) {
      return Promise.reject(
        new TypeError(`${name} is not among the handle's operations, so it could not be replayed`),
      );
    }
    let normalized: unknown;
    try {
      // What is stored is JSON; run the operation on exactly what a replay will see.
      normalized = params === undefined ? {} : JSON.parse(JSON.stringify(params));
    } catch (cause) {
      return Promise.reject(new TypeError('params must be JSON-serializable to be persisted', { cause }));
    }
    if (this.queue.closed) return Promise.reject(new RealmClosedError());
    if (this.haltedBy) return Promise.reject(this.haltedBy);
    return this.batches.add({
      kind: 'input',
      input: { kind: 'call', op: name, actor: plainActor(actor), params: normalized },
    }) as Promise<RunResult<O>>;
  }

  request(request: ApiRequest): Promise<HandleResult> {
    if (this.queue.closed) return Promise.reject(new RealmClosedError());
    if (this.haltedBy) return Promise.resolve(this.haltedAnswer(this.haltedBy));
    if (this.readsNow(request)) return this.addRead(request);
    return this.batches.add({ kind: 'request', request });
  }

  /**
   * Whether a read is answered outside the batches, from the realm as it is: when that is what a
   * batch would answer. The handle has nothing queued or running (so nothing that arrived before
   * it is skipped), and its store tells it of other writers' appends before they are acknowledged
   * (`watchIsSynchronous`) and told it of none (so its realm holds every acknowledged change; a
   * PostgreSQL notification may still be on its way, so there a read reads the store first).
   */
  private readsNow(request: ApiRequest): boolean {
    const method = request.method;
    if (method !== 'GET' && method !== 'HEAD' && method !== 'get' && method !== 'head') return false;
    if (!this.watched || this.store.watchIsSynchronous !== true) return false;
    return !this.notified && this.queue.idle && !this.batches.waiting;
  }

  /**
   * Reads are answered together after one turn of the event loop when they come many at a time
   * (many clients: answering a turn's reads in one go costs the process less per request, 27–30
   * against 37–41 µs of CPU per GET /users/me with 32 concurrent clients), and at once when they
   * come one at a time (one client's requests in series, as fair scheduling runs one user's:
   * there a turn waited for is pure cost, 58–67 against 77–86 µs). The last batch's size tells
   * which; one read in `SAMPLE_EVERY` waits for a turn anyway, to notice when others join.
   */
  private addRead(request: ApiRequest): Promise<HandleResult> {
    return new Promise<HandleResult>((resolve, reject) => {
      let reads = this.reads;
      if (reads === undefined) {
        reads = [];
        this.reads = reads;
        if (this.readsAlone && ++this.readsSinceSample < SAMPLE_EVERY)
          queueMicrotask(() => this.answerReads());
        else {
          this.readsSinceSample = 0;
          afterTurn(() => this.answerReads());
        }
      }
      reads.push({ request, resolve, reject });
    });
  }

  private answerReads(): void {
    const reads = this.reads ?? [];
    this.reads = undefined;
    this.readsAlone = reads.length <= 1;
    const tip = this.current;
    const ctx = opContext(this.options.ctx, clock(this.options.ctx), undefined);
    for (const read of reads) {
      if (this.haltedBy) {
        read.resolve(this.haltedAnswer(this.haltedBy));
        continue;
      }
      let result: OpResult | undefined;
      try {
        result = handleApiRequest(tip, read.request, ctx);
      } catch {
        // The batch path reports it (as a rejection), as for any request.
      }
      if (result !== undefined && result.state === tip) read.resolve({ ...result, version: this.ver });
      // A read that changed the realm after all runs as a batch, recorded.
      else this.batches.add({ kind: 'request', request: read.request }).then(read.resolve, read.reject);
    }
  }

  catchUp(): Promise<void> {
    this.batches.cut();
    return this.queue.enqueue(() => this.catchUpNow());
  }

  async checkpoint(): Promise<void> {
    this.batches.cut();
    // The version is taken in the queue; the writing happens outside it.
    const { written } = await this.queue.enqueue(async () => ({ written: this.startCheckpoint() }));
    await written;
  }

  async close(): Promise<void> {
    if (this.queue.closed) return;
    this.batches.cut();
    await this.queue.enqueue(async () => {
      this.closing = true;
      // A halted realm has nothing new to keep (it applied nothing since the store's last change it could).
      if (this.checkpoints.onClose && !this.haltedBy) await this.checkpointInBackground();
      await this.checkpointTail;
      this.queue.close();
      await this.stopWatching?.();
    });
    await this.store.close();
  }

  // --- internals ------------------------------------------------------------------------------

  private scheduleCatchUp(): void {
    // A batch waiting for its turn catches up when it starts (`notified` tells it to).
    if (this.catchUpQueued || this.queue.closed || this.batches.waiting || this.haltedBy) return;
    this.catchUpQueued = true;
    this.queue
      .enqueue(async () => {
        this.catchUpQueued = false;
        await this.catchUpNow();
      })
      .catch((error: unknown) => {
        // A halt was reported once, by `halt`.
        if (!(error instanceof RealmClosedError) && !(error instanceof RealmHaltedError))
          this.reportBackgroundError(error);
      });
  }

  /**
   * Runs a batch and persists its changes in one append, then answers everyone in it (see the
   * top of this file). Only a failure to read the store (catching up) rejects the batch whole.
   */
  private async commitBatch(entries: readonly BatchEntry<HandleResult>[]): Promise<void> {
    const maxRetries = this.options.maxRetries ?? 10;
    let todo = entries;
    let conflicts = 0;
    try {
      if (this.haltedBy) throw this.haltedBy;
      while (todo.length > 0) {
        const locking = this.store.exclusive !== undefined && (conflicts > 0 || this.lockFirst());
        // Taking the lock anyway for a batch that may write: run it only once, under the lock.
        const lockNow = locking && todo.some(mayWrite);
        let batch: RanBatch | undefined;
        if (!lockNow) {
          // Catch up first only when the realm may be behind: no notifications tell this handle
          // about other writers, or one did, or this batch lost a race. Otherwise run on what we
          // have: the append succeeds only if nobody appended since, and a batch that writes
          // nothing catches up below. (Holding the lock, the batch catches up there.)
          let caughtUp = false;
          if (!locking && (!this.watched || this.notified || conflicts > 0)) {
            await this.catchUpNow();
            caughtUp = true;
          }
          batch = this.runBatch(todo);
          if (batch.sealed.length === 0 && !caughtUp) {
            // Reads answer from the latest durable state: catch up, and run again if that brought anything.
            const seen = this.ver;
            await this.catchUpNow();
            if (this.ver !== seen) batch = this.runBatch(todo);
          }
        }
        let failure: { readonly error: unknown } | undefined;
        const persist = async (locked: boolean) => {
          if (locked) {
            // Requests that arrived while we waited for the lock join this batch: one commit for
            // them too, instead of another wait for the lock.
            const joined = this.batches.steal(this.maxBatch - todo.length);
            if (joined.length > 0) todo = [...todo, ...joined];
            // Holding the lock: what was appended since we ran is final now. Run again on it.
            const seen = this.ver;
            await this.catchUpNow();
            if (this.ver !== seen) {
              // Another writer appended meanwhile: the lock is earning its keep.
              this.contendedAt = performance.now();
            }
            if (batch === undefined || this.ver !== seen || joined.length > 0) batch = this.runBatch(todo);
          }
          if (batch === undefined || batch.sealed.length === 0) return;
          this.appendingTo = batch.version;
          try {
            await this.store.appendBatch(batch.sealed, batch.baseVersion);
          } catch (error) {
            failure = { error };
            // Versions up to there may be another writer's now: hear about them again.
            this.appendingTo = 0;
          }
        };
        if (batch === undefined || batch.sealed.length > 0) {
          try {
            // A read-only batch never takes the write lock.
            await (locking ? this.store.exclusive!(() => persist(true)) : persist(false));
          } catch (error) {
            // The lock could not be taken, or catching up under it failed: nothing was appended.
            failure = { error };
          }
        }
        // (Not run yet when the lock could not be taken: run now, to tell reads from changes.)
        batch ??= this.runBatch(todo);
        if (failure === undefined) {
          this.adopt(batch);
          this.maybeCheckpoint();
          // Back-pressure: only when the background checkpoint fell far behind.
          if (this.checkpointsPending > 0 && this.checkpoints.overdue(this.ver)) await this.checkpointTail;
          return;
        }
        if (failure.error instanceof VersionConflictError && conflicts < maxRetries) {
          // Lost a race: run again, caught up (under the write lock, when the store has one).
          conflicts++;
          this.contendedAt = performance.now();
          continue;
        }
        // Requests that joined under the lock but did not run (catching up failed) run again too.
        const ran = new Set(batch.ran.map((r) => r.entry));
        todo = [...this.refuse(batch, failure.error), ...todo.filter((e) => !ran.has(e))];
        conflicts = 0;
      }
    } catch (error) {
      // Catching up failed: nobody in the batch, including requests that joined it, is answered.
      // (Rejecting an answered request does nothing.) A halted realm answers its refusal instead.
      if (error instanceof RealmHaltedError) {
        for (const entry of todo) {
          if (entry.work.kind === 'request') entry.resolve(this.haltedAnswer(error));
          else entry.reject(error);
        }
        return;
      }
      for (const entry of todo) entry.reject(error);
      throw error;
    }
  }

  /**
   * Whether a batch with changes takes the store's write lock before its first append: always with
   * `writeLock: 'always'`; with `'contended'` (the default) only while another writer was seen
   * recently (a lost race, or changes that arrived while waiting for the lock). Otherwise the
   * batch appends optimistically and takes the lock only if that loses a race.
   */
  private lockFirst(): boolean {
    if (this.options.writeLock === 'always') return true;
    return performance.now() - this.contendedAt < CONTENTION_MS;
  }

  /** Runs `todo` in order from the current realm, in memory: each entry on the state the previous left. */
  private runBatch(todo: readonly BatchEntry<HandleResult>[]): RanBatch {
    const baseVersion = this.ver;
    let tip = this.current;
    let version = this.ver;
    let chain = this.chain;
    const ran: Ran[] = [];
    const sealed: SealedChange[] = [];
    for (const entry of todo) {
      let outcome: Ran;
      try {
        outcome = this.runEntry(entry, tip, version, chain);
      } catch (error) {
        outcome = { entry, error };
      }
      ran.push(outcome);
      if ('change' in outcome && outcome.change) {
        tip = outcome.result.state;
        version = outcome.result.version;
        chain = outcome.change.sealed.checksum;
        sealed.push(outcome.change.sealed);
      }
    }
    return { baseVersion, tip, version, chain, ran, sealed };
  }

  /** Runs and records one request on `tip` (at `version`, whose change checksum is `chain`). */
  private runEntry(entry: BatchEntry<HandleResult>, tip: RealmState, version: number, chain: number): Ran {
    let input: ChangeInput;
    let requestId: string | undefined;
    if (entry.work.kind === 'request') {
      const original = entry.work.request;
      const actor = authenticate(tip, headerValue(original.headers, 'authorization'));
      // Not authenticated: the wire layer answers the error without touching the realm.
      if ('code' in actor) {
        const ctx = opContext(this.options.ctx, clock(this.options.ctx), undefined);
        return { entry, result: { ...handleApiRequest(tip, original, ctx), version } };
      }
      requestId = headerValue(original.headers, REQUEST_ID_HEADER);
      if (requestId !== undefined) {
        // A retry of a forwarded write that is already applied (this handle caught up before
        // running the batch, and runs it again caught up after a lost race): its first answer.
        const found = this.answers.find(requestId, actor);
        if (found !== undefined) {
          const body = repeatedBody(found);
          return {
            entry,
            result: { state: tip, status: found.status, body, events: [], effects: [], version },
          };
        }
      }
      // What is stored is what runs: the replay sees exactly what this run sees.
      input = requestInput(actor, original);
    } else {
      input = entry.work.input;
    }
    const now = clock(this.options.ctx);
    const recorder = new ChangeRecorder(this.options.ctx);
    const started = performance.now();
    const ctx = opContext(this.options.ctx, now, recorder.random, undefined, recorder.passwords);
    const result = applyInput(this.ops, tip, input, ctx);
    const cost = performance.now() - started;
    if (result.state === tip) return { entry, result: { ...result, version } };
    const kept = requestId === undefined ? undefined : keepableAnswer(result.body);
    const tag = requestId === undefined ? undefined : { requestId, answer: kept };
    const { sealed, redacted } = recorder.seal(chain, version + 1, input, now, result.status, tag);
    try {
      checkChangeSize(sealed, this.options.maxChangeBytes ?? DEFAULT_MAX_CHANGE_BYTES);
      if (redacted) proveReplay(this.env, tip, sealed, chain, result.state);
    } catch (cause) {
      return { entry, error: new PersistError(version + 1, { cause }) };
    }
    const tagged =
      requestId === undefined
        ? undefined
        : {
            id: requestId,
            answer: {
              actor: plainActor(input.actor),
              version: version + 1,
              status: result.status,
              body: redacted ? undefined : kept,
            },
          };
    return {
      entry,
      result: { ...result, version: version + 1 },
      change: { sealed, cost, ...(tagged === undefined ? {} : { tagged }) },
    };
  }

  /** The batch is durable: move on, tell subscribers (in version order), answer everyone in it. */
  private adopt(batch: RanBatch): void {
    this.current = batch.tip;
    this.ver = batch.version;
    this.chain = batch.chain;
    for (const r of batch.ran) {
      if ('change' in r && r.change) {
        this.checkpoints.spent(r.change.cost, r.change.sealed.payload.length);
        if (r.change.tagged) this.answers.add(r.change.tagged.id, r.change.tagged.answer);
        this.listeners.notify(r.result.version, r.result.events);
      }
    }
    for (const r of batch.ran) answer(r);
  }

  /**
   * The batch could not be persisted: its changes reject with `PersistError` and the realm stays
   * as it was. Requests that ran before its first change are answered (they saw only durable
   * state); the others are returned, to run again on the realm as it is.
   */
  private refuse(batch: RanBatch, error: unknown): BatchEntry<HandleResult>[] {
    const again: BatchEntry<HandleResult>[] = [];
    let changed = false;
    for (const r of batch.ran) {
      if ('change' in r && r.change) {
        changed = true;
        r.entry.reject(new PersistError(r.result.version, { cause: error }));
      } else if (changed) {
        again.push(r.entry);
      } else {
        answer(r);
      }
    }
    return again;
  }

  private async catchUpNow(): Promise<void> {
    if (this.haltedBy) throw this.haltedBy;
    try {
      await this.catchUpStored();
    } catch (error) {
      if (!isUnappliable(error)) throw error;
      throw this.halt(error);
    }
  }

  /**
   * A stored change could not be applied (it diverged, is damaged, or has a newer format): this
   * realm's state is right at `ver` but cannot move on, so the handle stops answering for it
   * rather than answer from a state it knows is behind. Said once, through `onBackgroundError`.
   */
  private halt(cause: unknown): RealmHaltedError {
    if (this.haltedBy) return this.haltedBy;
    const change = cause instanceof ReplayMismatchError ? cause.version : this.ver + 1;
    this.haltedBy = new RealmHaltedError(this.store.describe, this.ver, change, { cause });
    this.reportBackgroundError(this.haltedBy);
    return this.haltedBy;
  }

  /** What a halted realm answers to a wire request: a 503 naming the change and the reason. */
  private haltedAnswer(error: RealmHaltedError): HandleResult {
    return {
      state: this.current,
      version: this.ver,
      status: 503,
      body: {
        result: 'error',
        msg: error.message,
        code: 'REALM_HALTED',
        version: error.version,
        change: error.change,
      },
      events: [],
      effects: [],
    };
  }

  private async catchUpStored(): Promise<void> {
    // A notification that arrives from here on may be about a change this read misses: it sets
    // the flag again.
    this.notified = false;
    const changes = await this.store.changesSince(this.ver);
    if (changes.length > 0 && changes[0]!.version > this.ver + 1) {
      // Another writer's checkpoints pruned the changes this handle still needed (it was idle
      // for two checkpoints): start again from the store's latest checkpoint. Subscribers are
      // told which versions they will never hear about, then hear the changes after it.
      const stored = await this.store.load();
      if (stored.checkpoint !== null && stored.checkpoint.version > this.ver) {
        const where = `${this.store.describe}, checkpoint ${stored.checkpoint.version}`;
        const loaded = readCheckpoint(stored.checkpoint, where);
        const chain = loaded.chain ?? (await this.legacyChain(stored.checkpoint.version));
        const from = { state: loaded.state, version: stored.checkpoint.version, chain };
        const replayed = replayStored(
          this.env,
          from,
          stored.changes,
          true,
          () => undefined,
          (c) => this.remember(c),
        );
        const missed = { from: this.ver + 1, to: from.version };
        this.current = replayed.state;
        this.ver = replayed.version;
        this.chain = replayed.chain;
        this.checkpoints.loaded(from.version);
        this.listeners.notify(from.version, [], missed);
        for (const n of replayed.notices) this.listeners.notify(n.version, n.events);
        return;
      }
    }
    if (changes.length > 0) this.applyStored(changes, true);
  }

  /** Replays stored changes; any damage or divergence refuses the store (nothing half-applied). */
  private applyStored(changes: readonly SealedChange[], notify: boolean): void {
    let chars = 0;
    for (const c of changes) chars += c.payload.length;
    this.checkpoints.spent(0, chars);
    const from = { state: this.current, version: this.ver, chain: this.chain };
    const replayed = replayStored(
      this.env,
      from,
      changes,
      notify,
      (ms) => this.checkpoints.spent(ms),
      (c) => this.remember(c),
    );
    this.current = replayed.state;
    this.ver = replayed.version;
    this.chain = replayed.chain;
    for (const n of replayed.notices) this.listeners.notify(n.version, n.events);
  }

  /** Remembers a forwarded request's id of a change applied from the store (request-ids.ts). */
  private remember(change: Change): void {
    if (change.requestId === undefined) return;
    this.answers.add(change.requestId, {
      actor: change.input.actor,
      version: change.version,
      status: change.status,
      body: change.answer,
    });
  }

  private reportBackgroundError(error: unknown): void {
    if (this.options.onBackgroundError) this.options.onBackgroundError(error);
    else console.error('chat-realm: realm handle background error', error);
  }

  /**
   * The chain value at a checkpoint of format 1 or 2 (0.1.0), which did not record it: the
   * checksum of the stored change of that version (kept: pruning keeps the change at the oldest
   * checkpoint), or 0 at version 0.
   */
  private async legacyChain(version: number): Promise<number> {
    if (version === 0) return 0;
    const [change] = await this.store.changesSince(version - 1);
    return change?.version === version ? change.checksum : 0;
  }

  /** Starts an automatic checkpoint when the policy wants one and none is being written. */
  private maybeCheckpoint(): void {
    if (this.closing || this.checkpointsPending > 0 || !this.checkpoints.due(this.ver)) return;
    void this.checkpointInBackground().then((written) => {
      // Changes acknowledged meanwhile may already call for the next one (not after a failure:
      // the next change tries again).
      if (written) this.maybeCheckpoint();
    });
  }

  /** A checkpoint nobody asked for: its failure is reported, never thrown. */
  private async checkpointInBackground(): Promise<boolean> {
    try {
      await this.startCheckpoint();
      return true;
    } catch (error) {
      // The changes are persisted; a failed checkpoint only makes the next load slower.
      this.reportBackgroundError(error);
      return false;
    }
  }

  /**
   * Writes a checkpoint of the current version after the ones already being written, without
   * holding the queue: the realm is immutable, so it is encoded and written while later changes run.
   */
  private startCheckpoint(): Promise<void> {
    const { ver, current, chain } = this;
    this.checkpointsPending++;
    const written = this.checkpointTail
      .then(() => this.checkpoints.write(this.store, ver, current, chain))
      .finally(() => {
        this.checkpointsPending--;
      });
    this.checkpointTail = written.catch(() => undefined);
    return written;
  }
}
