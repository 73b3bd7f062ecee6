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
  private sequence = 0;

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
