/**
 * Percent-encodes a path segment the way a raw HTTP client would send its bytes. `encodeURIComponent`
 * throws on a lone surrogate; a client that writes such a string still puts bytes on the wire (its
 * three-byte WTF-8 form), which is malformed UTF-8 the engine must answer without throwing.
 */
export function encodePathSegment(value: string): string {
  let out = '';
  for (const ch of value) {
    const unit = ch.charCodeAt(0);
    if (ch.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      out += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('');
    } else {
      out += encodeURIComponent(ch);
    }
  }
  return out;
}
