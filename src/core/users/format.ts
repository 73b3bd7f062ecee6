import { memoText } from '../text/memo';
import { md5Hex } from '../md5';
import { Role, type User } from '../model/records';
import { isRealmAdmin } from '../permissions/roles';
import { sha256Hex } from '../sha256';
import type { RealmState } from '../state';
import { profileDataFor, type ProfileDataValue } from './custom-profile-fields';
import { canonicalizeTimezone } from './timezones';

/**
 * Zulip's user record for the API (`format_user_row`), shared by GET /users, GET /users/me and the
 * events that carry whole users. `viewer` null is a spectator (public access).
 */
export interface FormatUserOptions {
  /** Leave `avatar_url` null for gravatar users whose email is visible to everyone. */
  readonly clientGravatar: boolean;
  /** Add `profile_data` to humans (never for spectators). */
  readonly includeCustomProfileFields: boolean;
}

export interface ApiUser {
  readonly email: string;
  readonly user_id: number;
  readonly avatar_version: number;
  readonly is_admin: boolean;
  readonly is_owner: boolean;
  readonly is_guest: boolean;
  readonly role: number;
  readonly is_bot: boolean;
  readonly full_name: string;
  readonly timezone?: string;
  readonly is_active: boolean;
  readonly date_joined: string;
  readonly delivery_email: string | null;
  readonly is_imported_stub: boolean;
  readonly avatar_url: string | null;
  readonly bot_type?: number | null;
  readonly bot_owner_id?: number | null;
  readonly profile_data?: Record<string, ProfileDataValue>;
}

/** `email_address_visibility` values. */
export const EmailVisibility = { everyone: 1, members: 2, admins: 3, nobody: 4, moderators: 5 } as const;

/** The visibility values under which each role sees a target's real address. */
const DELIVERY_EMAIL_VISIBLE: Readonly<Record<number, readonly number[]>> = {
  [Role.owner]: [1, 2, 3, 5],
  [Role.administrator]: [1, 2, 3, 5],
  [Role.moderator]: [1, 2, 5],
  [Role.member]: [1, 2],
  [Role.guest]: [1],
};

export const emailVisibility = (u: User): number => u.settings.email_address_visibility;

/**
 * The domain of fake API emails. Zulip uses the realm's host when `bot@host` is a valid address,
 * else the server's FAKE_EMAIL_DOMAIN; we take the host of the realm's URL without its port.
 */
