import { errors, zulipError, type ZulipError } from '../core/errors';
import type { Actor } from '../core/operation';
import type { RealmState } from '../core/state';

/**
 * HTTP Basic authentication with the user's email and API key, in the order Zulip checks
 * (reference digest 8-20 §1.5). Every failure but a non-Basic scheme is a 401 UNAUTHORIZED.
 * No header at all gives the anonymous actor; operations that need a user refuse it themselves.
 */
export function authenticate(state: RealmState, header: string | undefined): Actor | ZulipError {
  if (header === undefined) return { anonymous: true };
  const parts = header.trim().split(/\s+/);
  if ((parts[0] ?? '').toLowerCase() !== 'basic') {
    return zulipError('This endpoint requires HTTP basic authentication.');
  }
  const invalidHeader = errors.unauthorized('Invalid authorization header for basic auth');
  if (parts.length !== 2) return invalidHeader;
  const decoded = decodeBase64Utf8(parts[1]!);
  if (decoded === undefined) return invalidHeader;
  const colon = decoded.split(':');
  if (colon.length !== 2) return invalidHeader;
  const username = colon[0]!.trim();
  const apiKey = colon[1]!.trim();
  if (!/^[A-Za-z0-9]{32}$/.test(apiKey)) return errors.unauthorized('Malformed API key');
  const userId = state.usersByApiKey.get(apiKey);
  const user = userId === undefined ? undefined : state.users.get(userId);
  if (user === undefined || user.delivery_email.toLowerCase() !== username.toLowerCase()) {
    return errors.unauthorized('Invalid API key');
  }
  if (state.realm.deactivated) return errors.unauthorized('This organization has been deactivated');
  if (!user.is_active) return errors.unauthorized('Account is deactivated');
  if (user.is_bot && user.bot_type === 2)
    return errors.unauthorized('This API is not available to incoming webhook bots.');
  return { userId: user.user_id };
}

function decodeBase64Utf8(text: string): string | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) return undefined;
  try {
    const binary = atob(text);
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * The header value a client sends for a user (handy for tests and examples).
 *
 * @example
 * ```ts
 * const authorization = basicAuthHeader('hamlet@zulip.com', 'hamletKKKKKKKKKKKKKKKKKKKKApiKey');
 * const r = handleApiRequest(realm, { method: 'GET', url: '/api/v1/users/me', headers: { authorization } }, { now });
 * expect(r.body).toMatchObject({ user_id: 4 });
 * ```
 */
export function basicAuthHeader(email: string, apiKey: string): string {
  const bytes = new TextEncoder().encode(`${email}:${apiKey}`);
  return `Basic ${btoa(String.fromCharCode(...bytes))}`;
}
