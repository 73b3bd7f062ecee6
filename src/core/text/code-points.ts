/**
 * Python's string order (Zulip sorts channel lists with `sorted(..., key=name)`): by code point,
 * so upper case before lower case and astral characters after every BMP one. JavaScript's `<`
 * compares UTF-16 code units, which differs for characters above U+E000 against astral ones.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Differing units: a surrogate (an astral code point) outranks every BMP code point.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}
