import fc from 'fast-check';

/**
 * fast-check arbitraries for valid realm snapshots (docs/realm-snapshot.md): users of every role and
 * bots, user groups whose subgroup graph may have cycles and diamonds, channels with group-setting
 * values of both forms, subscriptions, messages with flags, folders and small personal records.
 */
const ROLES = [100, 200, 300, 400, 600] as const;
const FLAGS = ['read', 'starred', 'collapsed', 'mentioned', 'historical'] as const;
const SYSTEM = ['role:nobody', 'role:owners', 'role:administrators', 'role:moderators', 'role:members', 'role:everyone'];

export interface SnapshotShape {
  users: number;
  groups: number;
  channels: number;
  messages: number;
}

const apiKey = (i: number) => `key${String(i).padStart(29, '0')}`;

export function arbSnapshot(max: Partial<SnapshotShape> = {}): fc.Arbitrary<Record<string, unknown>> {
  const m = { users: 8, groups: 5, channels: 5, messages: 20, ...max };
  return fc
    .record({
      nUsers: fc.integer({ min: 1, max: m.users }),
      nGroups: fc.integer({ min: 0, max: m.groups }),
      nChannels: fc.integer({ min: 0, max: m.channels }),
      seed: fc.infiniteStream(fc.nat({ max: 1_000_000 })),
      nMessages: fc.integer({ min: 0, max: m.messages }),
      threshold: fc.integer({ min: 0, max: 10 }),
    })
    .map(({ nUsers, nGroups, nChannels, seed, nMessages, threshold }) => {
      const it = seed[Symbol.iterator]();
      const r = (n: number) => (it.next().value as number) % Math.max(1, n);
      const pick = <T>(xs: readonly T[]): T => xs[r(xs.length)]!;
      const userIds = Array.from({ length: nUsers }, (_, i) => i + 1);
      const someUsers = () => userIds.filter(() => r(3) === 0);
      const groupIds = Array.from({ length: nGroups }, (_, i) => 100 + i);
      const allGroupIds = [...groupIds, 1, 2, 3, 4, 5, 6, 7];
      const setting = () =>
        r(3) === 0
          ? pick(SYSTEM)
          : r(2) === 0 && groupIds.length > 0
            ? pick(groupIds)
            : { direct_members: someUsers(), direct_subgroups: allGroupIds.filter(() => r(5) === 0) };
      const users = userIds.map((id) => {
        const isBot = r(6) === 0;
        return {
          user_id: id,
          email: `user${id}@example.com`,
          full_name: `User ${id}`,
          role: pick(ROLES),
          is_active: r(8) !== 0,
          ...(isBot ? { is_bot: true, bot_owner_id: pick(userIds) } : {}),
          date_joined: `2026-0${1 + r(9)}-0${1 + r(9)}T00:00:00+00:00`,
          api_key: apiKey(id),
        };
      });
      const user_groups = groupIds.map((id) => ({
        id,
        name: `group ${id}`,
        members: someUsers(),
        // Subgroups may point anywhere, including back up: cycles are allowed in snapshots.
        direct_subgroup_ids: groupIds.filter((g) => g !== id && r(3) === 0),
        deactivated: r(7) === 0,
        can_manage_group: setting(),
        can_mention_group: setting(),
      }));
      const channels = Array.from({ length: nChannels }, (_, i) => ({
        stream_id: i + 1,
        name: `channel ${i + 1}`,
        invite_only: r(3) === 0,
        is_web_public: r(5) === 0,
        can_remove_subscribers_group: setting(),
        can_administer_channel_group: setting(),
      }));
      const subscriptions = channels.flatMap((c) =>
        someUsers().map((u) => ({ user_id: u, stream_id: c.stream_id, is_muted: r(4) === 0, active: r(6) !== 0 })),
      );
      const messages = Array.from({ length: nMessages }, (_, i) => {
        const sender = pick(userIds);
        const target =
          channels.length > 0 && r(4) !== 0
            ? { stream_id: pick(channels).stream_id, topic: pick(['', 'lunch', 'Lunch', 'work']) }
            : { to: someUsers().slice(0, 3) };
        const withFlags = r(2) === 0;
        return {
          id: 1000 + i * (1 + r(3)),
          sender_id: sender,
          ...target,
          content: `message ${i}`,
          timestamp: 1_700_000_000 + i * 60,
          ...(withFlags
            ? {
                flags: Object.fromEntries(
                  someUsers().map((u) => [String(u), FLAGS.filter(() => r(3) === 0)]),
                ),
              }
            : {}),
        };
      });
      // Ids may collide after the stride above; keep the first of each.
      const seen = new Set<number>();
      const uniqueMessages = messages.filter((x) => (seen.has(x.id) ? false : (seen.add(x.id), true)));
      return {
        format: 'chat-realm.snapshot/1',
        now: 1_795_219_200,
        realm: { waiting_period_threshold: threshold, can_manage_all_groups: pick(['role:owners', 'role:administrators']) },
        users,
        user_groups,
        channel_folders: r(2) === 0 ? [{ id: 1, name: 'Folder' }] : [],
        channels,
        subscriptions,
        default_channel_ids: channels.filter(() => r(3) === 0).map((c) => c.stream_id),
        messages: uniqueMessages,
        saved_snippets: users.slice(0, 2).map((u, i) => ({ id: i + 1, user_id: u.user_id, title: 't', content: 'c' })),
        push_devices: r(2) === 0 ? [{ user_id: 1, kind: 'fcm', token: 'a'.repeat(64) }] : [],
      };
    });
}
