/**
 * Change inputs: what the handle stores about a call or a wire request, and how an input runs on a
 * state, the same way for a live run and for a replay.
 */
import type { OpContext } from '../core/context';
import { runDecoded, type Actor, type AnyOperation } from '../core/operation';
import type { OpResult } from '../core/result';
import type { RealmState } from '../core/state';
import { basicAuthHeader } from '../wire/auth';
import { handleApiRequest, type ApiRequest } from '../wire/handle';
import { matchRoute } from '../wire/routes';
import type { ChangeInput } from './change';

/** The operations a handle runs and replays, by name. */
export type OperationsByName = ReadonlyMap<string, AnyOperation>;

/**
 * Runs `input` on `state`. `original` is the live request (with its headers); without it, as in a
 * replay, the request is rebuilt from the stored input.
 */
export function applyInput(
  ops: OperationsByName,
  state: RealmState,
  input: ChangeInput,
  ctx: OpContext,
  original?: ApiRequest,
): OpResult {
  if (input.kind === 'call') {
    const op = ops.get(input.op);
    if (!op) throw new Error(`unknown operation ${input.op}`);
    return runDecoded(op, state, input.actor, input.params, ctx);
  }
  let request: ApiRequest = original ?? {
    method: input.method,
    url: input.url,
    ...(input.body === undefined ? {} : { body: input.body }),
  };
  if (!original && 'userId' in input.actor) {
    // Present the credentials the actor had at this version (headers are never stored).
    const user = state.users.get(input.actor.userId);
    if (user)
      request = {
        ...request,
        headers: { authorization: basicAuthHeader(user.delivery_email, user.api_key) },
      };
  }
  return handleApiRequest(state, request, ctx);
}

/**
 * The stored form of an authenticated request: no headers, and only what a replay needs — the
 * path, and the parameters the operation declares (query and body merged as the wire layer merges
 * them, the body winning) as a fields object. Anything else in the request (unknown parameters,
 * which only ever add a name to `ignored_parameters_unsupported`) is not stored, so a request
 * padded up to the body limit stores no more than its meaningful part.
 */
export function requestInput(actor: Actor, request: ApiRequest): ChangeInput {
  const url = String(request.url);
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const declared = declaredParams(request.method, path);
  if (declared === undefined) {
    // No operation matches (a replay answers the same 404/405): keep the request as it was.
    return {
      kind: 'request',
      actor,
      method: request.method,
      url,
      ...(request.body === undefined
        ? {}
        : { body: typeof request.body === 'string' ? request.body : { ...request.body } }),
    };
  }
  const fields: Record<string, string> = {};
  const keep = (k: string, v: string) => {
    if (declared.has(k)) fields[k] = v;
  };
  if (q >= 0) for (const [k, v] of new URLSearchParams(url.slice(q + 1))) keep(k, v);
  const body = request.body;
  if (typeof body === 'string') for (const [k, v] of new URLSearchParams(body)) keep(k, v);
  else if (body !== undefined && body !== null) for (const [k, v] of Object.entries(body)) keep(k, String(v));
  return { kind: 'request', actor, method: request.method, url: path, body: fields };
}

/** The non-path parameter names of the operation a request reaches, or undefined for none. */
function declaredParams(method: string, rawPath: string): ReadonlySet<string> | undefined {
  let path = rawPath;
  try {
    path = decodeURIComponent(rawPath);
  } catch {
    // The wire layer routes the raw path then; so do we.
  }
  path = path.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '');
  if (!path.startsWith('/api/v1/')) return undefined;
  const match = matchRoute(String(method).toUpperCase(), path.slice(7).replace(/\/+$/, '') || '/');
  if (match.kind !== 'found') return undefined;
  const fromPath = new Set(match.op.def.pathParams ?? []);
  return new Set(match.op.def.params.map((p) => p.name).filter((name) => !fromPath.has(name)));
}

/** Only the fields a stored actor has, whatever else the caller's object carried. */
export function plainActor(actor: Actor): Actor {
  return 'anonymous' in actor ? { anonymous: true } : { userId: actor.userId };
}

export function headerOf(
  headers: Readonly<Record<string, string>> | undefined,
  name: string,
): string | undefined {
  if (!headers) return undefined;
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
}
