import type { GroupSettingValue, SystemGroupName } from '../model/group-setting';
import type { ChannelGroupSettingName, User, UserGroupSettingName } from '../model/records';
import type { RealmGroupSettingName } from '../model/realm';
import type { RealmState } from '../state';
import { isUserInSettingValue } from './groups';
import { isGuest } from './roles';

/**
 * One row per group-based permission setting, as the server's `GroupPermissionSetting` table:
 * which system groups a value may name, and the default a new object gets.
 * `creator` means an anonymous group holding the object's creator.
 */
export interface SettingRule {
  readonly allowNobody: boolean;
  readonly allowEveryone: boolean;
  readonly allowInternet: boolean;
  readonly allowOwners: boolean;
  readonly requireSystemGroup: boolean;
  /** When set, the only system groups allowed. */
  readonly allowedSystemGroups?: readonly SystemGroupName[];
  readonly default: SystemGroupName | 'creator';
}

const rule = (
  allowEveryone: boolean,
  def: SettingRule['default'],
  more: Partial<SettingRule> = {},
): SettingRule => ({
  allowNobody: true,
  allowEveryone,
  allowInternet: false,
  allowOwners: true,
  requireSystemGroup: false,
  default: def,
  ...more,
});

export const CHANNEL_SETTING_RULES: Readonly<Record<ChannelGroupSettingName, SettingRule>> = {
  can_add_subscribers_group: rule(false, 'role:nobody'),
  can_administer_channel_group: rule(false, 'creator'),
  can_create_topic_group: rule(true, 'role:everyone'),
  can_delete_any_message_group: rule(true, 'role:nobody'),
  can_delete_own_message_group: rule(true, 'role:nobody'),
  can_move_messages_out_of_channel_group: rule(true, 'role:nobody'),
  can_move_messages_within_channel_group: rule(true, 'role:nobody'),
  can_remove_subscribers_group: rule(true, 'role:administrators'),
  can_resolve_topics_group: rule(true, 'role:nobody'),
  can_send_message_group: rule(true, 'role:everyone'),
  can_subscribe_group: rule(false, 'role:nobody'),
};

export const USER_GROUP_SETTING_RULES: Readonly<Record<UserGroupSettingName, SettingRule>> = {
  can_add_members_group: rule(false, 'creator'),
  can_join_group: rule(false, 'role:nobody'),
  can_leave_group: rule(true, 'role:everyone'),
  can_manage_group: rule(false, 'creator'),
  can_mention_group: rule(true, 'role:everyone', { allowOwners: false }),
  can_remove_members_group: rule(false, 'role:nobody'),
};

/** Realm settings: which of them refuse everyone / nobody (Zulip's `Realm.REALM_PERMISSION_GROUP_SETTINGS`). */
export const REALM_SETTING_RULES: Readonly<Record<RealmGroupSettingName, SettingRule>> = {
  can_access_all_users_group: rule(true, 'role:everyone', {
    allowNobody: false,
    requireSystemGroup: true,
    allowedSystemGroups: ['role:everyone', 'role:members'],
  }),
  can_add_custom_emoji_group: rule(false, 'role:members'),
  can_add_subscribers_group: rule(false, 'role:members'),
  can_create_bots_group: rule(false, 'role:members'),
  can_create_groups: rule(false, 'role:members'),
  can_create_private_channel_group: rule(false, 'role:members'),
  can_create_public_channel_group: rule(false, 'role:members'),
  can_create_web_public_channel_group: rule(false, 'role:owners', {
    requireSystemGroup: true,
    allowedSystemGroups: ['role:moderators', 'role:administrators', 'role:owners', 'role:nobody'],
  }),
  can_create_write_only_bots_group: rule(false, 'role:members'),
  can_delete_any_message_group: rule(true, 'role:administrators'),
  can_delete_own_message_group: rule(true, 'role:everyone'),
  can_invite_users_group: rule(false, 'role:members'),
  can_manage_all_groups: rule(false, 'role:owners', { allowNobody: false }),
  can_manage_billing_group: rule(false, 'role:administrators'),
  can_mention_many_users_group: rule(true, 'role:administrators'),
  can_move_messages_between_channels_group: rule(true, 'role:members'),
  can_move_messages_between_topics_group: rule(true, 'role:everyone'),
  can_resolve_topics_group: rule(true, 'role:everyone'),
  can_set_delete_message_policy_group: rule(false, 'role:moderators'),
  can_set_topics_policy_group: rule(false, 'role:moderators'),
  can_summarize_topics_group: rule(true, 'role:everyone'),
  create_multiuse_invite_group: rule(false, 'role:administrators'),
  direct_message_initiator_group: rule(true, 'role:everyone'),
  direct_message_permission_group: rule(true, 'role:everyone'),
};

/**
 * Whether a user holds a permission: member of the value, and not a guest when the setting
 * refuses `role:everyone` (Zulip: guests never get such permissions, even as explicit members).
 */
export function hasPermission(
  state: RealmState,
  user: User,
  rule: SettingRule,
  value: GroupSettingValue,
): boolean {
  if (!rule.allowEveryone && isGuest(user)) return false;
  return isUserInSettingValue(state, user, value);
}

/** A realm-level permission of the user. */
export function hasRealmPermission(state: RealmState, user: User, setting: RealmGroupSettingName): boolean {
  return hasPermission(state, user, REALM_SETTING_RULES[setting], state.realm[setting]);
}
