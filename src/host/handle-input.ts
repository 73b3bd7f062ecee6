/**
 * Change inputs: what the handle stores about a call or a wire request, and how an input runs on a
 * state, the same way for a live run and for a replay.
 */
import type { OpContext } from '../core/context';
import { runDecoded, type Actor, type AnyOperation } from '../core/operation';
import type { OpResult } from '../core/result';
import type { RealmState } from '../core/state';
import type { User } from '../core/model/records';
import { LIBRARY_CLIENT, clientFromUserAgent } from '../core/messages/client-names';
import { basicAuthHeader } from '../wire/auth';
import { forEachFormField, setField } from '../wire/form';
import { decodedPath, handleApiRequest, headerValue, readsClient, type ApiRequest } from '../wire/handle';
import { PathMemo } from '../wire/path-memo';
import { matchRoute } from '../wire/routes';
import type { ChangeInput } from './change';

/** The operations a handle runs and replays, by name. */
export type OperationsByName = ReadonlyMap<string, AnyOperation>;

/**
 * Runs `input` on `state`, the same way for a live run and for a replay: a wire request is rebuilt
 * from its stored form, with the credentials its actor had at this version (headers are never
 * stored). The live run executes the stored form too, so whatever the original request spelled
 * that the stored form leaves out cannot make the replay differ.
 */
export function applyInput(
  ops: OperationsByName,
  state: RealmState,
  input: ChangeInput,
  ctx: OpContext,
): OpResult {
  if (input.kind === 'call') {
    const op = ops.get(input.op);
    if (!op) throw new Error(`unknown operation ${input.op}`);
    return runDecoded(op, state, input.actor, input.params, ctx);
  }
  const user = 'userId' in input.actor ? state.users.get(input.actor.userId) : undefined;
  // One literal per case rather than spreads: this runs on every write.
  const headers = user === undefined ? undefined : { authorization: authorizationOf(user) };
  let body = input.body;
  // A send stored before clients were recorded (`requestInput` now always stores one) was made
  // with "API" as its client: without this, its replay would take "Unspecified" (no User-Agent).
  if (
    typeof body === 'object' &&
    body['client'] === undefined &&
    parameterNames(input.method, input.url)?.readsClient === true
  )
    body = { ...body, client: LIBRARY_CLIENT };
  let request: ApiRequest;
  if (headers === undefined)
    request =
      body === undefined
        ? { method: input.method, url: input.url }
        : { method: input.method, url: input.url, body };
  else
    request =
      body === undefined
        ? { method: input.method, url: input.url, headers }
        : { method: input.method, url: input.url, body, headers };
  return handleApiRequest(state, request, ctx);
}

/**
 * A user's Basic credentials, by user record: records are immutable, so a changed email or key is a
 * new record and a new header. Every stored request of a user rebuilds the same header, and the
 * wire layer's decoder then finds it by the same string.
 */
const authorizations = new WeakMap<User, string>();
function authorizationOf(user: User): string {
  let header = authorizations.get(user);
  if (header === undefined)
    authorizations.set(user, (header = basicAuthHeader(user.delivery_email, user.api_key)));
  return header;
}

/**
 * The stored form of an authenticated request, which is also what the live run executes (see
 * `RealmHandle`), so a replay sees exactly what the original run saw. No headers; the path (path
 * parameters are the URL's); and one fields object merging the query string and the body as the
 * wire layer merges them (the body winning, the last of a repeated name winning):
 *
 * - every parameter the operation reads, under the name it was sent as: its own name or its alias
 *   (`subject` for `topic`), with its wire text as sent (JSON or raw, unchanged);
 * - every other name with an empty value. Such a parameter is never read; only its *name* reaches
 *   the answer (`ignored_parameters_unsupported`), so its value is not kept and a request padded up
 *   to the body limit stores no more than its names.
 *
 * A request that matches no operation (a replay answers the same 404/405) is kept as it was; it
 * never changes the realm, so it is never stored anyway.
 */
export function requestInput(actor: Actor, request: ApiRequest): ChangeInput {
  const url = String(request.url);
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const names = parameterNames(request.method, path);
  if (names === undefined) {
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
  // A parameter named `__proto__` is a field like any other (as in the wire layer): `setField`.
  const fields: Record<string, string> = {};
  const into: Keeping = { fields, names };
  if (q >= 0) forEachFormField(url.slice(q + 1), into, keep);
  const body = request.body;
  if (typeof body === 'string') forEachFormField(body, into, keep);
  else if (body !== undefined && body !== null)
    for (const [k, v] of Object.entries(body)) keep(into, k, String(v));
  // Headers are not stored: the client a send took from its User-Agent (wire/handle.ts) is
  // recorded as the field a replay reads instead, so the replayed message names the same client.
  if (names.readsClient && !Object.hasOwn(fields, 'client'))
    setField(fields, 'client', clientFromUserAgent(headerValue(request.headers, 'user-agent')));
  return { kind: 'request', actor, method: request.method, url: path, body: fields };
}

interface Keeping {
  readonly fields: Record<string, string>;
  readonly names: ParameterNames;
}

/** Stores one field as `requestInput` says: read ones as sent, others by name only. */
function keep({ fields, names }: Keeping, k: string, v: string): void {
  if (names.fromPath.has(k)) return; // the URL's value wins on the wire anyway
  setField(fields, k, names.read.has(k) ? v : '');
}

interface ParameterNames {
  readonly read: ReadonlySet<string>;
  readonly fromPath: ReadonlySet<string>;
  /** The operation reads `client` (a send): one is recorded whatever the request spelled. */
  readonly readsClient: boolean;
}

/**
 * `parameterNames` by method and raw path: clients call the same few paths again and again, and
 * finding the names (decoding, routing) costs more than the lookup. Bounded. `null`: no operation.
 */
const namesByPath = new PathMemo<ParameterNames | null>(
  (method, rawPath) => findParameterNames(method, rawPath) ?? null,
);

/**
 * The names the operation a request reaches reads (each parameter's name and alias) and takes from
 * its path, or undefined when no operation matches.
 */
function parameterNames(method: string, rawPath: string): ParameterNames | undefined {
  return namesByPath.get(method, rawPath) ?? undefined;
}

function findParameterNames(method: string, rawPath: string): ParameterNames | undefined {
  // The path as the wire layer routes it.
  const path = decodedPath(rawPath);
  if (!path.startsWith('/api/v1/')) return undefined;
  const match = matchRoute(String(method).toUpperCase(), path.slice(7).replace(/\/+$/, '') || '/');
  if (match.kind !== 'found') return undefined;
  let names = namesByOp.get(match.op);
  if (names === undefined) {
    const fromPath = new Set(match.op.def.pathParams ?? []);
    const read = new Set<string>();
    for (const spec of match.op.def.params) {
      read.add(spec.name);
      if (spec.alias !== undefined) read.add(spec.alias);
    }
    names = { read, fromPath, readsClient: readsClient(match.op.def) };
    namesByOp.set(match.op, names);
  }
  return names;
}

/** Each operation's parameter names, built once (every stored request needs them). */
const namesByOp = new WeakMap<object, ParameterNames>();

/** Only the fields a stored actor has, whatever else the caller's object carried. */
export function plainActor(actor: Actor): Actor {
  return 'anonymous' in actor ? { anonymous: true } : { userId: actor.userId };
}
