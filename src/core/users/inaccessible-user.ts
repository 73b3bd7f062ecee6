import type { RealmState } from '../state';
import { fakeEmailDomain, type ApiUser } from './format';

/** The placeholder has every user field but `is_imported_stub` (Zulip's omits it too). */
export type InaccessibleUser = Omit<ApiUser, 'is_imported_stub'>;

/** Zulip's `UserProfile.INACCESSIBLE_USER_NAME`. */
export const INACCESSIBLE_USER_NAME = 'Unknown user';

/**
 * Zulip's `get_avatar_for_inaccessible_user()`: `staticfiles_storage.url("images/unknown-user-avatar.png")`.
 * A production server's static storage adds a content hash to the file name; we give the plain path.
 */
export const INACCESSIBLE_USER_AVATAR_URL = '/static/images/unknown-user-avatar.png';

/**
 * The "Unknown user" record Zulip lists for a user the viewer cannot access
 * (`zerver/lib/users.py` `get_data_for_inaccessible_user`): only `user_id` (and the fake email
 * built from it) varies; the rest is fixed placeholder data, `is_active: true` and a 1970
 * `date_joined` included, whatever the real user is.
 */
export function inaccessibleUserRecord(state: RealmState, userId: number): InaccessibleUser {
  return {
    email: `user${userId}@${fakeEmailDomain(state)}`,
    user_id: userId,
    avatar_version: 1,
    is_admin: false,
    is_owner: false,
    is_guest: false,
    role: 400,
    is_bot: false,
    full_name: INACCESSIBLE_USER_NAME,
    timezone: '',
    is_active: true,
    date_joined: '1970-01-01T00:00:00+00:00',
    delivery_email: null,
    avatar_url: INACCESSIBLE_USER_AVATAR_URL,
    profile_data: {},
  };
}

/** The placeholder as register lists it: without `is_active` (it sits in `realm_users`), one literal. */
export function inaccessibleListedUser(
  state: RealmState,
  userId: number,
): Omit<InaccessibleUser, 'is_active'> {
  return {
    email: `user${userId}@${fakeEmailDomain(state)}`,
    user_id: userId,
    avatar_version: 1,
    is_admin: false,
    is_owner: false,
    is_guest: false,
    role: 400,
    is_bot: false,
    full_name: INACCESSIBLE_USER_NAME,
    timezone: '',
    date_joined: '1970-01-01T00:00:00+00:00',
    delivery_email: null,
    avatar_url: INACCESSIBLE_USER_AVATAR_URL,
    profile_data: {},
  };
}
