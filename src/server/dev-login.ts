/**
 * Zulip's development login (zerver/views/development/dev_login.py), for `serve --dev-login` only:
 * `GET /api/v1/dev_list_users` lists who one may log in as, `POST /api/v1/dev_fetch_api_key` answers
 * anyone's API key without a password, and `GET /api/v1/server_settings` then advertises
 * `authentication_methods.dev`. Never on unless a host wraps its handler with `withDevLogin`: it
 * hands out every key to whoever asks, as Zulip's does on its development servers.
 */
import { zulipError, type ZulipError } from '../core/errors';
import { userIdByDeliveryEmail } from '../core/indexes/user-indexes';
import { isRealmAdmin } from '../core/permissions/roles';
import type { RealmState } from '../core/state';
import { compareCodePoints } from '../core/text/code-points';
import type { FetchHandler } from './types';

type Answer = { readonly status: number; readonly body: Record<string, unknown> };

const ok = (data: Record<string, unknown>): Answer => ({
  status: 200,
  body: { result: 'success', msg: '', ...data },
});
const refused = (e: ZulipError): Answer => ({
  status: e.status,
  body: { result: 'error', msg: e.msg, code: e.code },
});

/**
 * `api_dev_list_users`: the active humans by delivery email, administrators (owners included) in
 * `direct_admins`, everyone else in `direct_users`, each as `{ email, realm_uri }`.
 */
export function devListUsers(state: RealmState): Answer {
  const humans = [...state.users.values()]
    .filter((u) => u.is_active && !u.is_bot)
    .sort((a, b) => compareCodePoints(a.delivery_email, b.delivery_email));
  const entry = (u: (typeof humans)[number]) => ({ email: u.delivery_email, realm_uri: state.realm.uri });
  return ok({
    direct_admins: humans.filter(isRealmAdmin).map(entry),
    direct_users: humans.filter((u) => !isRealmAdmin(u)).map(entry),
  });
}

/** Django's `validate_email`, in the part a login name can get wrong here. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/u;

/**
 * `api_dev_fetch_api_key`: the API key of the user with that delivery email, no password asked.
 * Zulip's order: an invalid email; a deactivated organization; a deactivated user; no such user
 * (AUTHENTICATION_FAILED, as for a wrong password).
 */
export function devFetchApiKey(state: RealmState, username: string | undefined): Answer {
  if (username === undefined) return refused(zulipError("Missing 'username' argument"));
  if (!EMAIL.test(username.trim())) return refused(zulipError('Enter a valid email address.'));
  const id = userIdByDeliveryEmail(state, username.trim());
  const user = id === undefined ? undefined : state.users.get(id);
  if (user !== undefined && state.realm.deactivated)
    return refused(zulipError('This organization has been deactivated', 'REALM_DEACTIVATED', 401));
  if (user !== undefined && !user.is_active)
    return refused(zulipError('Account is deactivated', 'USER_DEACTIVATED', 401));
  if (user === undefined)
    return refused(zulipError('Your username or password is incorrect', 'AUTHENTICATION_FAILED', 401));
  return ok({ api_key: user.api_key, email: user.delivery_email, user_id: user.user_id });
}

function json(answer: Answer): Response {
  return new Response(JSON.stringify(answer.body), {
    status: answer.status,
    headers: { 'content-type': 'application/json' },
  });
}

/**
 * Wraps a Fetch handler with the development login: the two dev routes answered from the realm's
 * current state, and `authentication_methods.dev: true` in GET /server_settings.
 */
export function withDevLogin(handler: FetchHandler, state: () => RealmState): FetchHandler {
  return async (request) => {
    const url = new URL(request.url);
    const method = request.method.toUpperCase();
    if (url.pathname === '/api/v1/dev_list_users' && method === 'GET') return json(devListUsers(state()));
    if (url.pathname === '/api/v1/dev_fetch_api_key' && method === 'POST') {
      const form = new URLSearchParams(await request.text());
      const username = form.get('username') ?? url.searchParams.get('username') ?? undefined;
      return json(devFetchApiKey(state(), username));
    }
    const response = await handler(request);
    if (url.pathname !== '/api/v1/server_settings' || response.status !== 200) return response;
    const body = (await response.json()) as { authentication_methods?: Record<string, boolean> };
    if (body.authentication_methods) body.authentication_methods['dev'] = true;
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    return new Response(JSON.stringify(body), { status: 200, headers });
  };
}
