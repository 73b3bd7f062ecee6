/**
 * The in-process baselines, loaded with the same simulated data:
 * - `FlatUser` (the floor): one user's rows as flat typed arrays with the message columns the
 *   narrow needs copied alongside each row, mutated in place by a raw loop doing only the bit tests
 *   and bit sets — no immutability, no access rules, no parameters, no event.
 * - `PlainRealm`: the straightforward JavaScript implementation over arrays of objects (a message
 *   map and each user's sorted array of `{message_id, flags}`), mutated in place.
 */
import type { RealmState } from '../../src/core/state';
import { locateMessage } from '../../src/core/messages/store';
import type { Filter, Outcome, Scenario } from './scenarios';

const READ = 1;
const IS_PRIVATE = 256;

function bitOf(flag: Scenario['flag']): number {
  return flag === 'read' ? 1 : flag === 'starred' ? 2 : 4;
}

export class FlatUser {
  readonly ids: Int32Array;
  readonly flags: Uint16Array;
  readonly recipient: Int32Array;
  readonly topic: Int32Array;
  readonly sender: Int32Array;
  private readonly out = new Int32Array(5000);

  constructor(state: RealmState, userId: number) {
    const rows = state.messages.rows.get(userId)!;
    const n = rows.count;
    this.ids = new Int32Array(n);
    this.flags = new Uint16Array(n);
    this.recipient = new Int32Array(n);
    this.topic = new Int32Array(n);
    this.sender = new Int32Array(n);
    let k = 0;
    for (const c of rows.chunks) {
      for (let i = 0; i < c.ids.length; i++, k++) {
        const at = locateMessage(state.messages, c.ids[i]!)!;
        this.ids[k] = c.ids[i]!;
        this.flags[k] = c.flags[i]!;
        this.recipient[k] = at.chunk.recipient[at.index]!;
        this.topic[k] = at.chunk.topicKey[at.index]!;
        this.sender[k] = at.chunk.sender[at.index]!;
      }
    }
  }

  /** Ids changed by the last `window` call are `out[0..changed)`. */
  changed = 0;

  /** Oldest-anchored (or after-an-id) window of `limit` rows; sets/clears `bit`; returns the rows processed. */
  window(f: Filter, afterId: number, limit: number, bit: number, add: boolean): number {
    const { ids, flags, recipient, topic, sender, out } = this;
    const n = ids.length;
    // Binary search the start.
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ids[mid]! <= afterId) lo = mid + 1;
      else hi = mid;
    }
    const needUnread = f.unread ? READ : 0;
    const needDm = f.dm ? IS_PRIVATE : 0;
    const ch = f.channel;
    const tk = f.topicKey;
    const se = f.sender;
    let found = 0;
    let changed = 0;
    let last = afterId;
    for (let i = lo; i < n && found < limit; i++) {
      const fl = flags[i]!;
      if ((fl & needUnread) !== 0 || (fl & needDm) !== needDm) continue;
      if (ch >= 0 && recipient[i] !== ch) continue;
      if (tk >= 0 && topic[i] !== tk) continue;
      if (se >= 0 && sender[i] !== se) continue;
      found++;
      last = ids[i]!;
      const next = add ? fl | bit : fl & ~bit;
      if (next !== fl) {
        flags[i] = next;
        out[changed++] = ids[i]!;
      }
    }
    this.changed = changed;
    this.last = last;
    return found;
  }

  /** The last id processed by the last `window` call. */
  last = 0;

  run(s: Scenario): Outcome {
    const count = this.window(
      s.filter,
      typeof s.anchor === 'number' ? s.anchor : 0,
      s.numAfter,
      bitOf(s.flag),
      s.op === 'add',
    );
    return { processed: new Array<number>(count), updated: Array.from(this.out.subarray(0, this.changed)) };
  }

  snapshotFlags(): Uint16Array {
    return this.flags.slice();
  }

  restoreFlags(saved: Uint16Array): void {
    this.flags.set(saved);
  }
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
