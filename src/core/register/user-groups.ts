import type { SystemGroupName } from '../model/group-setting';
import { SYSTEM_GROUP_RANK, systemGroupRank } from '../permissions/roles';
import type { RealmState } from '../state';
import { groupForApi } from '../../ops/groups/format';

/**
 * Zulip's `user_groups_in_realm_serialized`: groups by id, deactivated ones only with the
 * capability; a system group's members are the active users whose role puts them directly in it.
 * Each dict is the `user_group/add` event's (`groupForApi`); a system group's members are computed
 * once per rank here and passed in (its stored members would be filtered only to be replaced).
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
    out.push(
      groupForApi(
        state,
        g,
        g.is_system_group ? (byRank.get(SYSTEM_GROUP_RANK[g.name as SystemGroupName]) ?? []) : undefined,
      ),
    );
  }
  return out;
}
