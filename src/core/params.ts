import { z } from 'zod';
import { errors, zulipError, type ZulipError } from './errors';

/**
 * Parameter parsing as Zulip's `typed_endpoint` does it: one parameter at a time in declaration
 * order, the first failure wins; JSON-typed parameters are decoded from their wire text, plain
 * strings are taken raw; validation is strict. zod issues become Zulip's exact messages here and
 * nowhere else.
 */
export interface ParamSpec {
  readonly name: string;
  /** true: the wire value is JSON text (Zulip's `Json[...]`); false: a raw string. */
  readonly json: boolean;
  readonly schema: z.ZodType;
  readonly required?: boolean;
  /** Another name Zulip accepts for the same parameter (e.g. `subject` for `topic`). */
  readonly alias?: string;
}

/** `param(name, schema)` is a JSON parameter; `rawParam` a plain-string one. */
export function param(
  name: string,
  schema: z.ZodType,
  opts: { required?: boolean; alias?: string } = {},
): ParamSpec {
  return { name, json: true, schema, ...opts };
}
export function rawParam(
  name: string,
  schema: z.ZodType = z.string(),
  opts: { required?: boolean; alias?: string } = {},
): ParamSpec {
  return { name, json: false, schema, ...opts };
}

export type ParseMode = 'wire' | 'decoded';

export type ParseResult =
  | { readonly ok: true; readonly values: Record<string, unknown>; readonly ignored: string[] }
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
  const values: Record<string, unknown> = {};
  const used = new Set<string>(pathParams);
  for (const spec of specs) {
    let name = spec.name;
    let raw = own(input, spec.name);
    if (spec.alias !== undefined) {
      const aliased = own(input, spec.alias);
      if (raw !== undefined && aliased !== undefined) return fail(errors.confusingVar(spec.name, spec.alias));
      if (raw === undefined && aliased !== undefined) {
        raw = aliased;
        name = spec.alias;
      }
      used.add(spec.alias);
    }
    used.add(spec.name);
    if (raw === undefined) {
      if (spec.required) return fail(errors.missingArgument(spec.name));
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
    // `reportInput` keeps `input` on issues, telling a wrong nested type from a missing key.
    const parsed = spec.schema.safeParse(value, { reportInput: true });
    if (!parsed.success) return fail(zodIssueToError(name, parsed.error.issues[0]));
    values[spec.name] = parsed.data;
  }
  const ignored = Object.keys(input)
    .filter((k) => !used.has(k))
    .sort();
  return { ok: true, values, ignored };
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
 * params carry a non-default code, status or extra fields.
 */
export function zulipIssue(
  ctx: z.core.$RefinementCtx,
  message: string,
  params?: { code?: string; status?: number; extra?: Record<string, unknown> },
): void {
  ctx.addIssue({ code: 'custom', message, input: undefined, ...(params ? { params } : {}) });
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
