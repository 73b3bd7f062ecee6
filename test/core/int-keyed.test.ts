/**
 * `intKeyedObject` (src/core/collections/int-keyed.ts) builds `message_details` through JSON.parse
 * for speed; it must be the same plain object as one built key by key.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { intKeyedObject } from '../../src/core/collections/int-keyed';

describe('intKeyedObject', () => {
  it('equals the object built key by key, values shared, JSON identical', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.nat({ max: 2 ** 40 }), { maxLength: 80 }), (keys) => {
        const entries = [{ a: 1 }, { b: [2] }, Object.freeze({ c: 'é' })];
        const values = keys.map((_, k) => entries[k % entries.length]!);
        const expected: Record<number, object> = {};
        keys.forEach((key, k) => (expected[key] = values[k]!));
        const built = intKeyedObject(keys, values);
        expect(built).toEqual(expected);
        expect(JSON.stringify(built)).toBe(JSON.stringify(expected));
        keys.forEach((key, k) => expect(built[key]).toBe(values[k]));
        expect(Object.getPrototypeOf(built)).toBe(Object.prototype);
      }),
    );
  });
});
