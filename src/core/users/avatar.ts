import { md5Hex } from '../md5';
import type { User } from '../model/records';

/**
 * Zulip's `avatar_url(user)` for the cases the engine can build. Gravatar avatars are addressed by
 * the MD5 of the lower-cased delivery email. Uploaded avatars live under a path Zulip derives from
 * a server secret (`AVATAR_SALT`), which the engine does not have: it uses the user id instead.
 */
export function avatarUrl(realmId: number, user: User, medium = false): string {
  if (user.avatar_source === 'G') {
    const size = medium ? '&s=500' : '';
    return `https://secure.gravatar.com/avatar/${md5Hex(user.delivery_email.toLowerCase())}?d=identicon${size}&version=${user.avatar_version}`;
  }
  return `/user_avatars/${realmId}/${user.user_id}${medium ? '-medium' : ''}.png?version=${user.avatar_version}`;
}
