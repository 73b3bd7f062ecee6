/**
 * The realm handle: the impure shell around one pure realm and one store.
 *
 * - Operations run one at a time (a promise queue); the pure core itself never awaits.
 * - Before each operation the handle catches up with changes other writers appended.
 * - A change is appended to the store (at the expected version) *before* the call answers; only
 *   then does the in-memory realm move on and do subscribers get the change's events, in order.
 * - A failed or no-op result (the same state object) writes nothing.
 * - A change that cannot be persisted is not acknowledged: the call rejects with `PersistError`
 *   (cause: the store's error) and the in-memory realm stays as it was. A version conflict (another
 *   process appended first) is retried on the caught-up state, up to `maxRetries` times.
 * - Secrets never reach the store: password parameters are redacted and the hasher's answers are
 *   recorded instead; a redacted change is replayed once before it is stored, to prove it loads.
 *
 * The pieces live beside it: handle-queue (one task at a time), handle-input (what is stored and
 * how it runs), record-change (a live run as a change), replay (stored changes back to a realm),
 * checkpoint-policy (when to checkpoint) and listeners (subscribers).
 */
import type { Actor, AnyOperation, DataOf, ParamsArg, ParamsOf } from '../core/operation';
import type { OperationName, OperationNamed } from '../ops/index';
import type { OpResult } from '../core/result';
import { createRealm, type RealmOptions } from '../core/snapshot/create';
import type { RealmState } from '../core/state';
import { OPERATIONS } from '../ops/index';
import { authenticate } from '../wire/auth';
import { handleApiRequest, type ApiRequest } from '../wire/handle';
import type { ChangeInput } from './change';
import { openCheckpoint, sealRealmCheckpoint } from './checkpoint';
import { CheckpointSchedule, type CheckpointPolicy } from './checkpoint-policy';
import { CorruptStoreError, PersistError, RealmClosedError, VersionConflictError } from './errors';
import { clock, opContext, type HandleContext } from './handle-context';
import { applyInput, headerOf, plainActor, requestInput } from './handle-input';
import { TaskQueue } from './handle-queue';
import { Listeners, type ChangeListener } from './listeners';
import { ChangeRecorder } from './record-change';
import { proveReplay, replayStored, type ReplayEnv } from './replay';
import type { RealmStore, SealedChange } from './store';

export type { HandleContext } from './handle-context';
export type { CheckpointPolicy } from './checkpoint-policy';
export type { ChangeListener, ChangeNotice } from './listeners';

export interface OpenRealmOptions {
  readonly store: RealmStore;
  /** The organization to start with when the store is empty; ignored otherwise. */
  readonly snapshot?: unknown;
  readonly ctx?: HandleContext;
  /** Operations `run` accepts and replays find by name. Default: the 20 operations. */
  readonly operations?: readonly AnyOperation[];
  /** Automatic checkpoints; `false` for none (call `checkpoint()` yourself). */
  readonly checkpoints?: CheckpointPolicy | false;
  /** Retries of an operation that lost a race with another writer. Default 10. */
  readonly maxRetries?: number;
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
  const { snapshot, ...rest } = options;
  const handle = new Handle(rest);
  await handle.open(snapshot);
  return handle;
}

class Handle implements RealmHandle {
  private current!: RealmState;
  private ver = 0;
  private readonly queue = new TaskQueue();
  private readonly listeners = new Listeners((error) => this.reportBackgroundError(error));
  private readonly ops = new Map<string, AnyOperation>();
  private readonly store: RealmStore;
  private readonly env: ReplayEnv;
  private readonly checkpoints: CheckpointSchedule;
  private stopWatching: (() => Promise<void>) | undefined;
  private catchUpQueued = false;

