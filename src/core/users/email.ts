import { userIdByDeliveryEmail } from '../indexes/user-indexes';
import type { User } from '../model/records';
import type { RealmState } from '../state';

/**
 * Email addresses as Zulip's server handles them: Django's `validate_email` (the syntax check behind
 * "Invalid address.") and lookups by
 * delivery email (case-insensitive, as Zulip's indexes on `upper(delivery_email)`).
 * The fake public address of hidden emails is in `format.ts`.
 */

/** Django's `EmailValidator.user_regex`: a dot-atom or a quoted string (which may hold control characters). */
const USER_PART =
  // eslint-disable-next-line no-control-regex
  /^(?:[-!#$%&'*+/=?^_`{}|~0-9a-z]+(?:\.[-!#$%&'*+/=?^_`{}|~0-9a-z]+)*|"(?:[\u0001-\u0008\u000b\u000c\u000e-\u001f!#-[\]-\u007f]|\\[\u0001-\u0009\u000b\u000c\u000e-\u007f])*")$/i;
/** Django's `domain_regex` (after IDNA encoding): labels of letters, digits and inner hyphens, a TLD of 2..63. */
const DOMAIN_PART = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}(?<!-)$/i;
const IPV4 = /^\[(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\]$/;

/** Whether Django's `validate_email` accepts the address (IPv6 literals and IDNA domains approximated). */
export function isValidEmailSyntax(value: string): boolean {
  // Django refuses values over 320 characters and any with a line break.
  if (value.length === 0 || value.length > 320 || /[\r\n]/.test(value)) return false;
  const at = value.lastIndexOf('@');
  if (at <= 0) return false;
  const user = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (!USER_PART.test(user)) return false;
  if (domain === 'localhost') return true;
  if (DOMAIN_PART.test(domain) || IPV4.test(domain)) return true;
  // Django retries a non-ASCII domain in its IDNA form; any label of letters passes that check.
  if (/[^\p{ASCII}]/u.test(domain))
    return /^(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?\.)+[\p{L}]{2,63}$/u.test(domain);
  return false;
}

/** The user whose delivery email matches, ignoring case (Zulip's `get_user_by_delivery_email`): an index lookup. */
export function userByDeliveryEmail(state: RealmState, email: string): User | undefined {
  const id = userIdByDeliveryEmail(state, email);
  return id === undefined ? undefined : state.users.get(id);
}
