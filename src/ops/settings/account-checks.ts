import { errors, zulipError, type ZulipError } from '../../core/errors';
import type { ResolvedContext } from '../../core/context';
import { hasherOf } from '../../core/passwords';
import { foldFullName, userIdsByFoldedName } from '../../core/indexes/user-indexes';
import type { User } from '../../core/model/records';
import { codePointLength } from '../../core/params';
import { isRealmAdmin } from '../../core/permissions/roles';
import type { RealmState } from '../../core/state';
import { pythonStrip } from '../../core/text/whitespace';
import { isValidEmailSyntax, userByDeliveryEmail } from '../../core/users/email';

/**
 * The account fields PATCH /settings edits besides settings: the password, the email address and
 * the full name. Each check returns what to change (or nothing), or Zulip's error.
 */

/** Zulip's `UserProfile.MAX_NAME_LENGTH` and `NAME_INVALID_CHARS`. */
const MAX_NAME_LENGTH = 100;
const NAME_INVALID_CHARS = /[*`\\>"@]/;
/** Python's `check_string_is_printable`: control, surrogate and unassigned code points. */
const NOT_PRINTABLE = /[\p{Cc}\p{Cs}\p{Cn}]/u;

/** Zulip's `PASSWORD_MIN_LENGTH` default. */
const PASSWORD_MIN_LENGTH = 6;

/** The new password hash, or undefined when no password change was asked for. */
export function checkPasswordChange(
  state: RealmState,
  user: User,
  oldPassword: string | undefined,
  newPassword: string | undefined,
  ctx: ResolvedContext,
): { hash: string } | ZulipError | undefined {
  if (newPassword === undefined) return undefined;
  // Django's authenticate() fails, and Zulip answers "Wrong password!", when the old password is
  // missing, when the realm has password authentication turned off (the email backend refuses
  // before checking), and when the account has no usable password.
  const authenticated =
    oldPassword !== undefined &&
    state.realm.password_auth_enabled &&
    user.password_hash !== null &&
    hasherOf(ctx).verify(oldPassword, user.password_hash);
  if (!authenticated) return errors.badRequest('Wrong password!');
  if (!isStrongPassword(newPassword)) return errors.badRequest('New password is too weak!');
  return { hash: hasherOf(ctx).hash(newPassword, ctx.random) };
}

/**
 * Zulip's `check_password_strength`: at least PASSWORD_MIN_LENGTH characters and, by zxcvbn, at
 * least 10000 guesses. zxcvbn is not available here; a password made of one repeated character or
 * of a run of consecutive characters (`abcdef`, `654321`) stands in for its weakest class.
 */
export function isStrongPassword(password: string): boolean {
  const chars = [...password];
  if (chars.length < PASSWORD_MIN_LENGTH) return false;
  const codes = chars.map((c) => c.codePointAt(0)!);
  const step = codes[1]! - codes[0]!;
  if (Math.abs(step) <= 1 && codes.every((c, i) => i === 0 || c - codes[i - 1]! === step)) return false;
  return true;
}

/**
 * The new address whose confirmation to start, or undefined when there is nothing to do (no
 * `email`, or the current delivery address, compared exactly after stripping).
 */
export function checkEmailChange(
  state: RealmState,
  user: User,
  email: string | undefined,
): { newEmail: string } | ZulipError | undefined {
  if (email === undefined) return undefined;
  const newEmail = pythonStrip(email);
  if (newEmail === user.delivery_email) return undefined;
  if (state.realm.email_changes_disabled && !isRealmAdmin(user)) {
    return errors.badRequest('Email address changes are disabled in this organization.');
  }
  if (!isValidEmailSyntax(newEmail)) return errors.badRequest('Invalid address.');
  const holder = userByDeliveryEmail(state, newEmail);
  if (holder !== undefined)
    return errors.badRequest(holder.is_active ? 'Already has an account.' : 'Account has been deactivated.');
  return { newEmail };
}

/**
 * The name to store, or undefined when nothing changes: no `full_name`, the same raw value, a
 * realm that disallows name changes for a non-administrator (silently ignored), or a name that is
 * the current one once stripped.
 */
export function checkFullName(
  state: RealmState,
  user: User,
  raw: string | undefined,
): { name: string } | ZulipError | undefined {
  if (raw === undefined || raw === user.full_name) return undefined;
  if (state.realm.name_changes_disabled && !isRealmAdmin(user)) return undefined;
  const name = pythonStrip(raw);
  if (codePointLength(name) > MAX_NAME_LENGTH) return zulipError('Name too long!');
  if (name.length === 0) return zulipError('Name must not be empty!');
  if (NOT_PRINTABLE.test(name) || NAME_INVALID_CHARS.test(name))
    return zulipError('Invalid characters in name!');
  // Checked on the raw value: `|15` followed by spaces passes, as in Zulip.
  if (/\|\p{Nd}+\n?$/u.test(raw)) return zulipError('Invalid format!');
  if (state.realm.require_unique_names) {
    // Any other user, active or not, bots included, whose name folds to the same string.
    if (userIdsByFoldedName(state, foldFullName(name)).some((id) => id !== user.user_id)) {
      return zulipError('Unique names required in this organization.');
    }
  }
  return name === user.full_name ? undefined : { name };
}
