/**
 * When the handle writes checkpoints. A checkpoint bounds what the next load replays: by count of
 * changes, and by the time replaying them would take (measured as they ran or were replayed).
 * Checkpoints are written one at a time, outside the handle's queue (`checkpointStream`).
 */
import type { RealmState } from '../core/state';
import { checkpointStream } from './checkpoint';
import type { RealmStore } from './store';

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

const DEFAULT_EVERY = 10_000;
const DEFAULT_BUDGET_MS = 2000;

/** The bookkeeping behind a policy (`false`: only checkpoints written on request). */
export class CheckpointSchedule {
  private checkpointVersion = 0;
  private replayCostMs = 0;
  private lastCheckpointMs = 0;

  constructor(private readonly policy: CheckpointPolicy | false | undefined) {}

  /** The store was loaded from the checkpoint of `version`. */
  loaded(version: number): void {
    this.checkpointVersion = version;
  }

  /** A change since the last checkpoint ran or was replayed in `ms`. */
  spent(ms: number): void {
    this.replayCostMs += ms;
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
    return version - this.checkpointVersion >= every || this.replayCostMs >= budget;
  }

  /**
   * Whether the changes since the last written checkpoint reached twice the policy's count: the
   * background checkpoint is not keeping up (a caller that never yields to the event loop), and
   * the handle waits for it rather than let the log to replay grow without bound.
   */
  overdue(version: number): boolean {
    const policy = this.policy;
    if (policy === false) return false;
    return version - this.checkpointVersion >= 2 * (policy?.everyChanges ?? DEFAULT_EVERY);
  }

  /**
   * Writes `state` as the checkpoint of `version` (`chain`: the log's chain value there), unless
   * it is not newer than the last one written. Changes may run meanwhile: their cost stays counted.
   */
  async write(store: RealmStore, version: number, state: RealmState, chain: number): Promise<void> {
    if (version <= this.checkpointVersion) return;
    const started = performance.now();
    const costBefore = this.replayCostMs;
    await store.writeCheckpoint(checkpointStream(version, state, chain));
    // Writing a big realm is slow; replaying for less time than that is not worth a checkpoint.
    this.lastCheckpointMs = performance.now() - started;
    this.checkpointVersion = version;
    this.replayCostMs = Math.max(0, this.replayCostMs - costBefore);
  }
}
