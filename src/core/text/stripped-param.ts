import * as z from 'zod/mini';
import { codePointLength, zulipIssue } from '../params';
import { stripUnicodeWhitespace } from './whitespace';

/**
 * A plain-string parameter declared in Zulip as
 * `Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=max)]`:
 * stripped first, then `{var} cannot be blank` / `{var} is too long (limit: N characters)`,
 * lengths in code points. The parsed value is the stripped string.
 */
export function strippedString(max?: number): z.ZodMiniType<string, string> {
  return z.pipe(z.string(), z.transform(stripUnicodeWhitespace)).check(
    z.superRefine((s, ctx) => {
      if (s.length === 0) zulipIssue(ctx, '{var} cannot be blank');
      else if (max !== undefined && codePointLength(s) > max)
        zulipIssue(ctx, `{var} is too long (limit: ${max} characters)`);
    }),
  );
}
