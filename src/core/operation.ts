import { errors, type ZulipError } from './errors';
import { resolveContext, type OpContext, type ResolvedContext } from './context';
import type { User } from './model/records';
import { parseParams, type ParamSpec, type ParseMode } from './params';
import { failure, type OpResult } from './result';
import type { RealmState } from './state';

/** Who is calling: a user of the realm, or an unauthenticated spectator (public access). */
export type Actor = { readonly userId: number } | { readonly anonymous: true };

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';

/** What an operation's handler receives after the shared checks and parsing. */
export interface OpCall<P> {
  readonly state: RealmState;
  /** null only for operations that allow anonymous access. */
  readonly user: User | null;
  readonly params: P;
  readonly ctx: ResolvedContext;
  /** Sorted names of request parameters the operation did not read. */
  readonly ignored: readonly string[];
  readonly mode: ParseMode;
  /** The raw input, for the rare operation that must see unparsed names (PATCH /settings). */
  readonly input: Readonly<Record<string, unknown>>;
}

export interface OperationDef<P> {
  /** The exported function name (camelCase). */
  readonly name: string;
  readonly method: HttpMethod;
  /** Path under /api/v1 with `{param}` placeholders. */
  readonly path: string;
  readonly operationId: string;
  readonly allowAnonymous?: boolean;
  /** Decorator checks Zulip runs before parsing parameters (humans only, admins only, ...). */
  readonly guard?: (state: RealmState, user: User) => ZulipError | undefined;
  /** In Zulip's declaration order: it decides which error wins. Path parameters come first. */
  readonly params: readonly ParamSpec[];
  /** Path parameter names (taken from the URL by the wire layer). */
  readonly pathParams?: readonly string[];
  /** Whether success bodies carry `ignored_parameters_unsupported` (false for GET /users/me and linkifiers). */
  readonly reportsIgnored?: boolean;
  readonly handler: (call: OpCall<P>) => OpResult;
}

export type Operation = (state: RealmState, actor: Actor, params?: unknown, ctx?: OpContext) => OpResult;

/** Operations carry their definition so the wire layer can route and parse for them. */
export type DefinedOperation = Operation & { readonly def: OperationDef<never> };

export function defineOperation<P>(def: OperationDef<P>): DefinedOperation {
  const op: Operation = (state, actor, params, ctx) =>
    invoke(def, state, actor, params ?? {}, ctx, 'decoded');
  return Object.assign(op, { def: def as unknown as OperationDef<never> });
}

/** Resolves the actor to an active user, with Zulip's answers for the cases auth would refuse. */
export function resolveActor(
  state: RealmState,
  actor: Actor,
  allowAnonymous: boolean,
): User | null | ZulipError {
  if ('anonymous' in actor) return allowAnonymous ? null : errors.notLoggedIn();
  const user = typeof actor.userId === 'number' ? state.users.get(actor.userId) : undefined;
  if (user === undefined) return errors.unauthorized('Invalid API key');
  if (state.realm.deactivated) return errors.realmDeactivated();
  if (!user.is_active) return errors.userDeactivated();
  return user;
}

export function invoke<P>(
  def: OperationDef<P>,
  state: RealmState,
  actor: Actor,
  input: unknown,
  ctx: OpContext | undefined,
  mode: ParseMode,
): OpResult {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return failure(state, errors.badRequest('Invalid parameters: expected an object of Zulip parameters'));
  }
  const user = resolveActor(state, actor, def.allowAnonymous ?? false);
  if (user !== null && 'code' in user) return failure(state, user);
  if (user !== null && def.guard) {
    const refused = def.guard(state, user);
    if (refused) return failure(state, refused);
  }
  const record = input as Record<string, unknown>;
  const parsed = parseParams(def.params, record, mode, mode === 'wire' ? (def.pathParams ?? []) : []);
  if (!parsed.ok) return failure(state, parsed.error);
  return def.handler({
    state,
    user,
    params: parsed.values as P,
    ctx: resolveContext(ctx, state.now),
    ignored: def.reportsIgnored === false ? [] : parsed.ignored,
    mode,
    input: record,
  });
}
