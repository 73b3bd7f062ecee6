/**
 * Group-setting values, as the API writes them: a user group's id, or an anonymous group
 * `{direct_members, direct_subgroups}`. We store the value itself on the record that owns the
 * setting (Zulip stores a pointer to a possibly anonymous UserGroup row; the observable API is the same).
 */
export interface AnonymousGroup {
  readonly direct_members: readonly number[];
  readonly direct_subgroups: readonly number[];
}

export type GroupSettingValue = number | AnonymousGroup;

export function isAnonymousGroup(value: GroupSettingValue): value is AnonymousGroup {
  return typeof value === 'object';
}

export const SYSTEM_GROUP_NAMES = [
  'role:nobody',
  'role:owners',
  'role:administrators',
  'role:moderators',
  'role:fullmembers',
  'role:members',
  'role:everyone',
  'role:internet',
] as const;

export type SystemGroupName = (typeof SYSTEM_GROUP_NAMES)[number];

/** The ids system groups get when a snapshot does not list them (realm-snapshot.md). */
export const DEFAULT_SYSTEM_GROUP_IDS: Readonly<Record<SystemGroupName, number>> = {
  'role:nobody': 1,
  'role:owners': 2,
  'role:administrators': 3,
  'role:moderators': 4,
  'role:fullmembers': 5,
  'role:members': 6,
  'role:everyone': 7,
  'role:internet': 8,
};

export function isSystemGroupName(name: string): name is SystemGroupName {
  return (SYSTEM_GROUP_NAMES as readonly string[]).includes(name);
}
