import * as z from 'zod/mini';
import { errors, zulipError, type ZulipError } from './errors';

/**
 * Parameter schemas are built with `zod/mini` (the functional API): an operation bundles only the
 * schema kinds and checks it uses, not zod's whole method-chaining API. Any zod 4 schema (mini or
 * classic) is accepted, as both share zod's core and its issues.
 */
export type Schema = z.core.$ZodType;

/**
 * Parameter parsing as Zulip's `typed_endpoint` does it: one parameter at a time in declaration
 * order, the first failure wins; JSON-typed parameters are decoded from their wire text, plain
 * strings are taken raw; validation is strict. zod issues become Zulip's exact messages here and
 * nowhere else.
 */
export interface ParamSpec<
  N extends string = string,
  S extends Schema = Schema,
  R extends boolean = boolean,
  A extends string = string,
> {
  readonly name: N;
  /** true: the wire value is JSON text (Zulip's `Json[...]`); false: a raw string. */
  readonly json: boolean;
  readonly schema: S;
  readonly required?: R;
  /** Another name Zulip accepts for the same parameter (e.g. `subject` for `topic`). */
  readonly alias?: A;
}

/** Options of `param`/`rawParam`: `required` and `alias` are kept as literal types for inference. */
export interface ParamOptions<R extends boolean, A extends string> {
  readonly required?: R;
  readonly alias?: A;
}

/**
 * `param(name, schema)` is a JSON parameter; `rawParam` a plain-string one. The name, schema,
 * `required` and `alias` stay in the spec's type, so `defineOperation` infers the operation's
 * parameter type from its list of specs (see `ParamsInput`).
 */
export function param<
  const N extends string,
  S extends Schema,
  R extends boolean = false,
  A extends string = never,
>(
  name: N,
  schema: S,
  opts: ParamOptions<R, A> = {},
): ParamSpec<NoInfer<N>, NoInfer<S>, NoInfer<R>, NoInfer<A>> {
  return { name, json: true, schema, ...opts };
}
export function rawParam<
  const N extends string,
  S extends Schema = z.ZodMiniString<string>,
  R extends boolean = false,
  A extends string = never,
>(
  name: N,
  schema?: S,
  opts: ParamOptions<R, A> = {},
): ParamSpec<NoInfer<N>, NoInfer<S>, NoInfer<R>, NoInfer<A>> {
  return { name, json: false, schema: (schema ?? z.string()) as S, ...opts };
}

/**
 * A schema whose library-mode input is `In`: for parameters validated by hand (`z.unknown()` plus a
 * transform, to give Zulip's exact messages), whose zod input type says nothing. Run-time behaviour
 * is unchanged; wrong values are still refused with Zulip's error.
 */
export function accepts<In>() {
  return <S extends Schema>(schema: S): z.ZodMiniType<z.output<S>, In> =>
    schema as unknown as z.ZodMiniType<z.output<S>, In>;
}

/** A spec list built from a table at run time, with the parameter types its specs cannot carry. */
export type DeclaredParams<In extends object, Out extends object> = readonly ParamSpec[] & {
  /** Type-only: never present at run time. */
  readonly '~declared': { readonly in: In; readonly out: Out };
};

/** Declares the types of a spec list built at run time (see `DeclaredParams`). */
export function declareParams<In extends object, Out extends object = In>(
  specs: readonly ParamSpec[],
): DeclaredParams<In, Out> {
  return specs as DeclaredParams<In, Out>;
}

type Simplify<T> = { [K in keyof T]: T[K] } & {};
type IsRequired<P extends ParamSpec> = [Exclude<P['required'], undefined>] extends [never]
  ? false
  : [Exclude<P['required'], undefined>] extends [true]
    ? true
    : false;
/** A literal alias; a spec typed only as `ParamSpec` has none we could name. */
type AliasOf<P extends ParamSpec> =
  string extends Exclude<P['alias'], undefined> ? never : Exclude<P['alias'], undefined>;