  constructor(private readonly options: Omit<OpenRealmOptions, 'snapshot'>) {
    this.store = options.store;
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

  async open(snapshot: unknown): Promise<void> {
    let stored = await this.store.load();
    if (stored.checkpoint === null && stored.changes.length === 0) {
      if (snapshot === undefined) {
        throw new Error(`${this.store.describe} is empty: pass the initial realm as \`snapshot\``);
      }
      // Validate (createRealm) before storing: version 0 is a realm that loads.
      const initial = createRealm(snapshot, this.options.realmOptions);
      await this.store.writeCheckpoint(sealRealmCheckpoint(0, initial));
      // Another process may have initialized the store first: load what is there.
      stored = await this.store.load();
    }
    if (stored.checkpoint === null)
      throw new CorruptStoreError(this.store.describe, 'changes without a checkpoint');
    const cpWhere = `${this.store.describe}, checkpoint ${stored.checkpoint.version}`;
    this.current = openCheckpoint(stored.checkpoint, cpWhere);
    this.ver = stored.checkpoint.version;
    this.checkpoints.loaded(this.ver);
    this.applyStored(stored.changes, false);
    if (this.store.watch) {
      this.stopWatching = await this.store.watch(() => this.scheduleCatchUp());
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
    return this.queue.enqueue(
      () =>
        this.execute({ kind: 'call', op: name, actor: plainActor(actor), params: normalized }) as Promise<
          RunResult<O>
        >,
    );
  }

  request(request: ApiRequest): Promise<HandleResult> {
    return this.queue.enqueue(async () => {
      await this.catchUpNow();
      const actor = authenticate(this.current, headerOf(request.headers, 'authorization'));
      // Not authenticated: the wire layer answers the error without touching the realm.
      if ('code' in actor) return this.answerUnchanged(request);
      return this.execute(requestInput(actor, request), request);
    });
  }

  catchUp(): Promise<void> {
    return this.queue.enqueue(() => this.catchUpNow());
  }

  checkpoint(): Promise<void> {
    return this.queue.enqueue(() => this.writeCheckpoint());
  }

  async close(): Promise<void> {
    if (this.queue.closed) return;
    await this.queue.enqueue(async () => {
      if (this.checkpoints.onClose) await this.checkpointInBackground();
      this.queue.close();
      await this.stopWatching?.();
    });
    await this.store.close();
  }

  // --- internals ------------------------------------------------------------------------------

  private scheduleCatchUp(): void {
    if (this.catchUpQueued || this.queue.closed) return;
    this.catchUpQueued = true;
    this.queue
      .enqueue(async () => {
        this.catchUpQueued = false;
        await this.catchUpNow();
      })
      .catch((error: unknown) => {
        if (!(error instanceof RealmClosedError)) this.reportBackgroundError(error);
      });
  }

  /** A request that failed authentication, answered by the wire layer on the current realm. */
  private answerUnchanged(request: ApiRequest): HandleResult {
    const ctx = opContext(this.options.ctx, clock(this.options.ctx), undefined);
    return { ...handleApiRequest(this.current, request, ctx), version: this.ver };
  }

  /** Runs, records, persists, and only then acknowledges one change (retrying lost races). */
  private async execute(first: ChangeInput, original?: ApiRequest): Promise<HandleResult> {
    const maxRetries = this.options.maxRetries ?? 10;
    let input = first;
    for (let attempt = 0; ; attempt++) {
      if (input.kind === 'call' || attempt > 0) await this.catchUpNow();
      if (input.kind === 'request' && original && attempt > 0) {
        // The caught-up realm may authenticate differently (a key regenerated by another process).
        const actor = authenticate(this.current, headerOf(original.headers, 'authorization'));
        if ('code' in actor) return this.answerUnchanged(original);
        input = { ...input, actor };
      }
      const base = this.current;
      const version = this.ver;
      const now = clock(this.options.ctx);
      const recorder = new ChangeRecorder(this.options.ctx);
      const started = performance.now();
      const ctx = opContext(this.options.ctx, now, recorder.random, undefined, recorder.passwords);
      const result = applyInput(this.ops, base, input, ctx, original);
      const cost = performance.now() - started;
      if (result.state === base) return { ...result, version };

      const { sealed, redacted } = recorder.seal(version + 1, input, now, result.status);
      try {
        if (redacted) proveReplay(this.env, base, sealed, result.state);
        await this.store.append(sealed, version);
      } catch (error) {
        if (error instanceof VersionConflictError && attempt < maxRetries) continue;
        throw new PersistError(version + 1, { cause: error });
      }
      this.current = result.state;
      this.ver = version + 1;
      this.checkpoints.spent(cost);
      this.listeners.notify(this.ver, result.events);
      await this.maybeCheckpoint();
      return { ...result, version: this.ver };
    }
  }

  private async catchUpNow(): Promise<void> {
    const changes = await this.store.changesSince(this.ver);
    if (changes.length > 0) this.applyStored(changes, true);
  }

  /** Replays stored changes; any damage or divergence refuses the store (nothing half-applied). */
  private applyStored(changes: readonly SealedChange[], notify: boolean): void {
    const from = { state: this.current, version: this.ver };
    const replayed = replayStored(this.env, from, changes, notify, (ms) => this.checkpoints.spent(ms));
    this.current = replayed.state;
    this.ver = replayed.version;
    for (const n of replayed.notices) this.listeners.notify(n.version, n.events);
  }

  private reportBackgroundError(error: unknown): void {
    if (this.options.onBackgroundError) this.options.onBackgroundError(error);
    else console.error('chat-realm: realm handle background error', error);
  }

  private async maybeCheckpoint(): Promise<void> {
    if (this.checkpoints.due(this.ver)) await this.checkpointInBackground();
  }

  /** A checkpoint nobody asked for: its failure is reported, never thrown. */
  private async checkpointInBackground(): Promise<void> {
    try {
      await this.writeCheckpoint();
    } catch (error) {
      // The changes are persisted; a failed checkpoint only makes the next load slower.
      this.reportBackgroundError(error);
    }
  }

  private writeCheckpoint(): Promise<void> {
    return this.checkpoints.write(this.store, this.ver, this.current);
  }
}
