import type { User, UserStatus } from '../model/records';
import { canAccessUser } from '../permissions/user-access';
import type { RealmState } from '../state';

/** No status: what a user without a row has. */
export const NO_STATUS: UserStatus = Object.freeze({
  status_text: '',
  emoji_name: '',
  emoji_code: '',
  reaction_type: 'unicode_emoji',
  away: false,
});

/**
 * Zulip's `format_user_status`: only the parts that are set (`away` when true, the text when
 * non-empty, the emoji triple when an emoji is set).
 */
export function formatUserStatus(st: UserStatus): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  if (st.away) out['away'] = true;
  if (st.status_text !== '') out['status_text'] = st.status_text;
  if (st.emoji_name !== '') {
    out['emoji_name'] = st.emoji_name;
    out['emoji_code'] = st.emoji_code;
    out['reaction_type'] = st.reaction_type;
  }
  return out;
}

/**
 * Register's `user_status` (Zulip's `get_all_users_status_dict`): active users with a status the
 * viewer can access, keyed by id as a string. Costs the number of statuses, not of users.
 */
export function userStatusDict(
  state: RealmState,
  viewer: User,
): Record<string, Record<string, string | boolean>> {
  const out: Record<string, Record<string, string | boolean>> = {};
  for (const [userId, st] of state.userStatuses) {
    const target = state.users.get(userId);
    if (target === undefined || !target.is_active || !canAccessUser(state, viewer, target)) continue;
    const formatted = formatUserStatus(st);
    if (Object.keys(formatted).length > 0) out[String(userId)] = formatted;
  }
  return out;
}
