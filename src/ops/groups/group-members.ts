import type { SystemGroupName } from '../../core/model/group-setting';
import type { UserGroup } from '../../core/model/records';
import { activeDirectMembers, settingValueMembers } from '../../core/permissions/groups';
import { SYSTEM_GROUP_RANK, systemGroupRank } from '../../core/permissions/roles';
import type { RealmState } from '../../core/state';
import { groupForApi } from '../../core/register/group-dict';

/**
 * A group's members as Zulip's membership reads give them, active users only, ascending:
 * `direct` — the group's own members (for a system group, the users whose role puts them in it
 * directly); otherwise everyone in it through subgroups at any depth.
 */
export function groupMemberIds(state: RealmState, group: UserGroup, direct: boolean): number[] {
  if (!direct) return settingValueMembers(state, group.id);
  if (!group.is_system_group) return activeDirectMembers(state, group.members);
  const rank = SYSTEM_GROUP_RANK[group.name as SystemGroupName];
  const out: number[] = [];
  for (const u of state.users.values()) if (u.is_active && systemGroupRank(u) === rank) out.push(u.user_id);
  return out;
}

/**
 * Zulip's `user_groups_in_realm_serialized` (GET /user_groups, register's `realm_user_groups`):
 * every group by id, deactivated ones only on request; a system group's `members` are the
 * active users its role rank holds directly.
 */
export function userGroupsForApi(state: RealmState, includeDeactivated: boolean): Record<string, unknown>[] {
  const byRank = new Map<number, number[]>();
  for (const u of state.users.values()) {
    if (!u.is_active) continue;
    const r = systemGroupRank(u);
    let list = byRank.get(r);
    if (list === undefined) byRank.set(r, (list = []));
    list.push(u.user_id);
  }
  const out: Record<string, unknown>[] = [];
  for (const g of state.groups.values()) {
    if (g.deactivated && !includeDeactivated) continue;
    const dict = groupForApi(state, g);
    if (g.is_system_group) dict['members'] = byRank.get(SYSTEM_GROUP_RANK[g.name as SystemGroupName]) ?? [];
    out.push(dict);
  }
  return out;
}
