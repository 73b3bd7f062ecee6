import type { RealmSnapshotInput, SnapshotRecordInput } from '../src/core/snapshot/format';

/**
 * A plain JSON snapshot of a given size, generated deterministically, for measuring createRealm on
 * the snapshot path (simulateRealm builds states directly and is measured elsewhere).
 */
export function generateSnapshot(
  users: number,
  channels: number,
  messages: number,
  maxSubscribers = 200,
): RealmSnapshotInput {
  let seed = 12345;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const userList: Array<SnapshotRecordInput<'users'>> = Array.from({ length: users }, (_, i) => ({
    user_id: i + 1,
    email: `user${i + 1}@example.com`,
    full_name: `User ${i + 1}`,
    role: i === 0 ? 100 : i < 5 ? 200 : i % 50 === 0 ? 600 : 400,
    api_key: `k${String(i + 1).padStart(31, '0')}`,
  }));
  const channelList = Array.from({ length: channels }, (_, i) => ({
    stream_id: i + 1,
    name: `channel ${i + 1}`,
    invite_only: i % 10 === 0,
  }));
  // Channel sizes with a long tail: channel k has about users / (1 + k/4) subscribers, capped.
  const subscriptions: Array<{ user_id: number; stream_id: number }> = [];
  for (let c = 1; c <= channels; c++) {
    const n = Math.max(2, Math.min(maxSubscribers, Math.floor(users / (1 + c / 4))));
    const start = rnd(users);
    for (let k = 0; k < n; k++) subscriptions.push({ user_id: ((start + k * 7) % users) + 1, stream_id: c });
  }
  const seen = new Set<string>();
  const subs = subscriptions.filter((s) => {
    const key = `${s.user_id}:${s.stream_id}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
  const msgs = Array.from({ length: messages }, (_, i) => {
    const stream = 1 + (rnd(channels) % Math.max(1, Math.floor(channels / 3) + 1));
    return {
      id: i + 1,
      sender_id: 1 + rnd(users),
      stream_id: stream,
      topic: `topic ${rnd(20)}`,
      content: 'x',
      timestamp: 1_700_000_000 + i,
    };
  });
  return {
    format: 'chat-realm.snapshot/1',
    now: 1_795_219_200,
    users: userList,
    channels: channelList,
    subscriptions: subs,
    messages: msgs,
  };
}
