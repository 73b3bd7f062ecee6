import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checksum } from '../../src/host/checksum';

/** A string's UTF-16 code units as bytes, low byte first: what the string path hashes. */
function utf16le(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    bytes[2 * i] = c & 0xff;
    bytes[2 * i + 1] = c >>> 8;
  }
  return bytes;
}

describe('checksum', () => {
  it('is CRC-32 (IEEE)', () => {
    expect(checksum(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
  });

  it('hashes a string as its UTF-16 code units, low byte first, at any length and seed', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), fc.nat(), (text, seed) => {
        expect(checksum(text, seed)).toBe(checksum(utf16le(text), seed));
      }),
      { numRuns: 2000 },
    );
  });

  it('from a start offset is the checksum of the rest, for strings and bytes, any seed', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.integer({ min: -2, max: 45 }),
        fc.nat(),
        (text, start, seed) => {
          const from = Math.max(0, start);
          expect(checksum(text, seed, start)).toBe(checksum(text.slice(from), seed));
          const bytes = utf16le(text);
          expect(checksum(bytes, seed, start)).toBe(checksum(bytes.subarray(from), seed));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
