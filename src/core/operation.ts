import { errors, type ZulipError } from './errors';
import { resolveContext, type OpContext, type ResolvedContext } from './context';
import type { User } from './model/records';
import { parseParams, type ParamSpec, type ParamsInput, type ParamsOutput, type ParseMode } from './params';
import { failure, type EmptyData, type OpResult } from './result';
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

/**
 * An operation's declaration. `params` (built with `param`/`rawParam`) gives the library-mode
 * parameter type; the handler's `success(state, { data })` gives the success body's type. Both
 * are inferred: `defineOperation({ name: 'x', params: [param('n', z.int(), { required: true })], … })`
 * is `(state, actor, params: { n: number }) => OpResult<…>`.
 */
export interface OperationDef<
  N extends string = string,
  Specs extends readonly ParamSpec[] = readonly ParamSpec[],
  D extends object = object,
> {
  /** The exported function name (camelCase). */
  readonly name: N;
  readonly method: HttpMethod;
  /** Path under /api/v1 with `{param}` placeholders. */
  readonly path: string;
  readonly operationId: string;
  readonly allowAnonymous?: boolean;
  /**
   * Zulip serves it on /api/v1 without authentication (not through `rest_dispatch`: GET
   * /server_settings). Other `allowAnonymous` operations serve spectators only on Zulip's /json
   * paths, so `handleApiRequest` (/api/v1) refuses their calls without credentials.
   */
  readonly unauthenticatedApi?: boolean;
  /**
   * The wire layer never reads the request's credentials: the operation runs as the anonymous
   * actor whatever the Authorization header says (Zulip's unauthenticated views, e.g.
   * GET /server_settings and POST /fetch_api_key). Implies `allowAnonymous` and `unauthenticatedApi`.
   */
  readonly ignoresCredentials?: boolean;
  /** Decorator checks Zulip runs before parsing parameters (humans only, admins only, ...). */
  readonly guard?: (state: RealmState, user: User) => ZulipError | undefined;
  /** In Zulip's declaration order: it decides which error wins. Path parameters come first. */
  readonly params: Specs;
  /** Path parameter names (taken from the URL by the wire layer). */
  readonly pathParams?: readonly string[];
  /** Whether success bodies carry `ignored_parameters_unsupported` (false for GET /users/me and linkifiers). */
  readonly reportsIgnored?: boolean;
  /**
   * Optional: the success data's type (what the body carries besides `result` and `msg`), declared
   * with `returns<{ … }>()`. Left out, it is inferred from the handler's `success(state, { data })`.
   */
  readonly returns?: Returns<D>;
  readonly handler: (call: OpCall<ParamsOutput<Specs>>) => OpResult<D>;
}

declare const returnsBrand: unique symbol;
/** A type-only marker for an operation's success data (see `returns`). */
export interface Returns<D extends object> {
  readonly [returnsBrand]?: D;
}

/**
 * Declares an operation's success data type: `returns<{ processed_count: number }>()`.
 * Nothing happens at run time; the type reaches the operation's result (`OpResult<D>`).
 */
export function returns<D extends object>(): Returns<D> {
  return {};
}

/** The definition every operation carries at run time, with its types erased. */
export type AnyOperationDef = Omit<OperationDef, 'handler'> & {
  readonly handler: (call: OpCall<never>) => OpResult<object>;
};

/** `params` may be left out when the operation has no required parameter. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- `{} extends P`: P has no required key
export type OperationArgs<P> = {} extends P ? [params?: P, ctx?: OpContext] : [params: P, ctx?: OpContext];

/** The `params` argument alone, optional when the operation has no required parameter. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- `{} extends P`: P has no required key
export type ParamsArg<P> = {} extends P ? [params?: P] : [params: P];

/** Type-level facts about an operation (never present at run time). */
export interface OperationTypes<P, D> {
  readonly params: P;
  readonly data: D;
}

/**
 * A typed operation: `(state, actor, params, ctx?) => OpResult<D>`, where `P` is its library-mode
 * parameter type and `D` its success data. It carries its definition (`def`) so the wire layer can
 * route and parse for it.
 */
export type Operation<
  P extends object = Readonly<Record<string, unknown>>,
  D extends object = Readonly<Record<string, unknown>>,
  N extends string = string,
> = ((state: RealmState, actor: Actor, ...args: OperationArgs<P>) => OpResult<D>) & {
  readonly def: AnyOperationDef & { readonly name: N };
  readonly '~types'?: OperationTypes<P, D>;
};

/** Any operation, whatever its parameter and data types (what routers and handles hold). */
export type AnyOperation = ((
  state: RealmState,
  actor: Actor,
  params: never,
  ctx?: OpContext,
) => OpResult<object>) & {
  readonly def: AnyOperationDef;
  readonly '~types'?: OperationTypes<unknown, object>;
};

/** @deprecated Use `AnyOperation` (any operation) or `Operation<P, D>` (a typed one). */
export type DefinedOperation = AnyOperation;

/** An operation called with parameters of any shape (bad input is a Zulip error, as on the wire). */
export type UntypedOperation = ((
  state: RealmState,
  actor: Actor,
  params?: unknown,
  ctx?: OpContext,
) => OpResult) & { readonly def: AnyOperationDef };

/**
 * The same operation without its parameter types: for property tests and fuzzers that send input
 * of any shape on purpose (the run-time checks answer with Zulip's errors).
 *
 * @example
 * ```ts
 * const r = untyped(editChannel)(realm, { userId: 2 }, { stream_id: 'one' }, { now });
 * expect(r.body).toMatchObject({ result: 'error', msg: 'stream_id is not an integer' });
 * expect(untyped(editChannel)).toBe(editChannel);
 * ```
 */
export function untyped(op: AnyOperation): UntypedOperation {
  return op as unknown as UntypedOperation;
}

/** An operation's library-mode parameter type. */
export type ParamsOf<O> = O extends { readonly '~types'?: OperationTypes<infer P, unknown> } ? P : never;
/** An operation's success data (the body minus `result`, `msg`, `ignored_parameters_unsupported`). */
export type DataOf<O> = O extends { readonly '~types'?: OperationTypes<unknown, infer D> } ? D : never;

export function defineOperation<
  const N extends string,
  const Specs extends readonly ParamSpec[],
  D extends object = EmptyData,
>(def: OperationDef<N, Specs, D>): Operation<ParamsInput<Specs>, D, N> {
  const op = (state: RealmState, actor: Actor, params?: unknown, ctx?: OpContext) =>
    invoke(def as unknown as AnyOperationDef, state, actor, params ?? {}, ctx, 'decoded');
  return Object.assign(op, {
    def: def as unknown as AnyOperationDef & { readonly name: N },
  }) as unknown as Operation<ParamsInput<Specs>, D, N>;
}

/**
 * Runs any operation on parameters of unknown shape (decoded mode), for routers and replays
 * that hold operations by name; bad input is a Zulip error, as always.
 */
export function runDecoded(
  op: AnyOperation,
  state: RealmState,
  actor: Actor,
  params: unknown,
  ctx?: OpContext,
): OpResult {
  return invoke(op.def, state, actor, params ?? {}, ctx, 'decoded');
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

export function invoke(
  def: AnyOperationDef,
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
  // The body is a JSON object whose keys only the operation's own type names.
  return def.handler({
    state,
    user,
    params: parsed.values as never,
    ctx: resolveContext(ctx, state.now),
    ignored: def.reportsIgnored === false ? [] : parsed.ignored,
    mode,
    input: record,
  }) as OpResult;
}
