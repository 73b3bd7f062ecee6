import { botIds } from '../indexes/user-indexes';
import { Role, type User } from '../model/records';
import { isModerator, isRealmAdmin, isRealmOwner } from '../permissions/roles';
import { hasRealmPermission } from '../permissions/setting-rules';
import { canAccessUser, isUserAccessRestricted } from '../permissions/user-access';
import type { RealmState } from '../state';
import { crossRealmBots } from '../users/system-bots';
import { inaccessibleListedUser } from '../users/inaccessible-user';
import { apiEmail, avatarUrl, mediumAvatarUrl, registerUserDict } from '../users/format';
import { unrestrictedUserLists } from './user-lists';

type Dict = Record<string, unknown>;

/**
 * The `realm_user` state type (Zulip's `get_users_for_api` + `post_process_state`): every user the
 * viewer may access, split into active and deactivated lists without `is_active`, by id; for a
 * restricted guest the others appear as "Unknown user" unless the client has `user_list_incomplete`.
 * Also the viewer's own fields and permissions.
 */
export function realmUserSection(
  state: RealmState,
  me: User,
  opts: { readonly clientGravatar: boolean; readonly userListIncomplete: boolean },
): Dict {
  const { active, inactive } = isUserAccessRestricted(state, me)
    ? restrictedUserLists(state, me, opts)
    : unrestrictedUserLists(state, me, opts.clientGravatar);
  const canCreatePrivate = hasRealmPermission(state, me, 'can_create_private_channel_group');
  const canCreatePublic = hasRealmPermission(state, me, 'can_create_public_channel_group');
  const canCreateWebPublic = hasRealmPermission(state, me, 'can_create_web_public_channel_group');
  return {
    realm_users: active,
    realm_non_active_users: inactive,
    cross_realm_bots: crossRealmBots(state),
    avatar_source: me.avatar_source,
    avatar_url_medium: mediumAvatarUrl(avatarUrl(state, me, false) ?? ''),
    avatar_url: avatarUrl(state, me, false),
    can_create_private_streams: canCreatePrivate,
    can_create_public_streams: canCreatePublic,
    can_create_web_public_streams: canCreateWebPublic,
    can_create_streams: canCreatePrivate || canCreatePublic || canCreateWebPublic,
    can_subscribe_other_users: hasRealmPermission(state, me, 'can_add_subscribers_group'),
    can_invite_others_to_realm: hasRealmPermission(state, me, 'can_invite_users_group'),
    is_admin: isRealmAdmin(me),
    is_owner: isRealmOwner(me),
    is_moderator: isModerator(me),
    is_guest: me.role === Role.guest,
    user_id: me.user_id,
    email: apiEmail(state, me),
    delivery_email: me.delivery_email,
    full_name: me.full_name,
  };
}

/** The user lists for a guest who may not see everyone: each user checked against the viewer. */
function restrictedUserLists(
  state: RealmState,
  me: User,
  opts: { readonly clientGravatar: boolean; readonly userListIncomplete: boolean },
): { active: object[]; inactive: object[] } {
  const active: object[] = [];
  const inactive: object[] = [];
  // A callback walk, not `values()`: no iterator result per user.
  state.users.forEachValue((u) => {
    if (!canAccessUser(state, me, u)) {
      if (opts.userListIncomplete) return;
      // "Unknown user" placeholders are always active ones.
      active.push(inaccessibleListedUser(state, u.user_id));
      return;
    }
    (u.is_active ? active : inactive).push(registerUserDict(state, me, u, opts.clientGravatar));
  });
  return { active, inactive };
}

/** The `realm_bot` state type (Zulip's `get_owned_bot_dicts`): every bot for an admin, one's own otherwise. */
export function realmBots(state: RealmState, me: User): Dict[] {
  const out: Dict[] = [];
  for (const id of botIds(state).keys()) {
    const bot = state.users.get(id);
    if (bot === undefined || (!isRealmAdmin(me) && bot.bot_owner_id !== me.user_id)) continue;
    const owner = bot.bot_owner_id === null ? undefined : state.users.get(bot.bot_owner_id);
    out.push({
      email: apiEmail(state, bot),
      user_id: bot.user_id,
      full_name: bot.full_name,
      bot_type: bot.bot_type,
      is_active: bot.is_active,
      api_key: bot.api_key,
      default_sending_stream: null,
      default_events_register_stream: null,
      default_all_public_streams: false,
      avatar_url: avatarUrl(state, bot, false),
      owner_id: owner?.user_id ?? null,
      services: [],
    });
  }
  return out;
}
