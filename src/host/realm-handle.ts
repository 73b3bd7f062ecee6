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
import type { Actor, DefinedOperation } from '../core/operation';
import type { OpResult } from '../core/result';
import { createRealm, type RealmOptions } from '../core/snapshot/create';
import type { RealmState } from '../core/state';
import { OPERATIONS } from '../ops/index';
import { authenticate } from '../wire/auth';
import { handleApiRequest, type ApiRequest } from '../wire/handle';
import type { ChangeInput } from './change';
import { checkpointStream, readCheckpoint } from './checkpoint';
import { CheckpointSchedule, type CheckpointPolicy } from './checkpoint-policy';
import { CorruptStoreError, PersistError, RealmClosedError, VersionConflictError } from './errors';
import { clock, opContext, type HandleContext } from './handle-context';
import { applyInput, headerOf, plainActor, requestInput } from './handle-input';
import { checkChangeSize, checkHead, DEFAULT_MAX_CHANGE_BYTES } from './load-checks';
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
  readonly operations?: readonly DefinedOperation[];
  /** Automatic checkpoints; `false` for none (call `checkpoint()` yourself). */
  readonly checkpoints?: CheckpointPolicy | false;
  /** Retries of an operation that lost a race with another writer. Default 10. */
  readonly maxRetries?: number;
  /**
   * The largest stored change, in bytes of its record (UTF-8). A change beyond it is not stored or
   * acknowledged: the call rejects with `PersistError` (cause: `ChangeTooLargeError`). Default
   * 1 MiB, the Node server's default body limit.
   */
  readonly maxChangeBytes?: number;
  /** Passed to `createRealm` for the initial snapshot. */
  readonly realmOptions?: RealmOptions;
  /**
   * Errors nobody awaits: a subscriber that throws, a failed automatic checkpoint (the change itself
   * is persisted), a failed catch-up after a notification. Default: console.error.
   */
  readonly onBackgroundError?: (error: unknown) => void;
}

/** An operation's result, with the realm version it left (unchanged when nothing was written). */
export type HandleResult = OpResult & { readonly version: number };

export interface RealmHandle {
  readonly state: RealmState;
  readonly version: number;
  /** Runs an operation with decoded parameters. */
  run(op: DefinedOperation | string, actor: Actor, params?: unknown): Promise<HandleResult>;
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
  /** The checksum of the latest change (the chain value the next change continues). */
  private chain = 0;
  /** Checkpoint writes, one at a time, outside the queue. */
  private checkpointTail: Promise<void> = Promise.resolve();
  private checkpointsPending = 0;
  private closing = false;
  private readonly queue = new TaskQueue();
  private readonly listeners = new Listeners((error) => this.reportBackgroundError(error));
  private readonly ops = new Map<string, DefinedOperation>();
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
      // Streamed like every checkpoint, so that pruning it later goes part by part.
      await this.store.writeCheckpoint(checkpointStream(0, initial, 0));
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
      this.stopWatching = await this.store.watch(() => this.scheduleCatchUp());
    }
  }

  subscribe(listener: ChangeListener): () => void {
    return this.listeners.add(listener);
  }

  run(op: DefinedOperation | string, actor: Actor, params: unknown = {}): Promise<HandleResult> {
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
    return this.queue.enqueue(() =>
      this.execute({ kind: 'call', op: name, actor: plainActor(actor), params: normalized }),
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

  async checkpoint(): Promise<void> {
    // The version is taken in the queue; the writing happens outside it.
    const { written } = await this.queue.enqueue(async () => ({ written: this.startCheckpoint() }));
    await written;
  }

  async close(): Promise<void> {
    if (this.queue.closed) return;
    await this.queue.enqueue(async () => {
      this.closing = true;
      if (this.checkpoints.onClose) await this.checkpointInBackground();
      await this.checkpointTail;
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

      const chain = this.chain;
      const { sealed, redacted } = recorder.seal(chain, version + 1, input, now, result.status);
      try {
        checkChangeSize(sealed, this.options.maxChangeBytes ?? DEFAULT_MAX_CHANGE_BYTES);
        if (redacted) proveReplay(this.env, base, sealed, chain, result.state);
        await this.store.append(sealed, version);
      } catch (error) {
        if (error instanceof VersionConflictError && attempt < maxRetries) continue;
        throw new PersistError(version + 1, { cause: error });
      }
      this.current = result.state;
      this.ver = version + 1;
      this.chain = sealed.checksum;
      this.checkpoints.spent(cost);
      this.listeners.notify(this.ver, result.events);
      this.maybeCheckpoint();
      // Back-pressure: only when the background checkpoint fell far behind.
      if (this.checkpointsPending > 0 && this.checkpoints.overdue(this.ver)) await this.checkpointTail;
      return { ...result, version: this.ver };
    }
  }

  private async catchUpNow(): Promise<void> {
    const changes = await this.store.changesSince(this.ver);
    if (changes.length > 0 && changes[0]!.version > this.ver + 1) {
      // Another writer's checkpoints pruned the changes this handle still needed (it was idle
      // for two checkpoints): start again from the store's latest checkpoint. Subscribers hear
      // only the changes after it.
      const stored = await this.store.load();
      if (stored.checkpoint !== null && stored.checkpoint.version > this.ver) {
        const where = `${this.store.describe}, checkpoint ${stored.checkpoint.version}`;
        const loaded = readCheckpoint(stored.checkpoint, where);
        const chain = loaded.chain ?? (await this.legacyChain(stored.checkpoint.version));
        const from = { state: loaded.state, version: stored.checkpoint.version, chain };
        const replayed = replayStored(this.env, from, stored.changes, true, () => undefined);
        this.current = replayed.state;
        this.ver = replayed.version;
        this.chain = replayed.chain;
        this.checkpoints.loaded(from.version);
        for (const n of replayed.notices) this.listeners.notify(n.version, n.events);
        return;
      }
    }
    if (changes.length > 0) this.applyStored(changes, true);
  }

  /** Replays stored changes; any damage or divergence refuses the store (nothing half-applied). */
  private applyStored(changes: readonly SealedChange[], notify: boolean): void {
    const from = { state: this.current, version: this.ver, chain: this.chain };
    const replayed = replayStored(this.env, from, changes, notify, (ms) => this.checkpoints.spent(ms));
    this.current = replayed.state;
    this.ver = replayed.version;
    this.chain = replayed.chain;
    for (const n of replayed.notices) this.listeners.notify(n.version, n.events);
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
