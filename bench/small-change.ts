/**
 * The cost of a one-field change as the organization grows 100×: ours (persistent maps, chunked
 * message store) against a baseline that keeps the same records in plain objects changed with immer.
 * Also times createRealm on the snapshot path.
 */
import { produce } from 'immer';
import { createRealm } from '../src/core/snapshot/create';
import { edit, editRecord } from '../src/core/result';
import { putUser } from '../src/core/state-edit';
import type { RealmState } from '../src/core/state';
import type { User } from '../src/core/model/records';
import { generateSnapshot } from './generate-snapshot';

export interface SmallChangeRow {
  scale: string;
  users: number;
  messages: number;
  createMs: number;
  oursUs: number;
  baselineUs: number;
}

function timeUs(fn: () => void, reps: number): number {
  for (let i = 0; i < 20; i++) fn();
  const t0 = performance.now();
  for (let i = 0; i < reps; i++) fn();
  return ((performance.now() - t0) / reps) * 1000;
}

export function measureSmallChange(
  scales: Array<{ name: string; k: number }> = [
    { name: 'small', k: 1 },
    { name: 'large (100×)', k: 100 },
  ],
): SmallChangeRow[] {
  const rows: SmallChangeRow[] = [];
  for (const { name, k } of scales) {
    const snapshot = generateSnapshot(100 * k, 10 * k, 10_000 * k, 30);
    const t0 = performance.now();
    const state: RealmState = createRealm(snapshot);
    const createMs = performance.now() - t0;
    const target = state.users.get(7)!;
    let flip = false;
    const ours = timeUs(() => {
      flip = !flip;
      const next = edit(state, (d) =>
        putUser(
          d,
          editRecord(target, (u) => void (u.full_name = flip ? 'A' : 'B')),
        ),
      );
      if (next.messages !== state.messages) throw new Error('the message store was copied');
    }, 2000);
    // Baseline: the same users as a plain object keyed by id, changed with immer.
    const plain = {
      users: Object.fromEntries([...state.users.values()].map((u) => [u.user_id, u])) as Record<number, User>,
    };
    const baseline = timeUs(() => {
      flip = !flip;
      produce(plain, (d) => void (d.users[7]!.full_name = flip ? 'A' : 'B'));
    }, 200);
    rows.push({
      scale: name,
      users: state.users.size,
      messages: state.messages.count,
      createMs,
      oursUs: ours,
      baselineUs: baseline,
    });
  }
  return rows;
}

/** The rows as the README section, with the ratios against the plain-object baseline. */
export function smallChangeMarkdown(rows: readonly SmallChangeRow[]): string {
  const [a, b] = rows;
  const lines = [
    '## A one-field change as the organization grows 100×',
    '',
    'Renaming one user (one immer edit through `putUser`) on a realm built by `createRealm` from a generated snapshot,',
    'against a baseline that keeps the same users in a plain object changed with immer (same process, same run).',
    '',
    '| realm | users | messages | createRealm (ms) | chat-realm change (µs) | plain-object baseline (µs) | baseline ÷ ours |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.scale} | ${r.users} | ${r.messages} | ${r.createMs.toFixed(0)} | ${r.oursUs.toFixed(1)} | ${r.baselineUs.toFixed(1)} | ${(r.baselineUs / r.oursUs).toFixed(1)}× |`,
    ),
  ];
  if (a && b) {
    lines.push(
      '',
      `Growth large ÷ small: chat-realm ${(b.oursUs / a.oursUs).toFixed(2)}×, plain-object baseline ${(b.baselineUs / a.baselineUs).toFixed(1)}×. The message store is never copied (checked on every run).`,
    );
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = measureSmallChange();
  console.table(rows);
  const [a, b] = rows;
  if (a && b) {
    console.log(
      `ours: large/small = ${(b.oursUs / a.oursUs).toFixed(2)}×; plain-object baseline: ${(b.baselineUs / a.baselineUs).toFixed(2)}×`,
    );
    console.log(
      `at the large scale ours is ${(b.baselineUs / b.oursUs).toFixed(1)}× faster than the baseline`,
    );
  }
}