/**
 * The parameters an operation accepts in library mode (decoded JS values, what `JSON.parse` of the
 * wire text gives): required specs are required keys, the rest optional; an alias is an optional key
 * of the same type. Inferred from the specs by `defineOperation`, so a misspelled key or a value of
 * the wrong type is a compile error.
 */
export type ParamsInput<Specs extends readonly ParamSpec[]> =
  Specs extends DeclaredParams<infer In, object> ? In : InferredInput<Specs>;
type InferredInput<Specs extends readonly ParamSpec[]> = Simplify<
  {
    readonly [
      P in Specs[number] as IsRequired<P> extends true
        ? [AliasOf<P>] extends [never]
          ? P['name']
          : never
        : never
    ]: z.input<P['schema']>;
  } & {
    readonly [
      P in Specs[number] as IsRequired<P> extends true
        ? [AliasOf<P>] extends [never]
          ? never
          : P['name']
        : P['name']
    ]?: z.input<P['schema']> | undefined;
  } & {
    readonly [P in Specs[number] as AliasOf<P>]?: z.input<P['schema']> | undefined;
  }
>;

/** What an operation's handler receives: each spec's parsed (output) value under its name. */
export type ParamsOutput<Specs extends readonly ParamSpec[]> =
  Specs extends DeclaredParams<object, infer Out> ? Out : InferredOutput<Specs>;
type InferredOutput<Specs extends readonly ParamSpec[]> = Simplify<
  {
    [P in Specs[number] as IsRequired<P> extends true ? P['name'] : never]: z.output<P['schema']>;
  } & {
    [P in Specs[number] as IsRequired<P> extends true ? never : P['name']]?: z.output<P['schema']>;
  }
>;

export type ParseMode = 'wire' | 'decoded';

export type ParseResult =
  | { readonly ok: true; readonly values: Record<string, unknown>; readonly ignored: readonly string[] }
  | { readonly ok: false; readonly error: ZulipError };

/**
 * Parses `input` against `specs`. In `wire` mode every value is the raw string from the request;
 * in `decoded` mode values are already JS values (the library API). Names in `pathParams` are
 * neither parsed here nor reported as ignored.
 */
export function parseParams(
  specs: readonly ParamSpec[],
  input: Readonly<Record<string, unknown>>,
  mode: ParseMode,
  pathParams: readonly string[] = [],
): ParseResult {
  const info = specInfo(specs);
  // The input's values by slot (spec k's name at k, its alias at n + k). A plain object's keys are
  // read in one pass, each looked up among the specs' names: a send names 4 of its 12 parameters,
  // and asking the input for each name and alias (`hasOwnProperty`, a different key each time)
  // cost twice as much. The slots array is the spec list's own, emptied again after each parse
  // (taken while in use, so a parse started inside a parse gets a fresh one).
  const n = specs.length;
  const raws = info.raws ?? new Array<unknown>(2 * n).fill(undefined);
  info.raws = undefined;
  const keys = gather(specs, info, input, raws);
  try {
    return parseGathered(specs, info, raws, keys, input, mode, pathParams);
  } finally {
    for (let k = 0; k < raws.length; k++) raws[k] = undefined;
    info.raws = raws;
  }
}

