import { DEFAULT_SYSTEM_GROUP_IDS, type SystemGroupName } from '../model/group-setting';
import type { UserGroup } from '../model/records';

/** Descriptions and subgroup chain of the system groups, as Zulip creates them. */
export const SYSTEM_GROUP_DESCRIPTIONS: Readonly<Record<SystemGroupName, string>> = {
  'role:nobody': 'Nobody',
  'role:owners': 'Owners of this organization',
  'role:administrators': 'Administrators of this organization, including owners',
  'role:moderators': 'Moderators of this organization, including administrators',
  'role:fullmembers': 'Members of this organization, not including new accounts and guests',
  'role:members': 'Members of this organization, not including guests',
  'role:everyone': 'Everyone in this organization, including guests',
  'role:internet': 'Everyone on the Internet',
};

const SUBGROUP_OF: Readonly<Partial<Record<SystemGroupName, SystemGroupName>>> = {
  'role:administrators': 'role:owners',
  'role:moderators': 'role:administrators',
  'role:fullmembers': 'role:moderators',
  'role:members': 'role:fullmembers',
  'role:everyone': 'role:members',
  'role:internet': 'role:everyone',
};

export function systemGroupRecord(
  name: SystemGroupName,
  ids: Readonly<Record<SystemGroupName, number>>,
): UserGroup {
  const sub = SUBGROUP_OF[name];
  const nobody = ids['role:nobody'];
  return {
    id: ids[name] ?? DEFAULT_SYSTEM_GROUP_IDS[name],
    name,
    description: SYSTEM_GROUP_DESCRIPTIONS[name],
    is_system_group: true,
    deactivated: false,
    creator_id: null,
    date_created: 0,
    members: [],
    direct_subgroup_ids: sub ? [ids[sub]] : [],
    can_add_members_group: nobody,
    can_join_group: nobody,
    can_leave_group: nobody,
    can_manage_group: nobody,
    // `default_for_system_groups` is role:nobody for every group setting, mentions included.
    can_mention_group: nobody,
    can_remove_members_group: nobody,
  };
}

export const DEFAULT_DATE_JOINED = '2025-01-01T00:00:00+00:00';
export const DEFAULT_SUBSCRIPTION_COLOR = '#c2c2c2';
