/**
 * POST /messages/flags (flags by id) and the mark-as-read family (POST /mark_all_as_read,
 * /mark_stream_as_read) on a simulated organization, beside the narrow benchmark: chat-realm
 * through the library API against a floor — the irreducible typed-array work over the same rows
 * (binary search each id's row chunk, copy each touched 2048-row chunk once, flip the bit, collect
 * the changed ids; for mark-all, one pass over every row). The ratio is the candidate's overhead:
 * parameter parsing, the per-id access checks, the event and `message_details`.
 *
 *   node --import tsx bench/flags-narrow/by-id.ts [small|medium|large]
 */
import os from 'node:os';
import { FLAG_BITS } from '../../src/core/messages/flags';
import type { RowChunk, UserRows } from '../../src/core/messages/rows';
import type { RealmState } from '../../src/core/state';
import { markAllAsRead } from '../../src/ops/messages/markAllAsRead';
import { markStreamAsRead } from '../../src/ops/messages/markStreamAsRead';
import { updateMessageFlags } from '../../src/ops/messages/updateMessageFlags';
import { HEAVY_USER_ID, simulateRealm } from '../../src/simulate/simulate';
import { compare } from './timing';

type Preset = 'small' | 'medium' | 'large';
const preset = (process.argv[2] ?? 'medium') as Preset;
const log = (s: string) => process.stdout.write(`${s}\n`);

/** The floor for a list of ids (ascending): flip `bit` on the rows held, copy-on-write. */
function floorByIds(
  rows: UserRows,
  ids: Int32Array,
  bit: number,
  add: boolean,
): { rows: UserRows; changed: number[] } {
  const chunks = rows.chunks.slice() as RowChunk[];
  const copied = new Uint8Array(chunks.length);
  const changed = new Array<number>(ids.length);
  let n = 0;
  let ci = 0;
  let last = 0;
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k]!;
    // Ids ascend: the chunk index only moves forward.
    while (ci + 1 < chunks.length && chunks[ci + 1]!.ids[0]! <= id) {
      ci++;
      last = 0;
    }
    const c = chunks[ci]!;
    // Within the chunk, search only from the previous hit onwards.
    let lo = k > 0 && ids[k - 1]! >= c.ids[0]! ? last : 0;
    let hi = c.ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (c.ids[mid]! < id) lo = mid + 1;
      else hi = mid;
    }
    last = lo;
    if (c.ids[lo] !== id) continue;
    const f = c.flags[lo]!;
    const next = add ? f | bit : f & ~bit;
    if (next === f) continue;
    if (copied[ci] === 0) {
      copied[ci] = 1;
      chunks[ci] = { ids: c.ids, flags: c.flags.slice() };
    }
    chunks[ci]!.flags[lo] = next;
    changed[n++] = id;
  }
  changed.length = n;
  return { rows: { chunks, count: rows.count }, changed };
}

/** The floor for mark-all: every unread row set read, each touched chunk copied once. */
function floorAll(rows: UserRows): number[] {
  const out: number[] = [];
  const chunks = rows.chunks.slice() as RowChunk[];
  for (let ci = 0; ci < chunks.length; ci++) {
    const c = chunks[ci]!;
    let copy: Uint16Array | null = null;
    for (let i = 0; i < c.flags.length; i++) {
      if ((c.flags[i]! & FLAG_BITS.read) !== 0) continue;
      copy ??= c.flags.slice();
      copy[i] = c.flags[i]! | FLAG_BITS.read;
      out.push(c.ids[i]!);
    }
    if (copy !== null) chunks[ci] = { ids: c.ids, flags: copy };
  }
  return out;
}

/** Every `step`-th row id of the user (held rows, ascending), up to `n`. */
function sampleRowIds(rows: UserRows, n: number, step: number): number[] {
  const out: number[] = [];
  let k = 0;
  for (const c of rows.chunks)
    for (let i = 0; i < c.ids.length; i++) if (k++ % step === 0 && out.length < n) out.push(c.ids[i]!);
  return out;
}

/** The channel holding the most of the user's rows. */
function busiestChannel(state: RealmState): number {
  let best = 0;
  let bestCount = -1;
  for (const [id, list] of state.messages.byChannel.entries())
    if (list.count > bestCount) [best, bestCount] = [id, list.count];
  return best;
}

const t0 = performance.now();
const state = simulateRealm({ preset, seed: 1 });
const rows = state.messages.rows.get(HEAVY_USER_ID)!;
log(
  `# flags by id and mark-as-read (${preset}: ${rows.count} rows for user ${HEAVY_USER_ID}; built in ${((performance.now() - t0) / 1000).toFixed(1)} s)`,
);
log(
  `load average ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}, ${os.cpus().length} cores, node ${process.version}`,
);
log('');
log('| request | ids changed | chat-realm ms | floor ms | ratio |');
log('|---|---:|---:|---:|---:|');

const me = { userId: HEAVY_USER_ID };
const readState = markAllAsRead(state, me).state;
const cases: Array<{ name: string; ours: () => number; floor: () => number }> = [];
for (const [n, flag, op] of [
  [100, 'starred', 'add'],
  [1000, 'starred', 'add'],
  [5000, 'read', 'add'],
  [1000, 'read', 'remove'],
] as const) {
  const ids = sampleRowIds(rows, n, 7);
  const typed = Int32Array.from(ids);
  const bit = FLAG_BITS[flag];
  // Marking unread needs read rows: the heavy user reads nothing, so start from everything read.
  const base = op === 'remove' ? readState : state;
  const baseRows = base.messages.rows.get(HEAVY_USER_ID)!;
  cases.push({
    name: `POST /messages/flags ${op} ${flag}, ${ids.length} ids`,
    ours: () => {
      const r = updateMessageFlags(base, me, { messages: ids, op, flag });
      if (r.status !== 200) throw new Error(JSON.stringify(r.body));
      return (r.events[0]!.event as unknown as { messages: number[] }).messages.length;
    },
    floor: () => floorByIds(baseRows, typed, bit, op === 'add').changed.length,
  });
}
const channel = busiestChannel(state);
const channelIds = Int32Array.from(state.messages.byChannel.get(channel)!.chunks.flatMap((c) => [...c]));
cases.push({
  name: `POST /mark_stream_as_read (channel ${channel}, ${channelIds.length} messages)`,
  ours: () => {
    const r = markStreamAsRead(state, me, { stream_id: channel });
    if (r.status !== 200) throw new Error(JSON.stringify(r.body));
    return r.events.length === 0
      ? 0
      : (r.events[0]!.event as unknown as { messages: number[] }).messages.length;
  },
  // The floor walks the channel's ids against the rows, flipping the unread ones.
  floor: () => floorByIds(rows, channelIds, FLAG_BITS.read, true).changed.length,
});
cases.push({
  name: `POST /mark_all_as_read (${rows.count} rows)`,
  ours: () => {
    const r = markAllAsRead(state, me);
    if (r.status !== 200) throw new Error(JSON.stringify(r.body));
    return 1;
  },
  floor: () => floorAll(rows).length,
});

for (const c of cases) {
  const changed = c.ours();
  const [ours, floor] = compare([c.ours, c.floor], { batch: 5, rounds: 15, minWarm: 20 });
  log(
    `| ${c.name} | ${changed} | ${ours!.ms.toFixed(3)} | ${floor!.ms.toFixed(3)} | ${(ours!.ms / floor!.ms).toFixed(1)}× |`,
  );
}
log('');
log(
  `load average after ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
