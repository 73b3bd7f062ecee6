/**
 * Whitespace stripping as Zulip's two layers do it. They differ from JavaScript's `trim()`, so
 * operations that must reproduce Zulip's "cannot be blank" / "too long" answers use these.
 *
 * - pydantic's `StringConstraints(strip_whitespace=True)` runs in pydantic-core (Rust) and trims
 *   Unicode `White_Space` characters: unlike `trim()` it strips U+0085 and keeps U+FEFF.
 * - Python's `str.strip()` (used again by some views after validation) also strips the
 *   information separators U+001C..U+001F.
 */

/** Unicode White_Space: what Rust's `str::trim` (and so pydantic's strip_whitespace) removes. */
const UNICODE_WHITE_SPACE =
  '\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
/** Python's `str.isspace()` characters: White_Space plus U+001C..U+001F. */
const PYTHON_WHITESPACE = `${UNICODE_WHITE_SPACE}\\u001c-\\u001f`;

const unicodeEdges = new RegExp(`^[${UNICODE_WHITE_SPACE}]+|[${UNICODE_WHITE_SPACE}]+$`, 'gu');
const pythonEdges = new RegExp(`^[${PYTHON_WHITESPACE}]+|[${PYTHON_WHITESPACE}]+$`, 'gu');

/**
 * Whether `code` (a UTF-16 unit) is a visible ASCII character, which no notion of whitespace here
 * includes: a string that starts and ends with one has nothing to strip, and skips the regex (a
 * global regex anchored at the end tries every position of the string).
 */
export function isVisibleAscii(code: number): boolean {
  return code > 0x20 && code < 0x7f;
}

function plainEdges(s: string): boolean {
  return isVisibleAscii(s.charCodeAt(0)) && isVisibleAscii(s.charCodeAt(s.length - 1));
}

/** pydantic's `strip_whitespace=True`. */
export function stripUnicodeWhitespace(s: string): string {
  return plainEdges(s) ? s : s.replace(unicodeEdges, '');
}

/** Python's `str.strip()` without arguments. */
export function pythonStrip(s: string): string {
  return plainEdges(s) ? s : s.replace(pythonEdges, '');
}

const pythonRuns = new RegExp(`[${PYTHON_WHITESPACE}]+`, 'u');

/** Python's `str.split()` without arguments: the words between runs of whitespace. */
export function pythonSplit(s: string): string[] {
  return s.split(pythonRuns).filter((word) => word !== '');
}
