/**
 * The cost of `subscribe` (POST /users/me/subscriptions) as the organization grows 10×: an
 * administrator creates a private channel with k = 20 principals, and subscribes k = 20 users to an
 * existing private channel. Both reach O(k + administrators) users, so their time must not grow
 * with the organization; joining a public channel is shown for reference (its `peer_add` goes to
 * every non-guest, as in Zulip, so it grows with the answer).
 *
 *   node --import tsx bench/subscribe.ts
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { OpContext } from '../src/core/context';
import { seededRandom } from '../src/core/context';
import { isRealmAdmin } from '../src/core/permissions/roles';
import type { OpResult } from '../src/core/result';
import type { RealmState } from '../src/core/state';
import { subscribe } from '../src/ops/index';
import { simulateRealm } from '../src/simulate/simulate';
import { median } from './stats';

const K = 20;
const ctx: OpContext = { now: 1_800_000_000, random: seededRandom(1) };

function time(run: () => OpResult, reps: number): { us: number; recipients: number } {
  let last: OpResult | undefined;
  for (let i = 0; i < 20; i++) last = run();
  const samples: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    last = run();
    samples.push((performance.now() - t) * 1000);
  }
  if (last?.status !== 200) throw new Error(`refused: ${JSON.stringify(last?.body)}`);
  const recipients = last.events.reduce((n, e) => n + e.users.length, 0);
  return { us: median(samples), recipients };
}

function cases(state: RealmState): Array<[string, () => OpResult]> {
  const users = [...state.users.values()];
  const admin = users.find((u) => u.is_active && !u.is_bot && isRealmAdmin(u))!;
  const members = users.filter((u) => u.is_active && !u.is_bot && u.role === 400).map((u) => u.user_id);
  const principals = members.slice(-K);
  const created = subscribe(
    state,
    { userId: admin.user_id },
    {
      subscriptions: [{ name: 'bench private' }],
      invite_only: true,
    },
    ctx,
  ).state;
  const pub = [...state.channels.values()].find((c) => !c.invite_only && !c.is_archived)!;
  const joiner = members.find((id) => !state.subscriptions.get(pub.stream_id)?.get(id)?.active)!;
  return [
    [
      `create a private channel with ${K} principals`,
      () =>
        subscribe(
          state,
          { userId: admin.user_id },
          {
            subscriptions: [{ name: 'new private' }],
            invite_only: true,
            principals,
          },
          ctx,
        ),
    ],
    [
      `subscribe ${K} users to an existing private channel`,
      () =>
        subscribe(
          created,
          { userId: admin.user_id },
          { subscriptions: [{ name: 'bench private' }], principals },
          ctx,
        ),
    ],
    [
      'one member joins a public channel (peer_add to every non-guest)',
      () => subscribe(state, { userId: joiner }, { subscriptions: [{ name: pub.name }] }, ctx),
    ],
  ];
}

export function runSubscribeBench(log: (line: string) => void = console.log): void {
  log(
    `subscribe bench, ${new Date().toISOString()}, load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  const rows = new Map<string, string[]>();
  for (const n of [1_000, 10_000]) {
    const state = simulateRealm({ users: n, channels: 100, messages: 10_000, seed: 1 });
    for (const [name, run] of cases(state)) {
      const { us, recipients } = time(run, 200);
      const row = rows.get(name) ?? [];
      row.push(`${us.toFixed(1)} µs (${recipients} recipients)`);
      rows.set(name, row);
    }
  }
  log('| request | 1,000 users | 10,000 users |');
  log('|---|---:|---:|');
  for (const [name, [small, large]] of rows) log(`| ${name} | ${small} | ${large} |`);
  log(
    `load average after: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
}

if (process.argv[1]?.endsWith('subscribe.ts')) runSubscribeBench();
