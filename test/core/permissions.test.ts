/**
 * Permission laws over arbitrary group graphs (cycles, self-loops and diamonds included):
 * - `isUserInGroup` terminates and agrees with a naive recursive reference written here;
 * - an anonymous group-setting value `{direct_members, direct_subgroups}` resolves exactly like a
 *   named group with the same members and subgroups.
 * States come from `createRealm` on generated snapshots (docs/realm-snapshot.md).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/context';
import { DEFAULT_SYSTEM_GROUP_IDS, type SystemGroupName } from '../../src/core/model/group-setting';
import { isUserInGroup, isUserInSettingValue, settingValueMembers } from '../../src/core/permissions/groups';
import { createRealm } from '../../src/core/snapshot/create';
import type { RealmSnapshotInput } from '../../src/core/snapshot/format';
import type { RealmState } from '../../src/core/state';

const NOW = 1_795_219_200;
const DAY = 86_400;
const ROLES = [100, 200, 300, 400, 600] as const;
type Role = (typeof ROLES)[number];

interface ModelUser {
  id: number;
  role: Role;
  active: boolean;
  bot: boolean;
  daysAgo: number;
}
interface ModelGroup {
  id: number;
  members: number[];
  subgroups: number[];
  deactivated: boolean;
}
interface Model {
  threshold: number;
  users: ModelUser[];
  groups: ModelGroup[];
  /** Members and subgroups of the anonymous value (and of the named probe group). */
  probe: { members: number[]; subgroups: number[] };
}

const SYSTEM_IDS = Object.values(DEFAULT_SYSTEM_GROUP_IDS);
const SYSTEM_BY_ID = new Map(
  Object.entries(DEFAULT_SYSTEM_GROUP_IDS).map(([name, id]) => [id, name as SystemGroupName]),
);
const PROBE_ID = 999;
const MISSING_ID = 4242;

/** Users 1..n, user groups 100.. whose subgroups may be any group (themselves and system groups included). */
const arbModel: fc.Arbitrary<Model> = fc
  .record({
    threshold: fc.integer({ min: 0, max: 5 }),
    users: fc.array(
      fc.record({
        role: fc.constantFrom(...ROLES),
        active: fc.boolean(),
        bot: fc.boolean(),
        daysAgo: fc.integer({ min: 0, max: 8 }),
      }),
      { minLength: 1, maxLength: 7 },
    ),
    nGroups: fc.integer({ min: 1, max: 7 }),
    picks: fc.infiniteStream(fc.nat()),
  })
  .map(({ threshold, users, nGroups, picks }) => {
    const it = picks[Symbol.iterator]();
    const coin = (n: number) => (it.next().value as number) % n === 0;
    const userIds = users.map((_, i) => i + 1);
    const groupIds = Array.from({ length: nGroups }, (_, i) => 100 + i);
    const anyGroup = [...groupIds, ...SYSTEM_IDS];
    const groups = groupIds.map((id) => ({
      id,
      members: userIds.filter(() => coin(3)),
      // Edges in every direction, self-loops included: cycles and diamonds are common.
      subgroups: anyGroup.filter((g) => (SYSTEM_IDS.includes(g) ? coin(6) : coin(3))),
      deactivated: coin(5),
    }));
    return {
      threshold,
      users: users.map((u, i) => ({ ...u, id: i + 1 })),
      groups,
      probe: { members: userIds.filter(() => coin(3)), subgroups: anyGroup.filter(() => coin(4)) },
    };
  });

function isoDaysAgo(days: number): string {
  return new Date((NOW - days * DAY) * 1000).toISOString().replace('.000Z', '+00:00');
}

/** The snapshot for a model; the probe becomes a named group too (nothing points at it). */
function snapshotOf(m: Model): RealmSnapshotInput {
  return {
    format: 'chat-realm.snapshot/1',
    now: NOW,
    realm: { waiting_period_threshold: m.threshold },
    users: m.users.map((u) => ({
      user_id: u.id,
      email: `user${u.id}@example.com`,
      full_name: `User ${u.id}`,
      role: u.role,
      is_active: u.active,
      ...(u.bot ? { is_bot: true } : {}),
      date_joined: isoDaysAgo(u.daysAgo),
      api_key: `key${String(u.id).padStart(29, '0')}`,
    })),
    user_groups: [
      ...m.groups.map((g) => ({
        id: g.id,
        name: `group ${g.id}`,
        members: g.members,
        direct_subgroup_ids: g.subgroups,
        deactivated: g.deactivated,
      })),
      { id: PROBE_ID, name: 'probe', members: m.probe.members, direct_subgroup_ids: m.probe.subgroups },
    ],
  };
}

const load = (m: Model): RealmState => createRealm(snapshotOf(m), { random: seededRandom(3) });

