/**
 * When the handle writes checkpoints. A checkpoint bounds what the next load replays: by count of
 * changes, and by the time replaying them would take (measured as they ran or were replayed).
 * Checkpoints are written one at a time, outside the handle's queue (`checkpointStream`).
 */
import type { RealmState } from '../core/state';
import { checkpointStream } from './checkpoint';
import type { CheckpointStream, RealmStore } from './store';

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
  /**
   * Also wait until the changes since the last checkpoint hold at least this share of its size
   * (their JSON text against its bytes; 0.25: a quarter). For a store that keeps everything in
   * memory (`serve --memory`), where a checkpoint bounds only the change log's memory: the log
   * stays within that share of a checkpoint, and encoding checkpoints costs a constant per byte
   * of change instead of growing with the realm (every 10,000 changes, a realm of 500,000 messages
   * is re-encoded for every 10,000 new ones). A load may then replay more than `everyChanges`.
   * Default 0: by count and time alone.
   */
  readonly minLogShare?: number;
}

const DEFAULT_EVERY = 10_000;
const DEFAULT_BUDGET_MS = 2000;

/** The bookkeeping behind a policy (`false`: only checkpoints written on request). */
export class CheckpointSchedule {
  private checkpointVersion = 0;
  private replayCostMs = 0;
  private lastCheckpointMs = 0;
  /** JSON text of the changes since the last checkpoint (`minLogShare`). */
  private logChars = 0;
  /** Bytes of the last checkpoint written (0: none yet, or loaded). */
  private checkpointBytes = 0;

  constructor(private readonly policy: CheckpointPolicy | false | undefined) {}

  /** The store was loaded from the checkpoint of `version`. */
  loaded(version: number): void {
    this.checkpointVersion = version;
  }

  /** A change since the last checkpoint ran or was replayed in `ms`; `chars`: its JSON text's length. */
  spent(ms: number, chars = 0): void {
    this.replayCostMs += ms;
    this.logChars += chars;
  }

  /** Whether the log since the last checkpoint holds `times` × `minLogShare` of its size. */
  private logShareReached(times: number): boolean {
    const share = this.policy === false ? 0 : (this.policy?.minLogShare ?? 0);
    return this.logChars >= times * share * this.checkpointBytes;
  }

  get onClose(): boolean {
    return this.policy !== false && this.policy?.onClose !== false;
  }

  /** Whether the policy wants a checkpoint at `version`. */
  due(version: number): boolean {
    const policy = this.policy;
    if (policy === false) return false;
    const every = policy?.everyChanges ?? DEFAULT_EVERY;
    const budget = Math.max(policy?.replayBudgetMs ?? DEFAULT_BUDGET_MS, this.lastCheckpointMs);
    return (
      (version - this.checkpointVersion >= every || this.replayCostMs >= budget) && this.logShareReached(1)
    );
  }

  /**
   * Whether the changes since the last written checkpoint reached twice the policy's count: the
   * background checkpoint is not keeping up (a caller that never yields to the event loop), and
   * the handle waits for it rather than let the log to replay grow without bound.
   */
  overdue(version: number): boolean {
    const policy = this.policy;
    if (policy === false) return false;
    return (
      version - this.checkpointVersion >= 2 * (policy?.everyChanges ?? DEFAULT_EVERY) &&
      this.logShareReached(2)
    );
  }

  /**
   * Writes `state` as the checkpoint of `version` (`chain`: the log's chain value there), unless
   * it is not newer than the last one written. Changes may run meanwhile: their cost stays counted.
   */
  async write(store: RealmStore, version: number, state: RealmState, chain: number): Promise<void> {
    if (version <= this.checkpointVersion) return;
    const started = performance.now();
    const costBefore = this.replayCostMs;
    const charsBefore = this.logChars;
    const counted = countingStream(checkpointStream(version, state, chain));
    await store.writeCheckpoint(counted.stream);
    // Writing a big realm is slow; replaying for less time than that is not worth a checkpoint.
    this.lastCheckpointMs = performance.now() - started;
    this.checkpointVersion = version;
    this.replayCostMs = Math.max(0, this.replayCostMs - costBefore);
    this.logChars = Math.max(0, this.logChars - charsBefore);
    this.checkpointBytes = counted.bytes();
  }
}

/** The same stream, counting the bytes the store read from it. */
function countingStream(stream: CheckpointStream): { stream: CheckpointStream; bytes: () => number } {
  let bytes = 0;
  async function* parts(): AsyncGenerator<Uint8Array> {
    for await (const part of stream.parts) {
      bytes += part.byteLength;
      yield part;
    }
  }
  const recycle = stream.recycle;
  return {
    stream: {
      version: stream.version,
      format: stream.format,
      parts: parts(),
      checksum: () => stream.checksum(),
      ...(recycle === undefined ? {} : { recycle: (part: Uint8Array) => recycle.call(stream, part) }),
    },
    bytes: () => bytes,
  };
}
