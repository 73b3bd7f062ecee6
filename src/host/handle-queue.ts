/**
 * The handle's work queue: operations, catch-ups and checkpoints run one at a time, in the order
 * they were asked for, because each one starts from the realm the previous one left. A failed
 * task does not stop the queue; once closed, queued and new tasks reject with `RealmClosedError`.
 */
import { RealmClosedError } from './errors';

export class TaskQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private isClosed = false;

  get closed(): boolean {
    return this.isClosed;
  }

  /** Refuses every task not yet started; call it from the last task. */
  close(): void {
    this.isClosed = true;
  }

  enqueue<T>(task: () => Promise<T>): Promise<T> {
    if (this.isClosed) return Promise.reject(new RealmClosedError());
    const next = this.tail.then(() => {
      if (this.isClosed) throw new RealmClosedError();
      return task();
    });
    this.tail = next.catch(() => undefined);
    return next;
  }
}