/** `parseParams` once the input's values are gathered (`keys`: see `gather`). */
function parseGathered(
  specs: readonly ParamSpec[],
  info: SpecInfo,
  raws: readonly unknown[],
  keys: number,
  input: Readonly<Record<string, unknown>>,
  mode: ParseMode,
  pathParams: readonly string[],
): ParseResult {
  const values: Record<string, unknown> = {};
  const { known, plain, pipes, ints } = info;
  const n = specs.length;
  // Input keys that named a spec (by name or alias, a value given): when they are all of the
  // input's keys, nothing is ignored and the keys need no lookup (the usual request).
  let found = 0;
  for (let k = 0; k < n; k++) {
    const spec = specs[k]!;
    let name = spec.name;
    let raw = raws[k];
    if (spec.alias !== undefined) {
      const aliased = raws[n + k];
      if (raw !== undefined && aliased !== undefined) return fail(errors.confusingVar(spec.name, spec.alias));
      if (raw === undefined && aliased !== undefined) {
        raw = aliased;
        name = spec.alias;
      }
    }
    if (raw === undefined) {
      if (spec.required) return fail(errors.missingArgument(spec.name));
      continue;
    }
    found++;
    // A string for a bare `z.string()` is its own parse: zod's machinery skipped.
    if (typeof raw === 'string') {
      if (plain[k] === true) {
        values[spec.name] = raw;
        continue;
      }
      // A string into a bare string piped to a transform: the transform on zod's own payload
      // shape. Only a clean answer is taken; an issue (or a promise) re-runs zod for its error.
      const transform = pipes[k];
      if (transform !== undefined) {
        const payload = transformPayload;
        payload.value = raw;
        // Emptied only when a failed parse left issues: setting an array's length is a call.
        if (payload.issues.length !== 0) payload.issues.length = 0;
        const out = transform(raw, payload);
        if (payload.issues.length === 0 && !(out instanceof Promise)) {
          values[spec.name] = out;
          continue;
        }
      }
    }
    // A safe integer for a union that takes a bare `z.int()` after only bare strings: zod's answer
    // is the number itself (the library API's `to: streamId`, say).
    if (typeof raw === 'number' && ints[k] === true && Number.isSafeInteger(raw)) {
      values[spec.name] = raw;
      continue;
    }
    let value = raw;
    if (mode === 'wire' && spec.json) {
      if (typeof raw !== 'string') return fail(errors.invalidJson(name));
      try {
        value = JSON.parse(raw);
      } catch {
        return fail(errors.invalidJson(name));
      }
    }
    const parsed = z.safeParse(spec.schema, value);
    if (!parsed.success) {
      // Parsed again for the error: `reportInput` keeps `input` on issues, telling a wrong nested
      // type from a missing key. Not asked for on the first parse: zod copies the options object
      // on every call, which cost more than parsing a small parameter.
      const reported = z.safeParse(spec.schema, value, { reportInput: true });
      return fail(zodIssueToError(name, reported.error?.issues[0] ?? parsed.error.issues[0]));
    }
    values[spec.name] = parsed.data;
  }
  // Most requests ignore nothing: one shared, frozen empty list, and no array of the input's keys.
  // `client` is never ignored: Zulip reads it on every request (`parse_client`), whatever the view.
  // `keys` counts the input's keys when each of them named a slot: then, when each gave a value,
  // none is ignored.
  let ignored: string[] | undefined;
  if (keys !== found)
    for (const key in input)
      if (Object.hasOwn(input, key) && !known.has(key) && !pathParams.includes(key) && key !== 'client')
        (ignored ??= []).push(key);
  return { ok: true, values, ignored: ignored === undefined ? NOTHING_IGNORED : ignored.sort() };
}

/**
 * Fills `raws` with the input's own values for the specs' names and aliases. Answers how many keys
 * the input has when every one of them named a slot, else -1 (then the parse looks for ignored keys).
 */
function gather(
  specs: readonly ParamSpec[],
  info: SpecInfo,
  input: Readonly<Record<string, unknown>>,
  raws: unknown[],
): number {
  const proto: unknown = Object.getPrototypeOf(input);
  if (info.distinct && (proto === Object.prototype || proto === null)) {
    // A plain object: its enumerable keys are its own, and each names at most one slot.
    const slots = info.slots;
    let keys = 0;
    let other = false;
    for (const key in input) {
      keys++;
      const slot = slots.get(key);
      if (slot === undefined) other = true;
      else raws[slot] = input[key];
    }
    return other ? -1 : keys;
  }
  const n = specs.length;
  for (let k = 0; k < n; k++) {
    const spec = specs[k]!;
    raws[k] = own(input, spec.name);
    if (spec.alias !== undefined) raws[n + k] = own(input, spec.alias);
  }
  return -1;
}

const NOTHING_IGNORED: readonly string[] = Object.freeze([]);

