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
 */
import {
  cryptoRandom,
  defaultPasswordHasher,
  type DeleteTopicOptions,
  type OpContext,
  type PasswordHasher,
  type RandomSource,
} from '../core/context';
import type { AddressedEvent } from '../core/events';
import type { Actor, DefinedOperation } from '../core/operation';
import type { OpResult } from '../core/result';
import { createRealm, type RealmOptions } from '../core/snapshot/create';
import type { RealmState } from '../core/state';
import { OPERATIONS } from '../ops/index';
import { authenticate } from '../wire/auth';
import { basicAuthHeader } from '../wire/auth';
import { handleApiRequest, type ApiRequest } from '../wire/handle';
import { openChange, sealChange, type Change, type ChangeInput } from './change';
import { openCheckpoint, sealRealmCheckpoint } from './checkpoint';
import {
  CorruptStoreError,
  PersistError,
  RealmClosedError,
  ReplayMismatchError,
  VersionConflictError,
} from './errors';
import { PlaybackPasswordHasher, RecordingPasswordHasher } from './passwords';
import { PlaybackRandom, RecordingRandom } from './random';
import { redactInput } from './redact';
import type { RealmStore, SealedChange } from './store';

/** What the host lends operations. Unlike `OpContext`, `now` may be a clock. */
export interface HandleContext {
  /** UNIX seconds, or a clock returning them. Default: the system clock. */
  readonly now?: number | (() => number);
  readonly random?: RandomSource;
  /**
   * Hashes and verifies passwords when operations run. Replays answer from the recorded answers,
   * so only changes written in format 1 (which replay with this hasher) need the same one.
   */
  readonly passwords?: PasswordHasher;
  readonly deleteTopic?: DeleteTopicOptions;
}

export interface CheckpointPolicy {
  /** Write a checkpoint after this many changes since the last one. Default 10 000. */
  readonly everyChanges?: number;
  /**
   * Or when replaying the changes since the last checkpoint would take longer than this many
   * milliseconds, or than writing the last checkpoint took (whichever is larger). Default 2000.
   */
  readonly replayBudgetMs?: number;
  /**
   * Write a checkpoint on `close()` when there are changes since the last one. Default true: a
   * store closed cleanly needs no replay, so an upgraded library never replays an older one's changes.
   */
  readonly onClose?: boolean;
}

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
  /** Passed to `createRealm` for the initial snapshot. */
  readonly realmOptions?: RealmOptions;
  /**
   * Errors nobody awaits: a subscriber that throws, a failed automatic checkpoint (the change itself
   * is persisted), a failed catch-up after a notification. Default: console.error.
   */
  readonly onBackgroundError?: (error: unknown) => void;
}

export interface ChangeNotice {
  /** The realm's version after the change. */
  readonly version: number;
  readonly events: readonly AddressedEvent[];
}

export type ChangeListener = (notice: ChangeNotice) => void;

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

const DEFAULT_EVERY = 10_000;
const DEFAULT_BUDGET_MS = 2000;

class Handle implements RealmHandle {
  private current!: RealmState;
  private ver = 0;
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;
  private readonly listeners = new Set<ChangeListener>();
  private readonly ops = new Map<string, DefinedOperation>();
  private readonly store: RealmStore;
  private stopWatching: (() => Promise<void>) | undefined;
  private catchUpQueued = false;
  // Checkpoint bookkeeping.
  private checkpointVersion = 0;
  private replayCostMs = 0;
  private lastCheckpointMs = 0;

  constructor(private readonly options: Omit<OpenRealmOptions, 'snapshot'>) {
    this.store = options.store;
    for (const op of options.operations ?? OPERATIONS) this.ops.set(op.def.name, op);
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
    this.checkpointVersion = this.ver;
    this.applyStored(stored.changes, false);
    if (this.store.watch) {
      this.stopWatching = await this.store.watch(() => this.scheduleCatchUp());
    }
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
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
    return this.enqueue(() =>
      this.execute({ kind: 'call', op: name, actor: plainActor(actor), params: normalized }),
    );
  }

  request(request: ApiRequest): Promise<HandleResult> {
    return this.enqueue(async () => {
      await this.catchUpNow();
      const actor = authenticate(this.current, headerOf(request.headers, 'authorization'));
      // Not authenticated: the wire layer answers the error without touching the realm.
      if ('code' in actor)
        return {
          ...handleApiRequest(this.current, request, this.opContext(this.clock(), undefined)),
          version: this.ver,
        };
      const input: ChangeInput = {
        kind: 'request',
        actor,
        method: request.method,
        url: request.url,
        ...(request.body === undefined
          ? {}
          : { body: typeof request.body === 'string' ? request.body : { ...request.body } }),
      };
      return this.execute(input, request);
    });
  }

  catchUp(): Promise<void> {
    return this.enqueue(() => this.catchUpNow());
  }

