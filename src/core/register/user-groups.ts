import type { SystemGroupName } from '../model/group-setting';
import { activeDirectMembers, settingApiValue } from '../permissions/groups';
import { SYSTEM_GROUP_RANK, systemGroupRank } from '../permissions/roles';
import type { RealmState } from '../state';

/**
 * Zulip's `user_groups_in_realm_serialized`: groups by id, deactivated ones only with the
 * capability; a system group's members are the active users whose role puts them directly in it.
 * Each dict is the `user_group/add` event's (`groupForApi`, same keys in the same order) written as
 * one literal: building the settings apart and spreading them in cost ten times this part's answer
 * in garbage, and a system group's stored members were filtered only to be replaced.
 */
export function userGroups(state: RealmState, includeDeactivated: boolean): Array<Record<string, unknown>> {
  const byRank = new Map<number, number[]>();
  state.users.forEachValue((u) => {
    if (!u.is_active) return;
    const r = systemGroupRank(u);
    let list = byRank.get(r);
    if (list === undefined) byRank.set(r, (list = []));
    list.push(u.user_id);
  });
  const out: Array<Record<string, unknown>> = [];
  for (const g of state.groups.values()) {
    if (g.deactivated && !includeDeactivated) continue;
    out.push({
      name: g.name,
      creator_id: g.creator_id,
      date_created: g.date_created,
      members: g.is_system_group
        ? (byRank.get(SYSTEM_GROUP_RANK[g.name as SystemGroupName]) ?? [])
        : activeDirectMembers(state, g.members),
      description: g.description,
      id: g.id,
      is_system_group: g.is_system_group,
      direct_subgroup_ids: sortedIds(g.direct_subgroup_ids),
      can_add_members_group: settingApiValue(state, g.can_add_members_group),
      can_join_group: settingApiValue(state, g.can_join_group),
      can_leave_group: settingApiValue(state, g.can_leave_group),
      can_manage_group: settingApiValue(state, g.can_manage_group),
      can_mention_group: settingApiValue(state, g.can_mention_group),
      can_remove_members_group: settingApiValue(state, g.can_remove_members_group),
      deactivated: g.deactivated,
    });
  }
  return out;
}

/** A sorted copy (no comparator closure run for the many groups with at most one subgroup). */
function sortedIds(ids: readonly number[]): number[] {
  const copy = [...ids];
  return copy.length <= 1 ? copy : copy.sort((a, b) => a - b);
}
