/**
 * `application/x-www-form-urlencoded` fields, as `URLSearchParams` parses them. Every write and
 * every stored request parses a form (the wire layer, and the handle's stored form of a request):
 * `URLSearchParams` costs about a microsecond for a four-field form, most of it building the
 * object and its iterator, so a form that needs no decoding (no `%`, no `+`, no lone surrogate,
 * no leading `?`) is split here instead; anything else goes to `URLSearchParams`, so every field
 * is exactly what it would give.
 */

/**
 * Calls `field(into, name, value)` with each name and value of `text`, in order (repeated names
 * included). `into` is passed through so callers can use one module-level function rather than a
 * closure per request (a closure per call is an allocation, and under tsx a `__name` call too).
 */
export function forEachFormField<T>(
  text: string,
  into: T,
  field: (into: T, name: string, value: string) => void,
): void {
  if (!isPlainForm(text)) {
    for (const [k, v] of new URLSearchParams(text)) field(into, k, v);
    return;
  }
  const n = text.length;
  let start = 0;
  while (start <= n) {
    let end = text.indexOf('&', start);
    if (end < 0) end = n;
    // Empty pieces (`a=1&&b=2`, a trailing `&`) are skipped, as the URL standard says.
    if (end > start) {
      const eq = text.indexOf('=', start);
      if (eq >= 0 && eq < end) field(into, text.slice(start, eq), text.slice(eq + 1, end));
      else field(into, text.slice(start, end), '');
    }
    start = end + 1;
  }
}

/**
 * Sets a field on a plain object, a field named `__proto__` included (as an own property, not the
 * prototype). Fields are gathered into plain objects rather than `Object.create(null)` ones: those
 * start in V8's dictionary mode, and building one and copying it out cost ~1.7 µs per request
 * against ~0.1 µs (a four-field form, Node 20).
 */
export function setField(into: Record<string, unknown>, name: string, value: unknown): void {
  if (name === '__proto__')
    Object.defineProperty(into, name, { value, writable: true, enumerable: true, configurable: true });
  else into[name] = value;
}

/** Whether `text` decodes to itself: nothing percent-encoded, no `+`, no surrogate, no leading `?`. */
function isPlainForm(text: string): boolean {
  if (text.charCodeAt(0) === 0x3f) return false; // URLSearchParams drops a leading `?`
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // `%` (0x25), `+` (0x2b); surrogates (0xd800–0xdfff) may be lone ones, which it replaces.
    if (c === 0x25 || c === 0x2b || (c >= 0xd800 && c <= 0xdfff)) return false;
  }
  return true;
}
