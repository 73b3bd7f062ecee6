import type { GroupSettingValue } from '../../core/model/group-setting';
import { USER_GROUP_SETTING_NAMES, type UserGroup } from '../../core/model/records';
import { activeDirectMembers, settingApiValue } from '../../core/permissions/groups';
import type { RealmState } from '../../core/state';

/** A group as Zulip's `user_group/add` event writes it. */
export function groupForApi(state: RealmState, group: UserGroup): Record<string, unknown> {
  const settings: Record<string, GroupSettingValue> = {};
  for (const s of USER_GROUP_SETTING_NAMES) settings[s] = settingApiValue(state, group[s]);
  return {
    name: group.name,
    creator_id: group.creator_id,
    date_created: group.date_created,
    members: activeDirectMembers(state, group.members),
    description: group.description,
    id: group.id,
    is_system_group: group.is_system_group,
    direct_subgroup_ids: [...group.direct_subgroup_ids].sort((a, b) => a - b),
    ...settings,
    deactivated: group.deactivated,
  };
}
