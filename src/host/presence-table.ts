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
  /** Rows in update order (ascending `last_update_id`); superseded entries are compacted away. */
  private log: PresenceRow[] = [];

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

  /** The rows changed after `id`, from the update log (binary search, then the newer entries). */
  *valuesSince(id: number): Iterable<PresenceRow> {
    const log = this.log;
    let lo = 0;
    let hi = log.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (log[mid]!.last_update_id <= id) lo = mid + 1;
      else hi = mid;
    }
    // An entry is current only while its user's row is still that object.
    for (let i = lo; i < log.length; i++) if (this.rows.get(log[i]!.user_id) === log[i]) yield log[i]!;
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
      const last = this.log[this.log.length - 1];
      if (last === undefined || e.row.last_update_id > last.last_update_id) this.log.push(e.row);
      else this.log = [...this.rows.values()].sort((a, b) => a.last_update_id - b.last_update_id);
      if (this.log.length > 2 * this.rows.size + 64)
        this.log = this.log.filter((r) => this.rows.get(r.user_id) === r);
    }
  }
}
