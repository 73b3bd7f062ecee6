/**
 * The in-process baseline (b), loaded with the same simulated data (the floors are in floors.ts):
 * - `PlainRealm`: the straightforward JavaScript implementation over arrays of objects (a message
 *   map and each user's sorted array of `{message_id, flags}`), mutated in place.
 */
import type { RealmState } from '../../src/core/state';
import type { Outcome, Scenario } from './scenarios';

const READ = 1;
const IS_PRIVATE = 256;

function bitOf(flag: Scenario['flag']): number {
  return flag === 'read' ? 1 : flag === 'starred' ? 2 : 4;
}

interface PlainMessage {
  id: number;
  stream_id: number | null;
  topic: string;
  sender_id: number;
  has_link: boolean;
}
interface PlainRow {
  message_id: number;
  flags: number;
}

export class PlainRealm {
  readonly messages = new Map<number, PlainMessage>();
  readonly rows = new Map<number, PlainRow[]>();

  constructor(state: RealmState, userIds: readonly number[]) {
    const store = state.messages;
    for (const c of store.chunks) {
      for (let i = 0; i < c.ids.length; i++) {
        const r = c.recipient[i]!;
        this.messages.set(c.ids[i]!, {
          id: c.ids[i]!,
          stream_id: r > 0 ? r : null,
          topic: r > 0 ? store.topics.names.get(c.topic[i]!)! : '',
          sender_id: c.sender[i]!,
          has_link: (c.bits[i]! & 1) !== 0,
        });
      }
    }
    for (const u of userIds) {
      const list: PlainRow[] = [];
      for (const c of store.rows.get(u)!.chunks)
        for (let i = 0; i < c.ids.length; i++) list.push({ message_id: c.ids[i]!, flags: c.flags[i]! });
      this.rows.set(u, list);
    }
  }

  run(s: Scenario, afterId = typeof s.anchor === 'number' ? s.anchor : 0): Outcome {
    const rows = this.rows.get(s.userId)!;
    const f = s.filter;
    const topic = f.topic?.toLowerCase() ?? null;
    const start = rows.findIndex((r) => r.message_id > afterId);
    const selected: PlainRow[] = [];
    for (let i = start < 0 ? rows.length : start; i < rows.length && selected.length < s.numAfter; i++) {
      const row = rows[i]!;
      const m = this.messages.get(row.message_id)!;
      if (f.unread && (row.flags & READ) !== 0) continue;
      if (f.dm && (row.flags & IS_PRIVATE) === 0) continue;
      if (f.channel >= 0 && m.stream_id !== f.channel) continue;
      if (topic !== null && (m.stream_id === null || m.topic.toLowerCase() !== topic)) continue;
      if (f.sender >= 0 && m.sender_id !== f.sender) continue;
      selected.push(row);
    }
    const bit = bitOf(s.flag);
    const add = s.op === 'add';
    const updated: number[] = [];
    for (const row of selected) {
      const next = add ? row.flags | bit : row.flags & ~bit;
      if (next !== row.flags) {
        row.flags = next;
        updated.push(row.message_id);
      }
    }
    return { processed: selected.map((r) => r.message_id), updated };
  }

  snapshotFlags(userId: number): number[] {
    return this.rows.get(userId)!.map((r) => r.flags);
  }

  restoreFlags(userId: number, saved: readonly number[]): void {
    this.rows.get(userId)!.forEach((r, i) => (r.flags = saved[i]!));
  }
}