/**
 * The payload a piped transform is called with, one for every call: the transform runs
 * synchronously and its answer is taken only when it left no issue (otherwise zod runs again for
 * the error), so nothing keeps the payload past the call; two fresh objects per string parameter
 * were most of what parsing a send's parameters allocated.
 */
const transformPayload: z.core.ParsePayload<unknown> = { value: undefined, issues: [] };

interface SpecInfo {
  /** Every name and alias of the specs: the parameters that are not ignored. */
  readonly known: ReadonlySet<string>;
  /** No name or alias is another spec's: each found key is a different key of the input. */
  readonly distinct: boolean;
  /** By spec: its schema is a bare `z.string()` (no checks), whose parse of a string is the string. */
  readonly plain: readonly boolean[];
  /**
   * By spec: for a raw `z.pipe(z.string(), z.transform(fn))` (no checks on either), `fn`, which is
   * what parsing a string through it amounts to (the string step passes a string unchanged).
   */
  readonly pipes: ReadonlyArray<PipeTransform | undefined>;
  /**
   * By spec: a union whose options before a bare `z.int()` are bare strings (which refuse a
   * number), so a safe integer parses to itself.
   */
  readonly ints: readonly boolean[];
  /** Each name's slot in the gathered values (spec k: k) and each alias's (n + k). */
  readonly slots: ReadonlyMap<string, number>;
  /** The gathered values' array while no parse holds it (every entry undefined). */
  raws: unknown[] | undefined;
}

/** Whether `spec` takes a safe integer as it is (see `SpecInfo.ints`). */
function takesInt(spec: ParamSpec): boolean {
  const def: z.core.$ZodTypeDef = spec.schema._zod.def;
  if (spec.json || def.type !== 'union' || (def.checks?.length ?? 0) > 0) return false;
  for (const option of (def as z.core.$ZodUnionDef).options) {
    const d: z.core.$ZodTypeDef = option._zod.def;
    if ((d.checks?.length ?? 0) > 0 || 'coerce' in d) return false;
    if (d.type === 'number') return (d as z.core.$ZodNumberFormatDef).format === 'safeint';
    if (d.type !== 'string') return false;
  }
  return false;
}

type PipeTransform = (value: string, payload: z.core.ParsePayload<unknown>) => unknown;

/** `fn` of a raw spec whose schema is `z.pipe(z.string(), z.transform(fn))`, both without checks. */
function pipeTransform(spec: ParamSpec): PipeTransform | undefined {
  const def: z.core.$ZodTypeDef = spec.schema._zod.def;
  if (spec.json || def.type !== 'pipe' || (def.checks?.length ?? 0) > 0) return undefined;
  const { in: from, out: into } = def as z.core.$ZodPipeDef;
  const fromDef: z.core.$ZodTypeDef = from._zod.def;
  const intoDef: z.core.$ZodTypeDef = into._zod.def;
  if (fromDef.type !== 'string' || (fromDef.checks?.length ?? 0) > 0 || 'coerce' in fromDef) return undefined;
  if (intoDef.type !== 'transform' || (intoDef.checks?.length ?? 0) > 0) return undefined;
  return (intoDef as z.core.$ZodTransformDef).transform as PipeTransform;
}

/** Per spec list (each operation's is built once): what parsing asks of it on every call. */
const specInfos = new WeakMap<readonly ParamSpec[], SpecInfo>();

function specInfo(specs: readonly ParamSpec[]): SpecInfo {
  let info = specInfos.get(specs);
  if (info === undefined) {
    const known = new Set<string>();
    let names = 0;
    for (const spec of specs) {
      known.add(spec.name);
      names++;
      if (spec.alias !== undefined) {
        known.add(spec.alias);
        names++;
      }
    }
    const plain = specs.map((spec) => {
      const def: z.core.$ZodTypeDef = spec.schema._zod.def;
      return !spec.json && def.type === 'string' && (def.checks?.length ?? 0) === 0 && !('coerce' in def);
    });
    specInfos.set(
      specs,
      (info = {
        known,
        distinct: known.size === names,
        plain,
        pipes: specs.map(pipeTransform),
        ints: specs.map(takesInt),
        slots: new Map(
          specs.flatMap((spec, k) =>
            spec.alias === undefined
              ? [[spec.name, k] as const]
              : [[spec.name, k] as const, [spec.alias, specs.length + k] as const],
          ),
        ),
        raws: undefined,
      }),
    );
  }
  return info;
}

