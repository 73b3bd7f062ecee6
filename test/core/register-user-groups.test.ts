/**
 * `realm_user_groups` as register builds it (one literal per group) against the `user_group/add`
 * event's dict (`groupForApi`) with a system group's members recomputed from the users' roles:
 * same values, same keys in the same order.
 */
import { describe, expect, it } from 'vitest';
import { SYSTEM_GROUP_RANK, systemGroupRank } from '../../src/core/permissions/roles';
import type { SystemGroupName } from '../../src/core/model/group-setting';
import { userGroups } from '../../src/core/register/user-groups';
import type { RealmState } from '../../src/core/state';
import { groupForApi } from '../../src/core/register/group-dict';
import { simulateRealm } from '../../src/simulate/simulate';

function expected(state: RealmState, includeDeactivated: boolean): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const g of state.groups.values()) {
    if (g.deactivated && !includeDeactivated) continue;
    const dict = groupForApi(state, g);
    if (g.is_system_group) {
      const rank = SYSTEM_GROUP_RANK[g.name as SystemGroupName];
      dict['members'] = [...state.users.values()]
        .filter((u) => u.is_active && systemGroupRank(u) === rank)
        .map((u) => u.user_id);
    }
    out.push(dict);
  }
  return out;
}

describe('register realm_user_groups', () => {
  it.each([1, 2, 3])('matches groupForApi with recomputed system members (seed %i)', (seed) => {
    const state = simulateRealm({ preset: 'small', seed, messages: 50 });
    for (const incl of [false, true])
      expect(JSON.stringify(userGroups(state, incl))).toBe(JSON.stringify(expected(state, incl)));
  });
});

describe('register realm_user_groups, shared', () => {
  it('is one frozen answer while the groups and users stay the same, rebuilt when either changes', () => {
    const state = simulateRealm({ preset: 'small', seed: 1, messages: 50 });
    const first = userGroups(state, false);
    expect(userGroups(state, false)).toBe(first);
    expect(
      Object.isFrozen(first) && first.every((g) => Object.isFrozen(g) && Object.isFrozen(g['members'])),
    ).toBe(true);
    expect(() => (first[0]!['members'] as number[]).push(0)).toThrow(TypeError);
    const [id, user] = [...state.users.entries()].find(([, u]) => u.is_active && !u.is_bot)!;
    const fewer: RealmState = { ...state, users: state.users.set(id, { ...user, is_active: false }) };
    const after = userGroups(fewer, false);
    expect(after).not.toBe(first);
    expect(JSON.stringify(after)).toBe(JSON.stringify(expected(fewer, false)));
    expect(JSON.stringify(after)).not.toBe(JSON.stringify(first));
  });
});
