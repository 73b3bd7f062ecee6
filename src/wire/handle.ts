import type { OpContext } from '../core/context';
import { errors } from '../core/errors';
import { invoke } from '../core/operation';
import { failure, type OpResult } from '../core/result';
import { decodePercentOrRaw } from '../core/url';
import type { RealmState } from '../core/state';
import { clientFromUserAgent } from '../core/messages/client-names';
import { authenticate } from './auth';
import { forEachFormField, setField } from './form';
import { matchRoute } from './routes';

export interface ApiRequest {
  /** "GET" | "POST" | "PATCH" | "DELETE" ... */
  readonly method: string;
  /** Path and query, e.g. "/api/v1/users?include_custom_profile_fields=true". */
  readonly url: string;
  /** Case-insensitive names; "authorization: Basic base64(email:api_key)". */
  readonly headers?: Readonly<Record<string, string>>;
  /** An application/x-www-form-urlencoded string, or fields a host already parsed (multipart). */
  readonly body?: string | Readonly<Record<string, string>>;
  /**
   * Aborted by the server when the client went away: a long-poll (GET /events) then stops
   * waiting at once instead of holding its queue until the next event or heartbeat.
   */
  readonly signal?: AbortSignal;
}

const PREFIX = '/api/v1';

/**
 * Everything a Zulip server does between the socket and the operation, as a pure function:
 * routing, 404/405, HTTP Basic authentication, parameters from the query string and the form body
 * (the body wins), and the call in wire mode (JSON-typed parameters decoded by the operation's
 * parser, in its order, after its permission decorators).
 *
 * @example
 * ```ts
 * const r = handleApiRequest(realm, {
 *   method: 'PATCH',
 *   url: '/api/v1/streams/1',
 *   headers: { authorization: basicAuthHeader('iago@zulip.com', 'iagoKKKKKKKKKKKKKKKKKKKKKKApiKey') },
 *   body: 'description=New&is_private=false', // form fields; JSON-typed ones JSON-encoded
 * }, { now });
 * expect(r.status).toBe(200);
 * expect(r.state.channels.get(1)?.description).toBe('New');
 * ```
 */
export function handleApiRequest(state: RealmState, request: ApiRequest, ctx?: OpContext): OpResult {
  const method = String(request.method ?? '').toUpperCase();
  const { path, query } = splitUrl(String(request.url ?? ''));
  if (!path.startsWith(`${PREFIX}/`)) return failure(state, errors.notFound());
  const rest = path.slice(PREFIX.length);
  const match = matchRoute(method, rest.endsWith('/') ? rest.replace(/\/+$/, '') || '/' : rest);
  if (match.kind === 'not_found') return failure(state, errors.notFound());
  if (match.kind === 'wrong_method') return failure(state, errors.methodNotAllowed(match.allowed));

  const actor = match.op.def.ignoresCredentials
    ? ({ anonymous: true } as const)
    : authenticate(state, headerValue(request.headers, 'authorization'));
  if ('code' in actor) return failure(state, actor);
  // Zulip's `rest_dispatch` serves spectators only on /json paths: an /api request without
  // credentials gets its authentication error (MissingAuthenticationError → 401, Basic challenge),
  // whatever the operation allows a spectator; only views outside it (server_settings) answer.
  if ('anonymous' in actor && !match.op.def.unauthenticatedApi && !match.op.def.ignoresCredentials)
    return failure(state, errors.notLoggedIn());

  // A plain object (not a dictionary-mode one), a `__proto__` field included as an own field.
  const input: Record<string, unknown> = {};
  if (query !== '') forEachFormField(query, input, setField);
  const body = request.body;
  if (typeof body === 'string') {
    forEachFormField(body, input, setField);
  } else if (body !== undefined && body !== null && typeof body === 'object') {
    // Keys, not entries: no pair array per field (a stored request's fields come this way).
    const names = Object.keys(body);
    for (let i = 0; i < names.length; i++) {
      const k = names[i]!;
      setField(input, k, String(body[k]));
    }
  }
  // Zulip names every request's client (`parse_client`): its `client` field, else its User-Agent.
  // Only an operation that stores it (a send) is given one; others would list it as ignored.
  if (readsClient(match.op.def) && !Object.hasOwn(input, 'client'))
    setField(input, 'client', clientFromUserAgent(headerValue(request.headers, 'user-agent')));
  // Path parameters are the URL's: they override same-named form fields and are never "ignored".
  const pathParams = match.pathParams;
  const params = Object.keys(pathParams);
  for (let i = 0; i < params.length; i++) setField(input, params[i]!, pathParams[params[i]!]);
  return invoke(match.op.def, state, actor, input, ctx, 'wire');
}

const clientReaders = new WeakMap<object, boolean>();

/** Whether an operation reads a `client` parameter (decided once per operation). */
export function readsClient(def: { readonly params: ReadonlyArray<{ readonly name: string }> }): boolean {
  let reads = clientReaders.get(def);
  if (reads === undefined) clientReaders.set(def, (reads = def.params.some((p) => p.name === 'client')));
  return reads;
}

/** The decoded path and the raw query (without `?`). Runs on every request: no work it can skip. */
function splitUrl(url: string): { path: string; query: string } {
  const q = url.indexOf('?');
  return { path: decodedPath(q < 0 ? url : url.slice(0, q)), query: q < 0 ? '' : url.slice(q + 1) };
}

/** A request's path percent-decoded (raw when malformed), without the scheme and host of an absolute URL. */
export function decodedPath(rawPath: string): string {
  const path = decodePercentOrRaw(rawPath);
  // Hosts may pass absolute URLs; keep only the path.
  return path.startsWith('/') ? path : path.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '');
}

/**
 * The value of header `name` (lower-case) in a request's headers, whatever case they spell it in:
 * the first that matches. The one lookup every layer uses (wire, handle, live queues, leases).
 */
export function headerValue(
  headers: Readonly<Record<string, string>> | undefined,
  name: string,
): string | undefined {
  if (!headers) return undefined;
  // Runs on every request: `for … in` walks the names without making an array of them (inherited
  // names are skipped, as `Object.keys` skipped them).
  for (const k in headers) if (k.toLowerCase() === name && Object.hasOwn(headers, k)) return headers[k];
  return undefined;
}
