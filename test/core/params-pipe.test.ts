/**
 * `parseParams` takes a raw string through `z.pipe(z.string(), z.transform(fn))` by calling `fn`
 * on zod's payload shape, and re-runs zod only when `fn` reports an issue. The law: for any input
 * value, the answer (values or the Zulip error) is what zod's own parse gives.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { parseParams, rawParam, zodIssueToError, zulipIssue } from '../../src/core/params';
import { stripUnicodeWhitespace } from '../../src/core/text/whitespace';

const oneOf = z.pipe(
  z.string(),
  z.transform((value, ctx) => {
    if (value === 'a' || value === 'b') return value.toUpperCase();
    zulipIssue(ctx, 'Invalid {var}');
    return z.NEVER;
  }),
);
const stripped = z.pipe(z.string(), z.transform(stripUnicodeWhitespace));
// Not taken by the fast path (a check on the string step): zod parses it, as a reference.
const checked = z.pipe(
  z.string().check(z.maxLength(3)),
  z.transform((v: string) => v.length),
);

// A bare string, then a bare int: a safe integer is taken as it is (sendMessage's `to`).
const target = z.union([z.string(), z.int(), z.array(z.union([z.string(), z.int()]))]);
// Not taken by that path (a number check on the int): zod parses it, as a reference.
const bounded = z.union([z.string(), z.int().check(z.minimum(0))]);

const specs = [
  rawParam('kind', oneOf),
  rawParam('topic', stripped),
  rawParam('short', checked),
  rawParam('to', target),
  rawParam('bounded', bounded),
];

/** What zod alone answers for each parameter, in spec order, as parseParams reports it. */
function byZod(input: Record<string, unknown>) {
  const values: Record<string, unknown> = {};
  for (const spec of specs) {
    if (!(spec.name in input)) continue;
    const r = z.safeParse(spec.schema, input[spec.name], { reportInput: true });
    if (!r.success) return { ok: false, error: zodIssueToError(spec.name, r.error.issues[0]) };
    values[spec.name] = r.data;
  }
  return { ok: true, values, ignored: [] };
}

const value = fc.oneof(
  fc.constantFrom('a', 'b', 'c', '', '  x  ', '\u00a0y\u3000'),
  fc.string(),
  fc.integer(),
  fc.constantFrom(-0, 1.5, 2 ** 53, -(2 ** 53), 2 ** 53 - 1, NaN, Infinity),
  fc.double(),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.boolean(),
  fc.constant(null),
);

describe('parseParams: string piped to a transform, safe integer into a union', () => {
  it('answers as zod does, in decoded and wire mode', () => {
    fc.assert(
      fc.property(
        fc.record(
          { kind: value, topic: value, short: value, to: value, bounded: value },
          { requiredKeys: [] },
        ),
        (input) => {
          expect(parseParams(specs, input, 'decoded')).toEqual(byZod(input));
          expect(parseParams(specs, input, 'wire')).toEqual(byZod(input));
        },
      ),
    );
  });

  it('reports a transform issue with its Zulip message', () => {
    const r = parseParams(specs, { kind: 'c' }, 'decoded');
    expect(r).toEqual({ ok: false, error: expect.objectContaining({ msg: 'Invalid kind' }) });
  });
});