  checkpoint(): Promise<void> {
    return this.enqueue(() => this.writeCheckpoint());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.enqueue(async () => {
      const policy = this.options.checkpoints;
      if (policy !== false && policy?.onClose !== false) {
        try {
          await this.writeCheckpoint();
        } catch (error) {
          this.reportBackgroundError(error);
        }
      }
      this.closed = true;
      await this.stopWatching?.();
    });
    await this.store.close();
  }

  // --- internals ------------------------------------------------------------------------------

  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new RealmClosedError());
    const next = this.tail.then(() => {
      if (this.closed) throw new RealmClosedError();
      return task();
    });
    this.tail = next.catch(() => undefined);
    return next;
  }

  private scheduleCatchUp(): void {
    if (this.catchUpQueued || this.closed) return;
    this.catchUpQueued = true;
    this.enqueue(async () => {
      this.catchUpQueued = false;
      await this.catchUpNow();
    }).catch((error: unknown) => {
      if (!(error instanceof RealmClosedError)) this.reportBackgroundError(error);
    });
  }

  private clock(): number {
    const now = this.options.ctx?.now;
    if (typeof now === 'number') return now;
    if (typeof now === 'function') return now();
    return Math.floor(Date.now() / 1000);
  }

  private opContext(
    now: number,
    random: RandomSource | undefined,
    deleteTopic?: Change['deleteTopic'],
    passwords?: PasswordHasher,
  ): OpContext {
    const dt = deleteTopic
      ? { batchSize: deleteTopic.batchSize, maxBatches: deleteTopic.maxBatches ?? Number.POSITIVE_INFINITY }
      : this.options.ctx?.deleteTopic;
    return {
      now,
      random: random ?? this.options.ctx?.random ?? cryptoRandom,
      passwords: passwords ?? this.liveHasher(),
      ...(dt ? { deleteTopic: dt } : {}),
    };
  }

  private liveHasher(): PasswordHasher {
    return this.options.ctx?.passwords ?? defaultPasswordHasher;
  }

  private apply(state: RealmState, input: ChangeInput, ctx: OpContext, original?: ApiRequest): OpResult {
    if (input.kind === 'call') {
      const op = this.ops.get(input.op);
      if (!op) throw new Error(`unknown operation ${input.op}`);
      return op(state, input.actor, input.params, ctx);
    }
    let request: ApiRequest = original ?? {
      method: input.method,
      url: input.url,
      ...(input.body === undefined ? {} : { body: input.body }),
    };
    if (!original && 'userId' in input.actor) {
      // Present the credentials the actor had at this version (headers are never stored).
      const user = state.users.get(input.actor.userId);
      if (user)
        request = {
          ...request,
          headers: { authorization: basicAuthHeader(user.delivery_email, user.api_key) },
        };
    }
    return handleApiRequest(state, request, ctx);
  }

  private async execute(first: ChangeInput, original?: ApiRequest): Promise<HandleResult> {
    const maxRetries = this.options.maxRetries ?? 10;
    let input = first;
    for (let attempt = 0; ; attempt++) {
      if (input.kind === 'call' || attempt > 0) await this.catchUpNow();
      if (input.kind === 'request' && original && attempt > 0) {
        // The caught-up realm may authenticate differently (a key regenerated by another process).
        const actor = authenticate(this.current, headerOf(original.headers, 'authorization'));
        if ('code' in actor)
          return {
            ...handleApiRequest(this.current, original, this.opContext(this.clock(), undefined)),
            version: this.ver,
          };
        input = { ...input, actor };
      }
      const base = this.current;
      const version = this.ver;
      const now = this.clock();
      const source = this.options.ctx?.random ?? cryptoRandom;
      const random = new RecordingRandom(source);
      const passwords = new RecordingPasswordHasher(this.liveHasher(), source);
      const started = performance.now();
      const result = this.apply(base, input, this.opContext(now, random, undefined, passwords), original);
      const cost = performance.now() - started;
      if (result.state === base) return { ...result, version };

      const dt = this.options.ctx?.deleteTopic;
      const stored = redactInput(input);
      const calls = passwords.recorded();
      const change: Change = {
        version: version + 1,
        input: stored.input,
        now,
        random: random.recorded(),
        ...(dt
          ? { deleteTopic: { batchSize: dt.batchSize ?? 100, maxBatches: finiteOrNull(dt.maxBatches) } }
          : {}),
        ...(calls.length > 0 ? { passwords: calls } : {}),
        ...(stored.redacted ? { redacted: true as const } : {}),
        status: result.status,
      };
      const sealed = sealChange(change);
      try {
        if (stored.redacted) this.proveReplay(base, sealed, result.state);
        await this.store.append(sealed, version);
      } catch (error) {
        if (error instanceof VersionConflictError && attempt < maxRetries) continue;
        throw new PersistError(version + 1, { cause: error });
      }
      this.current = result.state;
      this.ver = version + 1;
      this.replayCostMs += cost;
      this.notify(this.ver, result.events);
      await this.maybeCheckpoint();
      return { ...result, version: this.ver };
    }
  }

  private async catchUpNow(): Promise<void> {
    const changes = await this.store.changesSince(this.ver);
    if (changes.length > 0) this.applyStored(changes, true);
  }

  /** Replays stored changes in order; any damage or divergence refuses the store (nothing half-applied). */
  private applyStored(changes: readonly SealedChange[], notify: boolean): void {
    let state = this.current;
    let version = this.ver;
    const notices: ChangeNotice[] = [];
    for (const sealed of changes) {
      const where = `${this.store.describe}, change ${sealed.version}`;
      if (sealed.version !== version + 1) {
        throw new CorruptStoreError(where, `expected change ${version + 1} next (a change is missing)`);
      }
      const change = openChange(sealed, where);
      const started = performance.now();
      const result = this.replay(state, change);
      this.replayCostMs += performance.now() - started;
      state = result.state;
      version = change.version;
      if (notify) notices.push({ version, events: result.events });
    }
    this.current = state;
    this.ver = version;
    for (const n of notices) this.notify(n.version, n.events);
  }

  /** Replays one stored change on `state`; a different outcome is a `ReplayMismatchError`. */
  private replay(state: RealmState, change: Change): OpResult {
    const random = new PlaybackRandom(change.random, change.version);
    const passwords = change.liveHasher
      ? undefined
      : new PlaybackPasswordHasher(change.passwords ?? [], change.version);
    const ctx = this.opContext(change.now, random, change.deleteTopic, passwords);
    const result = this.apply(state, change.input, ctx);
    if (result.status !== change.status) {
      throw new ReplayMismatchError(change.version, `status ${result.status}, recorded ${change.status}`);
    }
    if (result.state === state) throw new ReplayMismatchError(change.version, 'the replay changed nothing');
    if (!random.exhausted)
      throw new ReplayMismatchError(change.version, 'the replay used fewer random bytes than recorded');
    if (passwords && !passwords.exhausted)
      throw new ReplayMismatchError(
        change.version,
        'the replay made fewer password hasher calls than recorded',
      );
    return result;
  }

  /**
   * A change stored with its secrets redacted is replayed, from its sealed bytes, before it is
   * stored: it must pass every check a load makes and give the same users as the original run (the
   * password hash lives there). So a redacted change that would not load, e.g. because the
   * operation looked at the value it can no longer see, is refused (PersistError) instead of
   * acknowledged. It costs one more run of the operation, with the hasher answered from memory.
   */
  private proveReplay(base: RealmState, sealed: SealedChange, expected: RealmState): void {
    const change = openChange(sealed, `${this.store.describe}, change ${sealed.version} (before storing)`);
    const trial = this.replay(base, change).state;
    if (!sameUsers(base, trial, expected)) {
      throw new ReplayMismatchError(change.version, 'the replay with redacted secrets gave other users');
    }
  }

  private notify(version: number, events: readonly AddressedEvent[]): void {
    for (const listener of [...this.listeners]) {
      try {
        listener({ version, events });
      } catch (error) {
        this.reportBackgroundError(error);
      }
    }
  }

  private reportBackgroundError(error: unknown): void {
    if (this.options.onBackgroundError) this.options.onBackgroundError(error);
    else console.error('chat-realm: realm handle background error', error);
  }

  private async maybeCheckpoint(): Promise<void> {
    const policy = this.options.checkpoints;
    if (policy === false) return;
    const every = policy?.everyChanges ?? DEFAULT_EVERY;
    const budget = Math.max(policy?.replayBudgetMs ?? DEFAULT_BUDGET_MS, this.lastCheckpointMs);
    if (this.ver - this.checkpointVersion >= every || this.replayCostMs >= budget) {
      try {
        await this.writeCheckpoint();
      } catch (error) {
        // The change itself is persisted; a failed checkpoint only makes the next load slower.
        this.reportBackgroundError(error);
      }
    }
  }

  private async writeCheckpoint(): Promise<void> {
    if (this.ver === this.checkpointVersion) return;
    const started = performance.now();
    const version = this.ver;
    await this.store.writeCheckpoint(sealRealmCheckpoint(version, this.current));
    this.lastCheckpointMs = performance.now() - started;
    this.checkpointVersion = version;
    this.replayCostMs = 0;
  }
}

/** Whether two results of one base state hold the same user records (unchanged ones by identity). */
function sameUsers(base: RealmState, a: RealmState, b: RealmState): boolean {
  if (a.users === b.users) return true;
  if (a.users.size !== b.users.size) return false;
  for (const [id, user] of a.users) {
    const other = b.users.get(id);
    if (other === user) continue;
    if (other === undefined || user === base.users.get(id) || other === base.users.get(id)) return false;
    if (JSON.stringify(user) !== JSON.stringify(other)) return false;
  }
  return true;
}

function plainActor(actor: Actor): Actor {
  return 'anonymous' in actor ? { anonymous: true } : { userId: actor.userId };
}

function finiteOrNull(n: number | undefined): number | null {
  return n === undefined || !Number.isFinite(n) ? null : n;
}

function headerOf(headers: Readonly<Record<string, string>> | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
}
