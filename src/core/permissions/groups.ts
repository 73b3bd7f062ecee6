import { isAnonymousGroup, type GroupSettingValue, type SystemGroupName } from '../model/group-setting';
import type { User } from '../model/records';
import { sortUniqueIds, sortedIncludes } from '../indexes/id-sets';
import { activeUserIdsUpToRank } from '../indexes/user-indexes';
import type { RealmState } from '../state';
import { SYSTEM_GROUP_RANK, systemGroupRank } from './roles';

/**
 * Whether an active user is in a group, directly or through subgroups at any depth. Each group is
 * visited once, so cycles and diamonds terminate. Deactivated users are in no group.
 */
export function isUserInGroup(state: RealmState, user: User, groupId: number): boolean {
  if (!user.is_active) return false;
  return inGroups(state, user, [groupId], new Set());
}

function inGroups(state: RealmState, user: User, ids: Iterable<number>, seen: Set<number>): boolean {
  const stack = [...ids];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const group = state.groups.get(id);
    if (group === undefined) continue;
    if (group.is_system_group) {
      const rank = SYSTEM_GROUP_RANK[group.name as SystemGroupName];
      if (rank !== undefined && systemGroupRank(user) <= rank) return true;
    } else if (sortedIncludes(group.members, user.user_id)) {
      return true;
    }
    stack.push(...group.direct_subgroup_ids);
  }
  return false;
}

/** Whether a user holds a group-setting value (a group id or an anonymous group). */
export function isUserInSettingValue(state: RealmState, user: User, value: GroupSettingValue): boolean {
  if (!user.is_active) return false;
  if (!isAnonymousGroup(value)) return isUserInGroup(state, user, value);
  if (value.direct_members.includes(user.user_id)) return true;
  return inGroups(state, user, value.direct_subgroups, new Set());
}

/** Every group reachable from `ids` through subgroups, `ids` included (each once). */
export function reachableGroups(state: RealmState, ids: Iterable<number>): Set<number> {
  const seen = new Set<number>();
  const stack = [...ids];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(state.groups.get(id)?.direct_subgroup_ids ?? []));
  }
  return seen;
}

/**
 * Ids of the active users who hold a setting value, ascending. O(answer + groups reached): a
 * reachable system group's members come from the rank index (`activeUserIdsUpToRank`).
 */
export function settingValueMembers(state: RealmState, value: GroupSettingValue): number[] {
  const direct = isAnonymousGroup(value) ? value.direct_members : [];
  const groups = reachableGroups(state, isAnonymousGroup(value) ? value.direct_subgroups : [value]);
  let maxRank = -1;
  const out: number[] = [];
  for (const id of direct) if (state.users.get(id)?.is_active) out.push(id);
  for (const id of groups) {
    const g = state.groups.get(id);
    if (!g) continue;
    if (g.is_system_group) maxRank = Math.max(maxRank, SYSTEM_GROUP_RANK[g.name as SystemGroupName] ?? -1);
    else for (const m of g.members) if (state.users.get(m)?.is_active) out.push(m);
  }
  if (maxRank <= 0) return sortUniqueIds(out);
  const byRank = activeUserIdsUpToRank(state, maxRank);
  return out.length === 0 ? byRank : sortUniqueIds([...byRank, ...out]);
}

/** The members list the API shows for a group: direct members who are active, sorted. */
export function activeDirectMembers(state: RealmState, members: readonly number[]): number[] {
  return members.filter((id) => state.users.get(id)?.is_active === true).sort((a, b) => a - b);
}

/**
 * A setting's current value as the API shows it: a group id, or an anonymous group whose
 * deactivated direct members are left out, both lists sorted.
 */
export function settingApiValue(state: RealmState, value: GroupSettingValue): GroupSettingValue {
  if (!isAnonymousGroup(value)) return value;
  return {
    direct_members: activeDirectMembers(state, value.direct_members),
    direct_subgroups: [...value.direct_subgroups].sort((a, b) => a - b),
  };
}

/** `{[], [X]}` is X and `{[], []}` is role:nobody; everything else stays an object (sorted). */
export function canonicalSettingValue(state: RealmState, value: GroupSettingValue): GroupSettingValue {
  if (!isAnonymousGroup(value)) return value;
  if (value.direct_members.length === 0) {
    if (value.direct_subgroups.length === 0) return state.systemGroups['role:nobody'];
    if (value.direct_subgroups.length === 1) return value.direct_subgroups[0]!;
  }
  return {
    direct_members: [...new Set(value.direct_members)].sort((a, b) => a - b),
    direct_subgroups: [...new Set(value.direct_subgroups)].sort((a, b) => a - b),
  };
}

/** Zulip's comparison: ints by equality, objects as sets, an int never equals an object. */
export function settingValuesEqual(a: GroupSettingValue, b: GroupSettingValue): boolean {
  if (!isAnonymousGroup(a) || !isAnonymousGroup(b)) return a === b;
  return sameSet(a.direct_members, b.direct_members) && sameSet(a.direct_subgroups, b.direct_subgroups);
}

function sameSet(a: readonly number[], b: readonly number[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  if (sa.size !== sb.size) return false;
  for (const x of sa) if (!sb.has(x)) return false;
  return true;
}
