import { en } from 'zod/locales';
import type * as z from 'zod/mini';

let localeError: z.core.$ZodErrorMap | undefined;

/**
 * Parse options giving zod's English messages (`Invalid input: expected string, received
 * undefined`), for the places that show zod's own text: snapshot and change-record problems.
 * Classic zod installs this locale globally when imported; zod/mini installs none, and a library
 * should not change its application's zod configuration, so the locale is passed per parse.
 */
export function englishMessages(): z.core.ParseContext<z.core.$ZodIssue> {
  return { error: (localeError ??= en().localeError) };
}