export function fakeEmailDomain(state: RealmState): string {
  return /^[a-z][a-z0-9+.-]*:\/\/([^/:?#]+)/i.exec(state.realm.uri)?.[1]?.toLowerCase() ?? 'zulip.invalid';
}

/**
 * The API email: the real address when visible to everyone; otherwise `user{id}@{fake domain}`
 * (or the stored API email when the snapshot already holds a distinct one).
 */
export function apiEmail(state: RealmState, u: User): string {
  if (emailVisibility(u) === EmailVisibility.everyone) return u.email;
  if (u.email.toLowerCase() !== u.delivery_email.toLowerCase()) return u.email;
  return `user${u.user_id}@${fakeEmailDomain(state)}`;
}

/** Whether `viewer` may see `target`'s real address (themselves always; spectators never). */
export function canSeeDeliveryEmail(viewer: User | null, target: User): boolean {
  if (viewer === null) return false;
  if (viewer.user_id === target.user_id) return true;
  return (DELIVERY_EMAIL_VISIBLE[viewer.role] ?? []).includes(emailVisibility(target));
}

/**
 * Zulip's avatar URL with its `version` query. Gravatar: the MD5 of the lower-cased real address.
 * Uploaded: the local upload backend's `/user_avatars/{realm id}/{hash}.png`, where Zulip's hash
 * uses a secret salt; ours is the first 40 hex digits of SHA-256("{user id}:{version}:chat-realm"),
 * stable and unguessable-looking but not Zulip's value.
 */
/** Avatar hashes, remembered (every read of a user builds its avatar URL). */
const gravatarHash = memoText(md5Hex, 16384);
const uploadedHash = memoText((key) => sha256Hex(key).slice(0, 40), 16384);

export function avatarUrl(state: RealmState, u: User, clientGravatar: boolean): string | null {
  if (u.avatar_source === 'G') {
    if (clientGravatar && emailVisibility(u) === EmailVisibility.everyone) return null;
    const hash = gravatarHash(u.delivery_email.toLowerCase());
    return `https://secure.gravatar.com/avatar/${hash}?d=identicon&version=${u.avatar_version}`;
  }
  const hash = uploadedHash(`${u.user_id}:${u.avatar_version}:chat-realm`);
  return `/user_avatars/${state.realm.id}/${hash}.png?version=${u.avatar_version}`;
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * `date_joined` at minute precision in UTC (`2025-01-01T10:00+00:00`), or the date alone for
 * spectators. A stored value that does not parse is passed through.
 */
export function formatDateJoined(iso: string, dateOnly: boolean): string {
  return dateOnly ? joinedDay(iso) : joinedMinute(iso);
}

/** `date_joined` parsed and formatted once per stored value (every read of a user shows it). */
const joinedMinute = memoText((iso) => formatJoined(iso, false), 16384);
const joinedDay = memoText((iso) => formatJoined(iso, true), 16384);

function formatJoined(iso: string, dateOnly: boolean): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const d = new Date(t);
  const day = `${String(d.getUTCFullYear()).padStart(4, '0')}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  return dateOnly ? day : `${day}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}+00:00`;
}

export function formatUser(
  state: RealmState,
  viewer: User | null,
  target: User,
  opts: FormatUserOptions,
): ApiUser {
  const spectator = viewer === null;
  const base: ApiUser = {
    email: apiEmail(state, target),
    user_id: target.user_id,
    avatar_version: target.avatar_version,
    is_admin: isRealmAdmin(target),
    is_owner: target.role === Role.owner,
    is_guest: target.role === Role.guest,
    role: target.role,
    is_bot: target.is_bot,
    full_name: target.full_name,
    ...(spectator ? {} : { timezone: canonicalizeTimezone(target.timezone) }),
    is_active: target.is_active,
    date_joined: formatDateJoined(target.date_joined, spectator),
    delivery_email: canSeeDeliveryEmail(viewer, target) ? target.delivery_email : null,
    is_imported_stub: target.is_imported_stub,
    avatar_url: avatarUrl(state, target, opts.clientGravatar),
  };
  if (target.is_bot) return { ...base, bot_type: target.bot_type, bot_owner_id: target.bot_owner_id };
  // Spectators never receive custom profile field values, whatever they ask for.
  if (opts.includeCustomProfileFields && !spectator)
    return { ...base, profile_data: profileDataFor(state, target) };
  return base;
}

/** Zulip's medium-size avatar: `&s=500` for Gravatar, a `-medium` file for uploads. */
export function mediumAvatarUrl(url: string): string {
  return url.startsWith('https://secure.gravatar.com/')
    ? url.replace('&version=', '&s=500&version=')
    : url.replace('.png?', '-medium.png?');
}

type RegisterUser = Omit<ApiUser, 'is_active'>;

/**
 * A target's register dicts, valid while the realm settings (the fake email domain and the realm
 * id in avatar URLs) and the custom profile fields are these objects: the four variants are
 * (client_gravatar, the viewer may see the real address). Nothing else a dict shows comes from
 * outside the immutable user record.
 */
interface RegisterUserEntry {
  readonly realm: RealmState['realm'];
  readonly fields: RealmState['customProfileFields'];
  readonly dicts: Array<RegisterUser | undefined>;
}

/**
 * Register's user dicts by user record (Zulip caches its realm's user dicts too): a register lists
 * every user of the organization, and most of what it spent on them was rebuilding the same dicts
 * for every client. Keyed weakly by the immutable record, so a changed user is rebuilt and a
 * dropped one forgotten; the dicts are frozen, so a caller writing to an answer cannot change
 * another's.
 */
const registerUserDicts = new WeakMap<User, RegisterUserEntry>();

/**
 * A user of register's `realm_users` / `realm_non_active_users` lists: `formatUser` for a logged-in
 * viewer with profile data, without `is_active` (the list tells it), same keys in the same order.
 * Read-only (frozen, and shared between answers: see `registerUserDicts`).
 */
export function registerUserDict(
  state: RealmState,
  viewer: User,
  target: User,
  clientGravatar: boolean,
): RegisterUser {
  const variant = (clientGravatar ? 1 : 0) | (canSeeDeliveryEmail(viewer, target) ? 2 : 0);
  let entry = registerUserDicts.get(target);
  if (entry === undefined || entry.realm !== state.realm || entry.fields !== state.customProfileFields) {
    entry = {
      realm: state.realm,
      fields: state.customProfileFields,
      dicts: [undefined, undefined, undefined, undefined],
    };
    registerUserDicts.set(target, entry);
  }
  return (entry.dicts[variant] ??= buildRegisterUserDict(state, target, clientGravatar, (variant & 2) !== 0));
}

/**
 * Built as one object literal per shape: a spread followed by `delete` would leave every user
 * dict in V8's slow dictionary mode, slower to build and to serialize.
 */
function buildRegisterUserDict(
  state: RealmState,
  target: User,
  clientGravatar: boolean,
  deliveryVisible: boolean,
): RegisterUser {
  const email = apiEmail(state, target);
  const isAdmin = isRealmAdmin(target);
  const timezone = canonicalizeTimezone(target.timezone);
  const dateJoined = formatDateJoined(target.date_joined, false);
  const deliveryEmail = deliveryVisible ? target.delivery_email : null;
  const avatar = avatarUrl(state, target, clientGravatar);
  if (target.is_bot)
    return Object.freeze({
      email,
      user_id: target.user_id,
      avatar_version: target.avatar_version,
      is_admin: isAdmin,
      is_owner: target.role === Role.owner,
      is_guest: target.role === Role.guest,
      role: target.role,
      is_bot: true,
      full_name: target.full_name,
      timezone,
      date_joined: dateJoined,
      delivery_email: deliveryEmail,
      is_imported_stub: target.is_imported_stub,
      avatar_url: avatar,
      bot_type: target.bot_type,
      bot_owner_id: target.bot_owner_id,
    });
  const profileData = profileDataFor(state, target);
  for (const key in profileData) Object.freeze(profileData[key]);
  return Object.freeze({
    email,
    user_id: target.user_id,
    avatar_version: target.avatar_version,
    is_admin: isAdmin,
    is_owner: target.role === Role.owner,
    is_guest: target.role === Role.guest,
    role: target.role,
    is_bot: false,
    full_name: target.full_name,
    timezone,
    date_joined: dateJoined,
    delivery_email: deliveryEmail,
    is_imported_stub: target.is_imported_stub,
    avatar_url: avatar,
    profile_data: Object.freeze(profileData),
  });
}
