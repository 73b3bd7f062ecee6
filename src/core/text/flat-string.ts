/**
 * `s` as a string of its own: the same text, stored in one piece. A string made by concatenation
 * is a tree of its parts, and one cut from a longer string (a form field from a request body) is
 * a view that keeps the whole of that string alive; engines make strings of 13 units or more that
 * way. A name kept for the life of a store (an interned topic) is copied once when first kept: a
 * view would hold its request body in memory, and every later read of either kind (a register
 * serializes each unread topic's name) follows a pointer more, to a place far from its neighbours'.
 * The round trip through JSON is the one portable way to get a fresh sequential string; it keeps
 * every code unit, lone surrogates included (escaped, then restored).
 */
export function flatString(s: string): string {
  return s.length < FRESH_FROM ? s : (JSON.parse(JSON.stringify(s)) as string);
}

/** Shorter strings are copied whenever they are made (V8's ConsString::kMinLength). */
const FRESH_FROM = 13;
