/**
 * The host's presence rows: volatile memory, never in the change log (docs/ARCHITECTURE.md,
 * "Presence"). One small frozen object per user who pinged; the realm-wide sequence counts the
 * changes. Lost on restart by design: every client pings again within a minute, and presence
 * older than 140 s means offline anyway.
 */
import type { Effect } from '../core/effects';
import type { PresenceRow, PresenceView } from '../core/presence/presence';

export class PresenceTable implements PresenceView {
  private readonly rows = new Map<number, PresenceRow>();
  private sequence: number;

  /**
   * `startId`: the sequence value before the first update. `withEventQueues` starts it at the
   * clock's milliseconds, so ids after a restart are above every id handed out before it (a
   * process would need more than one presence change per millisecond over its whole life to
   * catch up with the clock): a client polling with an old `last_update_id` still gets every row.
   */
  constructor(startId = 0) {
    this.sequence = startId;
  }

  get lastUpdateId(): number {
    return this.sequence;
  }

  get size(): number {
    return this.rows.size;
  }

  get(userId: number): PresenceRow | undefined {
    return this.rows.get(userId);
  }

  values(): Iterable<PresenceRow> {
    return this.rows.values();
  }

  /** Stores the `update_presence` effects of one result (others are not the table's). */
  apply(effects: readonly Effect[]): void {
    for (const e of effects) {
      if (e.type !== 'update_presence') continue;
      this.rows.set(e.row.user_id, e.row);
      if (e.row.last_update_id > this.sequence) this.sequence = e.row.last_update_id;
    }
  }
}
