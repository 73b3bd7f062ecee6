/**
 * Group commit: how requests are gathered into batches. A request joins the open batch, which is
 * a task on the handle's queue; when that task starts it closes the batch (after one turn of the
 * event loop, so requests that arrived meanwhile join it too), and later requests open the next
 * one. So while one batch is being committed, the next one fills up, and is run and persisted as
 * a whole when its turn comes: one transaction (one fsync) for all of its changes.
 *
 * With a store whose appends cost no wait (`hurry`: the memory store) the turn is skipped while
 * requests come alone: when they come one client at a time, waiting a turn per batch only adds an
 * event-loop iteration to every request. A batch waits when the one before it held more than one
 * request (they are coming together), when it grows during its turn, or when more than one batch
 * was opened in this turn of the event loop or the one before: a batch that skips its turn is run,
 * committed and answered in microtasks, before the next connection's request of the same turn is
 * even read, so requests that arrive together would otherwise each go alone, a batch (and a
 * commit, and an answer) each, and never show as a batch of more than one. One batch in
 * `SAMPLE_EVERY` waits anyway, to notice when others start joining. "Held more than one" and not
 * only "grew during its turn": with fair scheduling a user's requests beyond what it may have in
 * the realm wait in the user's queue, not in this batch, and go in together as the next batch
 * (answered together) only because this batch waited for them to arrive; skipping the turn would
 * let them in one by one, a batch and an answer each.
 */
import type { ApiRequest } from '../wire/handle';
import type { ChangeInput } from './change';
import type { TaskQueue } from './handle-queue';

/** A request waiting in a batch, with how to answer its caller. */
export interface BatchEntry<R> {
  /** A library call (already normalized) or a wire request (authenticated when it runs). */
  readonly work:
    | { readonly kind: 'input'; readonly input: ChangeInput }
    | { readonly kind: 'request'; readonly request: ApiRequest };
  readonly resolve: (result: R) => void;
  readonly reject: (error: unknown) => void;
}

/** Lets pending I/O callbacks and promise continuations run (and join the batch) first. */
const nextTurn: () => Promise<void> =
  typeof setImmediate === 'function'
    ? () => new Promise((resolve) => setImmediate(resolve))
    : () => new Promise((resolve) => setTimeout(resolve, 0));

/** How often a batch waits a turn anyway while the turns bring nothing (`hurry`). */
const SAMPLE_EVERY = 64;

export class Batches<R> {
  private open: BatchEntry<R>[] | undefined;
  /** Whether the last batch held one request and its turn, if waited for, brought none (`hurry`); batches since a turn. */
  private turnIdle = false;
  private sinceSample = 0;
  /** Batches opened in this turn of the event loop, and in the last turn that opened any (`hurry`). */
  private openedThisTurn = 0;
  private openedLastTurn = 0;

  constructor(
    private readonly queue: TaskQueue,
    /** Most requests in one batch; 1 turns group commit off (one transaction per change). */
    private readonly maxBatch: number,
    private readonly commit: (entries: readonly BatchEntry<R>[]) => Promise<void>,
    /** Skip the turn while it brings nothing (a store whose appends cost no wait). */
    private readonly hurry = false,
  ) {}

  /** Whether a batch is waiting for its turn (it catches up with other writers when it starts). */
  get waiting(): boolean {
    return this.open !== undefined;
  }

  add(work: BatchEntry<R>['work']): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      let batch = this.open;
      if (batch === undefined || batch.length >= this.maxBatch) batch = this.start();
      batch.push({ work, resolve, reject });
    });
  }

  /**
   * Takes up to `max` of the requests waiting in the batch that is filling, for the batch being
   * committed (which has waited for a lock meanwhile): they arrived after all of its requests, so
   * they join at its end, and per-caller order holds. The filling batch stays queued, with
   * whatever is left or arrives later.
   */
  steal(max: number): BatchEntry<R>[] {
    if (this.open === undefined || max <= 0) return [];
    return this.open.splice(0, max);
  }

  /** Requests added from now on go into a new batch, after whatever is queued next. */
  cut(): void {
    this.open = undefined;
  }

  /** The turn in which batches were opened is over (`hurry`). */
  private turnEnded(): void {
    this.openedLastTurn = this.openedThisTurn;
    this.openedThisTurn = 0;
  }

  /** Lets requests that arrive in the next turn join `batch` (see the top of this file). */
  private async gather(batch: readonly BatchEntry<R>[]): Promise<void> {
    if (
      this.hurry &&
      this.turnIdle &&
      this.openedThisTurn <= 1 &&
      this.openedLastTurn <= 1 &&
      ++this.sinceSample < SAMPLE_EVERY
    ) {
      this.turnIdle = batch.length <= 1;
      return;
    }
    this.sinceSample = 0;
    const before = batch.length;
    await nextTurn();
    this.turnIdle = batch.length === before && before <= 1;
  }

  private start(): BatchEntry<R>[] {
    const batch: BatchEntry<R>[] = [];
    this.open = batch;
    if (this.hurry && this.openedThisTurn++ === 0) void nextTurn().then(() => this.turnEnded());
    this.queue
      .enqueue(async () => {
        if (this.maxBatch > 1) await this.gather(batch);
        if (this.open === batch) this.open = undefined;
        await this.commit(batch);
      })
      // The queue refused the task (closed) or `commit` failed as a whole: nobody was answered.
      // (Rejecting an entry that was already answered does nothing.)
      .catch((error: unknown) => {
        if (this.open === batch) this.open = undefined;
        for (const entry of batch) entry.reject(error);
      });
    return batch;
  }
}