/** Which system groups a user is in, straight from Zulip's definitions (not the engine's ranks). */
function refInSystemGroup(m: Model, u: ModelUser, name: SystemGroupName): boolean {
  const full = u.daysAgo >= m.threshold;
  switch (name) {
    case 'role:nobody':
      return false;
    case 'role:owners':
      return u.role === 100;
    case 'role:administrators':
      return u.role <= 200;
    case 'role:moderators':
      return u.role <= 300;
    case 'role:fullmembers':
      return u.role <= 300 || (u.role === 400 && full);
    case 'role:members':
      return u.role <= 400;
    case 'role:everyone':
    case 'role:internet':
      return true;
    default: {
      const never: never = name;
      return never;
    }
  }
}

/** The naive reference: recursive, with a visited set. */
function refInGroup(m: Model, u: ModelUser, groupId: number, visited = new Set<number>()): boolean {
  if (!u.active || visited.has(groupId)) return false;
  visited.add(groupId);
  const system = SYSTEM_BY_ID.get(groupId);
  if (system !== undefined) return refInSystemGroup(m, u, system);
  const group = groupId === PROBE_ID ? { id: PROBE_ID, ...m.probe } : m.groups.find((g) => g.id === groupId);
  if (group === undefined) return false;
  if (group.members.includes(u.id)) return true;
  return group.subgroups.some((sg) => refInGroup(m, u, sg, visited));
}

describe('permissions: group membership', () => {
  it('isUserInGroup terminates and agrees with the naive reference on arbitrary graphs', () => {
    fc.assert(
      fc.property(arbModel, (m) => {
        const state = load(m);
        const targets = [...m.groups.map((g) => g.id), ...SYSTEM_IDS, PROBE_ID, MISSING_ID];
        for (const u of m.users) {
          const user = state.users.get(u.id)!;
          for (const g of targets)
            expect([u.id, g, isUserInGroup(state, user, g)]).toEqual([u.id, g, refInGroup(m, u, g)]);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('an anonymous group-setting value resolves like a named group with the same members and subgroups', () => {
    fc.assert(
      fc.property(arbModel, (m) => {
        const state = load(m);
        const anonymous = { direct_members: m.probe.members, direct_subgroups: m.probe.subgroups };
        for (const u of m.users) {
          const user = state.users.get(u.id)!;
          const named = isUserInGroup(state, user, PROBE_ID);
          expect(isUserInSettingValue(state, user, anonymous)).toBe(named);
          expect(isUserInSettingValue(state, user, PROBE_ID)).toBe(named);
          expect(named).toBe(refInGroup(m, u, PROBE_ID));
        }
        expect(settingValueMembers(state, anonymous)).toEqual(settingValueMembers(state, PROBE_ID));
        expect(settingValueMembers(state, PROBE_ID)).toEqual(
          m.users.filter((u) => refInGroup(m, u, PROBE_ID)).map((u) => u.id),
        );
      }),
      { numRuns: 150 },
    );
  });

  it('settingValueMembers of a named group lists exactly the members the reference finds', () => {
    fc.assert(
      fc.property(arbModel, (m) => {
        const state = load(m);
        for (const g of [...m.groups.map((x) => x.id), ...SYSTEM_IDS]) {
          expect([g, settingValueMembers(state, g)]).toEqual([
            g,
            m.users.filter((u) => refInGroup(m, u, g)).map((u) => u.id),
          ]);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('handles a fixed diamond with a cycle and a self-loop', () => {
    // 100 → 101, 100 → 102, 101 → 103, 102 → 103 (diamond); 103 → 100 (cycle); 102 → 102 (self-loop).
    const m: Model = {
      threshold: 3,
      users: [
        { id: 1, role: 400, active: true, bot: false, daysAgo: 5 },
        { id: 2, role: 400, active: true, bot: false, daysAgo: 1 },
        { id: 3, role: 400, active: false, bot: false, daysAgo: 5 },
        { id: 4, role: 600, active: true, bot: false, daysAgo: 5 },
      ],
      groups: [
        { id: 100, members: [], subgroups: [101, 102], deactivated: false },
        { id: 101, members: [], subgroups: [103], deactivated: false },
        { id: 102, members: [], subgroups: [103, 102], deactivated: true },
        {
          id: 103,
          members: [1, 3],
          subgroups: [100, DEFAULT_SYSTEM_GROUP_IDS['role:fullmembers']],
          deactivated: false,
        },
      ],
      probe: { members: [4], subgroups: [101] },
    };
    const state = load(m);
    const inGroup = (userId: number, g: number) => isUserInGroup(state, state.users.get(userId)!, g);
    expect([100, 101, 102, 103].map((g) => inGroup(1, g))).toEqual([true, true, true, true]);
    // User 2 is still provisional (joined 1 day ago, threshold 3): not in role:fullmembers.
    expect([100, 101, 102, 103].map((g) => inGroup(2, g))).toEqual([false, false, false, false]);
    // Deactivated users are in no group; guests are not full members.
    expect([100, 103].map((g) => inGroup(3, g))).toEqual([false, false]);
    expect(inGroup(4, 100)).toBe(false);
    expect(inGroup(4, PROBE_ID)).toBe(true);
    const anonymous = { direct_members: [4], direct_subgroups: [101] };
    expect(settingValueMembers(state, anonymous)).toEqual([1, 4]);
    expect(settingValueMembers(state, PROBE_ID)).toEqual([1, 4]);
  });
});
