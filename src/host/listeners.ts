/** Change subscribers: each gets every persisted change's events, in version order. */
import type { AddressedEvent } from '../core/events';

export interface ChangeNotice {
  /** The realm's version after the change. */
  readonly version: number;
  readonly events: readonly AddressedEvent[];
  /**
   * Set when the handle skipped changes whose events nobody will hear: it fell behind another
   * process's pruning and caught up from a later checkpoint (`events` is then empty). Versions
   * `from` through `to` happened without their events; a listener keeping clients in step must
   * make them start over (event-queue hosts drop their queues: clients re-register).
   */
  readonly missed?: { readonly from: number; readonly to: number };
}

export type ChangeListener = (notice: ChangeNotice) => void;

export class Listeners {
  private readonly listeners = new Set<ChangeListener>();

  /** `report` gets what a listener throws: the change is persisted, so nobody else could. */
  constructor(private readonly report: (error: unknown) => void) {}

  add(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  notify(version: number, events: readonly AddressedEvent[], missed?: ChangeNotice['missed']): void {
    const notice: ChangeNotice = missed === undefined ? { version, events } : { version, events, missed };
    // A copy: a listener may unsubscribe (itself or another) while being told.
    for (const listener of [...this.listeners]) {
      try {
        listener(notice);
      } catch (error) {
        this.report(error);
      }
    }
  }
}