function own(input: Readonly<Record<string, unknown>>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(input, key) ? input[key] : undefined;
}

function fail(error: ZulipError): ParseResult {
  return { ok: false, error };
}

/** `x`, `x[0]`, `x["key"]`: Zulip's way of naming a nested value. */
export function formatPath(name: string, path: readonly PropertyKey[]): string {
  return (
    name + path.map((p) => (typeof p === 'number' ? `[${p}]` : `[${JSON.stringify(String(p))}]`)).join('')
  );
}

const TYPE_WORDS: Record<string, string> = {
  boolean: 'a boolean',
  int: 'an integer',
  number: 'an integer',
  string: 'a string',
  array: 'a list',
  object: 'a dict',
  record: 'a dict',
  tuple: 'a list',
};

/** The Zulip error for the first zod issue of a parameter. */
export function zodIssueToError(name: string, issue: z.core.$ZodIssue | undefined): ZulipError {
  if (issue === undefined) return errors.badRequest(`Invalid ${name}`);
  const at = formatPath(name, issue.path);
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined && issue.path.length > 0)
        return errors.badRequest(`${at} field is missing: Field required`);
      const word = TYPE_WORDS[issue.expected] ?? `a ${issue.expected}`;
      return errors.badRequest(`${at} is not ${word}`);
    }
    case 'too_big':
      if (issue.origin === 'string')
        return errors.badRequest(`${at} is too long (limit: ${issue.maximum} characters)`);
      if (issue.origin === 'int' || issue.origin === 'number') return errors.badRequest(`${at} is too large`);
      return errors.badRequest(`${at} is too long`);
    case 'too_small':
      if (issue.origin === 'string' && issue.minimum === 1) return errors.badRequest(`${at} cannot be blank`);
      if (issue.origin === 'int' || issue.origin === 'number') return errors.badRequest(`${at} is too small`);
      return errors.badRequest(`${at} is too short.`);
    case 'invalid_value':
      return errors.badRequest(`Invalid ${at}`);
    case 'unrecognized_keys':
      return errors.badRequest(`${formatPath(at, [issue.keys[0] ?? ''])} field is not expected`);
    case 'invalid_union': {
      const first = issue.errors[0]?.[0];
      return first
        ? zodIssueToError(name, { ...first, path: [...issue.path, ...first.path] })
        : errors.badRequest(`Invalid ${at}`);
    }
    case 'custom': {
      const p = (issue.params ?? {}) as { code?: string; status?: number; extra?: Record<string, unknown> };
      return zulipError(issue.message.replaceAll('{var}', at), p.code, p.status, p.extra);
    }
    default:
      return errors.badRequest(`Invalid ${at}`);
  }
}

/**
 * A custom issue whose message is a template (`{var}` is the parameter's path) and whose optional
 * params carry a non-default code, status or extra fields. `ctx` is a refinement's context or a
 * transform's payload (zod/mini hands a transform the bare payload: the issue is pushed as
 * classic zod's `addIssue` would, with no `continue`, so later checks are skipped the same way).
 */
export function zulipIssue(
  ctx: z.core.ParsePayload,
  message: string,
  params?: { code?: string; status?: number; extra?: Record<string, unknown> },
): void {
  const issue = { code: 'custom', message, input: undefined, ...(params ? { params } : {}) } as const;
  if (isRefinementCtx(ctx)) ctx.addIssue(issue);
  else ctx.issues.push({ ...issue });
}

function isRefinementCtx(ctx: z.core.ParsePayload): ctx is z.core.$RefinementCtx {
  return typeof (ctx as Partial<z.core.$RefinementCtx>).addIssue === 'function';
}

/** Python counts string length in code points, not UTF-16 units. */
/** A JSON object (Python's `dict`): not null, not an array. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function codePointLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}
