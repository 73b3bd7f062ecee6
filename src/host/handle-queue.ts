/**
 * The handle's work queue: operations, catch-ups and checkpoints run one at a time, in the order
 * they were asked for, because each one starts from the realm the previous one left. A failed
 * task does not stop the queue; once closed, queued and new tasks reject with `RealmClosedError`.
 */
import { RealmClosedError } from './errors';

export class TaskQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private isClosed = false;
  /** Tasks enqueued and not yet settled. */
  private pending = 0;

  get closed(): boolean {
    return this.isClosed;
  }

  /** Whether no task is queued or running. */
  get idle(): boolean {
    return this.pending === 0;
  }

  /** Refuses every task not yet started; call it from the last task. */
  close(): void {
    this.isClosed = true;
  }

  enqueue<T>(task: () => Promise<T>): Promise<T> {
    if (this.isClosed) return Promise.reject(new RealmClosedError());
    this.pending++;
    const next = this.tail.then(() => {
      if (this.isClosed) throw new RealmClosedError();
      return task();
    });
    this.tail = next.then(
      () => void this.pending--,
      () => void this.pending--,
    );
    return next;
  }
}
