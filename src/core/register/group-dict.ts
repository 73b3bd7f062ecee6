import type { UserGroup } from '../model/records';
import { activeDirectMembers, settingApiValue } from '../permissions/groups';
import type { RealmState } from '../state';

/**
 * A group as Zulip's `user_group/add` event writes it, and as register's `realm_user_groups` lists
 * it: the one builder of that dict. `members` defaults to the group's active direct members;
 * register passes a system group's members, which it has already computed from the users' roles.
 * One object literal with the settings written out (in `USER_GROUP_SETTING_NAMES` order): a
 * settings object built apart and spread in was ten times register's group answer in garbage.
 */
export function groupForApi(
  state: RealmState,
  group: UserGroup,
  members: number[] = activeDirectMembers(state, group.members),
): Record<string, unknown> {
  return {
    name: group.name,
    creator_id: group.creator_id,
    date_created: group.date_created,
    members,
    description: group.description,
    id: group.id,
    is_system_group: group.is_system_group,
    direct_subgroup_ids: sortedIds(group.direct_subgroup_ids),
    can_add_members_group: settingApiValue(state, group.can_add_members_group),
    can_join_group: settingApiValue(state, group.can_join_group),
    can_leave_group: settingApiValue(state, group.can_leave_group),
    can_manage_group: settingApiValue(state, group.can_manage_group),
    can_mention_group: settingApiValue(state, group.can_mention_group),
    can_remove_members_group: settingApiValue(state, group.can_remove_members_group),
    deactivated: group.deactivated,
  };
}

/** A sorted copy (no comparator closure run for the many groups with at most one subgroup). */
export function sortedIds(ids: readonly number[]): number[] {
  const copy = [...ids];
  return copy.length <= 1 ? copy : copy.sort((a, b) => a - b);
}
