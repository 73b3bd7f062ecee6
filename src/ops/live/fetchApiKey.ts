import * as z from 'zod/mini';
import { zulipError } from '../../core/errors';
import { userIdByDeliveryEmail } from '../../core/indexes/user-indexes';
import { defineOperation } from '../../core/operation';
import { rawParam } from '../../core/params';
import { hasherOf } from '../../core/passwords';
import { failure, success } from '../../core/result';

/** Django's `validate_email`, in the part a login name can get wrong here: `local@domain.tld`. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/u;

/**
 * POST /api/v1/fetch_api_key — https://zulip.com/api/fetch-api-key
 *
 * Password login (Zulip's `api_fetch_api_key` with the email backend): the user's API key for their
 * delivery email and password. Credentials sent with the request are never read. Zulip's checks in
 * its order: a login name that is not an email ("Enter a valid email address."); password login
 * disabled for the realm (PASSWORD_AUTH_DISABLED); an empty password, an unknown email or a bot
 * (bots have no usable password in Zulip) are AUTHENTICATION_FAILED; a deactivated realm or user is
 * REALM_DEACTIVATED / USER_DEACTIVATED before the password is checked; then the password.
 *
 * The password is checked by the context's hasher (`ctx.passwords.verify`, by default the scrypt
 * `defaultPasswordHasher`): the operation stays pure, the host lends it the verifier, and a user
 * without a stored hash can never log in with a password. Not modelled: rate limits, LDAP, the
 * new-login email. Reads only: the state is never changed, so nothing is stored.
 *
 * @example
 * ```ts
 * const r = fetchApiKey(realm, { anonymous: true }, { username: 'hamlet@zulip.com', password: 'secret' });
 * expect(r.body).toMatchObject({ result: 'error', code: 'AUTHENTICATION_FAILED' });
 * ```
 */
export const fetchApiKey = defineOperation({
  name: 'fetchApiKey',
  method: 'POST',
  path: '/fetch_api_key',
  operationId: 'fetch-api-key',
  allowAnonymous: true,
  ignoresCredentials: true,
  reportsIgnored: false,
  params: [
    rawParam('username', z.string(), { required: true }),
    rawParam('password', z.string(), { required: true }),
  ],
  handler: ({ state, params, ctx }) => {
    const failed = zulipError('Your username or password is incorrect', 'AUTHENTICATION_FAILED', 401);
    const username = params.username.trim();
    if (!EMAIL.test(username)) return failure(state, zulipError('Enter a valid email address.'));
    if (!state.realm.password_auth_enabled)
      return failure(
        state,
        zulipError(
          'Password authentication is disabled in this organization.',
          'PASSWORD_AUTH_DISABLED',
          401,
        ),
      );
    if (params.password === '') return failure(state, failed);
    const id = userIdByDeliveryEmail(state, username);
    const user = id === undefined ? undefined : state.users.get(id);
    if (user === undefined) return failure(state, failed);
    if (state.realm.deactivated)
      return failure(state, zulipError('This organization has been deactivated', 'REALM_DEACTIVATED', 401));
    if (!user.is_active) return failure(state, zulipError('Account is deactivated', 'USER_DEACTIVATED', 401));
    if (user.is_bot || user.password_hash === null) return failure(state, failed);
    if (!hasherOf(ctx).verify(params.password, user.password_hash)) return failure(state, failed);
    return success(state, {
      data: { api_key: user.api_key, email: user.delivery_email, user_id: user.user_id },
    });
  },
});
