/** Change subscribers: each gets every persisted change's events, in version order. */
import type { AddressedEvent } from '../core/events';

export interface ChangeNotice {
  /** The realm's version after the change. */
  readonly version: number;
  readonly events: readonly AddressedEvent[];
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

  notify(version: number, events: readonly AddressedEvent[]): void {
    // A copy: a listener may unsubscribe (itself or another) while being told.
    for (const listener of [...this.listeners]) {
      try {
        listener({ version, events });
      } catch (error) {
        this.report(error);
      }
    }
  }
}
