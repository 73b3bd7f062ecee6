/**
 * A large organization for persistence benchmarks: the dev-realm fixture plus `count` generated
 * channel messages (deterministic), each with the channel's subscribers' rows. Used until
 * `simulateRealm` (src/simulate) exists.
 */
import { readFileSync } from 'node:fs';
import type { FlagName } from '../src/core/messages/flags';
import type { RealmSnapshotInput, SnapshotRecordInput } from '../src/core/snapshot/format';

interface SubscriptionRow {
  readonly user_id: number;
  readonly stream_id: number;
  readonly active?: boolean;
}

export function largeSnapshot(count: number): RealmSnapshotInput {
  const base = JSON.parse(
    readFileSync(new URL('../test/fixtures/dev-realm.json', import.meta.url), 'utf8'),
  ) as RealmSnapshotInput & {
    subscriptions: readonly SubscriptionRow[];
    messages: ReadonlyArray<SnapshotRecordInput<'messages'>>;
    now: number;
  };
  const subscribers = new Map<number, number[]>();
  for (const s of base.subscriptions) {
    if (s.active === false) continue;
    const list = subscribers.get(s.stream_id) ?? [];
    list.push(s.user_id);
    subscribers.set(s.stream_id, list);
  }
  const streams = [...subscribers.keys()].sort((a, b) => a - b);
  const firstId = Math.max(0, ...base.messages.map((m) => m.id)) + 1;
  const messages: Array<SnapshotRecordInput<'messages'>> = [...base.messages];
  const topics = ['lunch', 'castle', 'plans', 'release', 'bugs', 'party', 'weather', 'design'];
  for (let i = 0; i < count; i++) {
    const stream = streams[i % streams.length]!;
    const subs = subscribers.get(stream)!;
    const sender = subs[(i * 7) % subs.length]!;
    const flags: Record<string, FlagName[]> = {};
    for (const u of subs) flags[String(u)] = u === sender || (i + u) % 3 === 0 ? ['read'] : [];
    messages.push({
      id: firstId + i,
      sender_id: sender,
      stream_id: stream,
      topic: topics[(i >> 4) % topics.length]!,
      content: `generated message ${i}`,
      timestamp: base.now - count + i,
      flags,
    });
  }
  return { ...base, messages };
}
