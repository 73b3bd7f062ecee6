import * as z from 'zod/mini';
import { accepts, zulipIssue } from '../../core/params';
import { NEWEST } from '../../narrow';
import { parseNarrow, type NarrowTerm, type Operand } from '../../narrow/terms';

/*
 * What GET /messages and POST /messages/flags/narrow share: the anchor and the narrow as the
 * request gives them. Kept apart from both operations, so importing one does not bundle the other.
 */

/** A narrow term as the library takes it: an object (the `negated` flag optional) or Zulip's legacy pair. */
export type NarrowInput =
  | { readonly operator: string; readonly operand: Operand; readonly negated?: boolean }
  | readonly [operator: string, operand: string];

/**
 * Python's `int()` on a string: surrounding whitespace, a sign, and single underscores between
 * digits are allowed. Returns null when Python would raise.
 */
export function parsePythonInt(text: string): number | null {
  const m = /^\s*([+-]?)(\d(?:_?\d)*)\s*$/u.exec(text);
  if (!m) return null;
  const digits = m[2]!.replaceAll('_', '');
  const n = Number(digits);
  return m[1] === '-' ? -n : n;
}

/** Zulip's `parse_anchor_value`: null for first_unread, clamped to [0, 10^16]; undefined when invalid. */
export function resolveAnchor(raw: string | number): number | null | undefined {
  if (raw === 'oldest') return 0;
  if (raw === 'newest') return NEWEST;
  if (raw === 'first_unread') return null;
  const n = typeof raw === 'number' ? raw : parsePythonInt(raw);
  if (n === null) return undefined;
  // `<= 0` also turns -0 ("-0" on the wire, or a library caller's -0) into Python's 0.
  return n <= 0 ? 0 : n > NEWEST ? NEWEST : n;
}

/** The first topic term named `general chat` means the empty topic (only the first topic term is looked at). */
export function renameGeneralChat(terms: readonly NarrowTerm[]): NarrowTerm[] {
  const out = [...terms];
  const i = out.findIndex((t) => t.operator === 'topic');
  if (i >= 0 && out[i]!.operand === 'general chat') out[i] = { ...out[i]!, operand: '' };
  return out;
}

/** A required `narrow` parameter: Zulip's term syntax, parsed (its errors as Zulip words them). */
export const narrowSchema = accepts<readonly NarrowInput[]>()(
  z.pipe(
    z.unknown(),
    z.transform((value, ctx) => {
      const r = parseNarrow(value);
      if (!r.ok) {
        zulipIssue(ctx, r.msg);
        return z.NEVER;
      }
      return r.terms;
    }),
  ),
);
