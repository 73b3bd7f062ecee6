import { IntMap } from '../collections/int-map';
import { StrMap } from '../collections/str-map';
import type { PasswordHasher, RandomSource } from '../context';
import {
  DEFAULT_SYSTEM_GROUP_IDS,
  SYSTEM_GROUP_NAMES,
  isSystemGroupName,
  type GroupSettingValue,
  type SystemGroupName,
} from '../model/group-setting';
import { USER_GROUP_SETTING_NAMES, type User, type UserGroup } from '../model/records';
import { USER_SETTING_DEFAULTS, type UserSettings } from '../model/user-settings';
import { USER_GROUP_SETTING_RULES } from '../permissions/setting-rules';
import { DEFAULT_DATE_JOINED, systemGroupRecord } from './defaults';
import type { IssueList } from './issues';
import { sortedUnique, type Loader } from './loader';
import type { SnapshotInput } from './schema';

/**
 * The ids of the system groups: listed ones keep theirs, the others take the default ids 1..8, and
 * the set of every group id (reporting clashes with user-defined groups).
 */
export function systemGroupIds(
  s: SnapshotInput,
  issues: IssueList,
): { systemIds: Record<SystemGroupName, number>; groupIds: Set<number> } {
  const groupsIn = s.user_groups ?? [];
  const systemIds = { ...DEFAULT_SYSTEM_GROUP_IDS } as Record<SystemGroupName, number>;
  groupsIn.forEach((g, i) => {
    if (g.is_system_group) {
      if (isSystemGroupName(g.name)) systemIds[g.name] = g.id;
      else issues.add(['user_groups', i, 'name'], `${JSON.stringify(g.name)} is not a system group name`);
    } else if (g.name.startsWith('role:')) {
      issues.add(['user_groups', i, 'name'], 'names starting with "role:" are reserved for system groups');
    }
  });
  const listed = new Set(groupsIn.filter((g) => g.is_system_group).map((g) => g.name));
  const groupIds = new Set<number>(SYSTEM_GROUP_NAMES.map((n) => systemIds[n]));
  groupsIn.forEach((g, i) => {
    if (g.is_system_group) return;
    if (groupIds.has(g.id)) {
      const clash = SYSTEM_GROUP_NAMES.find((n) => systemIds[n] === g.id && !listed.has(n));
      issues.add(
        ['user_groups', i, 'id'],
        clash
          ? `id ${g.id} is taken by ${clash}; list the system groups to give them other ids`
          : `duplicate group id ${g.id}`,
      );
    }
    groupIds.add(g.id);
  });
  return { systemIds, groupIds };
}

export interface LoadedUsers {
  readonly users: IntMap<User>;
  readonly usersByEmail: StrMap<number>;
  readonly usersByApiKey: StrMap<number>;
}

/**
 * Users with their defaults. Plain fixture passwords are hashed; `is_full_member` is derived from
 * the realm's waiting period at the snapshot's `now` (everyone has passed it when `now` is absent).
 */
export function loadUsers(
  s: SnapshotInput,
  loader: Loader,
  waitingPeriodDays: number,
  hashing: { passwords: PasswordHasher; random: RandomSource },
): LoadedUsers {
  const now = s.now ?? null;
  const threshold = waitingPeriodDays * 86400;
  const fieldIds = new Set((s.custom_profile_fields ?? []).map((f) => f.id));
  let users = IntMap.empty<User>();
  let usersByEmail = StrMap.empty<number>();
  let usersByApiKey = StrMap.empty<number>();
  (s.users ?? []).forEach((u, i) => {
    const isBot = u.is_bot ?? false;
    loader.needUser(['users', i, 'bot_owner_id'], u.bot_owner_id);
    if (u.password !== undefined && u.password_hash !== undefined)
      loader.issues.add(['users', i, 'password'], 'give either password or password_hash');
    for (const key of Object.keys(u.profile_data ?? {})) {
      if (!fieldIds.has(Number(key)))
        loader.issues.add(['users', i, 'profile_data', key], `no custom profile field ${key}`);
    }
    const dateJoined = u.date_joined ?? DEFAULT_DATE_JOINED;
    const user: User = {
      user_id: u.user_id,
      email: u.email,
      delivery_email: u.delivery_email ?? u.email,
      full_name: u.full_name,
      role: u.role ?? 400,
      is_active: u.is_active ?? true,
      is_bot: isBot,
      bot_type: u.bot_type === undefined ? (isBot ? 1 : null) : u.bot_type,
      bot_owner_id: u.bot_owner_id ?? null,
      is_imported_stub: u.is_imported_stub ?? false,
      date_joined: dateJoined,
      timezone: u.timezone ?? '',
      avatar_source: u.avatar_source ?? 'G',
      avatar_version: u.avatar_version ?? 1,
      api_key: u.api_key,
      password_hash:
        u.password_hash ??
        (u.password !== undefined ? hashing.passwords.hash(u.password, hashing.random) : null),
      settings: { ...USER_SETTING_DEFAULTS, ...u.settings } as UserSettings,
      settings_edited_by_user: [...new Set(u.settings_edited_by_user ?? [])].sort(),
      profile_data: u.profile_data ?? {},
      is_full_member: now === null || Date.parse(dateJoined) / 1000 <= now - threshold,
    };
    users = users.set(user.user_id, user);
    usersByEmail = usersByEmail.set(user.email.toLowerCase(), user.user_id);
    usersByApiKey = usersByApiKey.set(user.api_key, user.user_id);
  });
  return { users, usersByEmail, usersByApiKey };
}

/** System groups (always present) and user-defined groups with their permission settings. */
export function loadGroups(
  s: SnapshotInput,
  loader: Loader,
): { groups: IntMap<UserGroup>; groupsByName: StrMap<number> } {
  const groupsIn = s.user_groups ?? [];
  let groups = IntMap.empty<UserGroup>();
  let groupsByName = StrMap.empty<number>();
  for (const name of SYSTEM_GROUP_NAMES) {
    const listed = groupsIn.find((g) => g.is_system_group && g.name === name);
    const base = systemGroupRecord(name, loader.systemIds);
    const group: UserGroup = listed ? { ...base, description: listed.description ?? base.description } : base;
    groups = groups.set(group.id, group);
    groupsByName = groupsByName.set(name, group.id);
  }
  groupsIn.forEach((g, i) => {
    if (g.is_system_group) return;
    const at = ['user_groups', i];
    (g.members ?? []).forEach((m, j) => loader.needUser([...at, 'members', j], m));
    (g.direct_subgroup_ids ?? []).forEach((sg, j) => loader.needGroup([...at, 'direct_subgroup_ids', j], sg));
    loader.needUser([...at, 'creator_id'], g.creator_id);
    const settings: Record<string, GroupSettingValue> = {};
    for (const name of USER_GROUP_SETTING_NAMES) {
      settings[name] = loader.setting(
        [...at, name],
        g[name],
        loader.defaultSetting(USER_GROUP_SETTING_RULES[name], g.creator_id),
      );
    }
    const group = {
      ...settings,
      id: g.id,
      name: g.name,
      description: g.description ?? '',
      is_system_group: false,
      deactivated: g.deactivated ?? false,
      creator_id: g.creator_id ?? null,
      date_created: g.date_created ?? 0,
      members: sortedUnique(g.members ?? []),
      direct_subgroup_ids: sortedUnique(g.direct_subgroup_ids ?? []),
    } as unknown as UserGroup;
    groups = groups.set(group.id, group);
    groupsByName = groupsByName.set(group.name, group.id);
  });
  return { groups, groupsByName };
}
