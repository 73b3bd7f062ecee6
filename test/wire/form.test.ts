import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { forEachFormField } from '../../src/wire/form';

const fields = (text: string) => {
  const out: [string, string][] = [];
  forEachFormField(text, out, (into, k, v) => into.push([k, v]));
  return out;
};

describe('forEachFormField', () => {
  it('splits a plain form as URLSearchParams does', () => {
    for (const text of [
      '',
      '&',
      'a',
      'a=',
      '=b',
      'a=1&&b=2&',
      'a=1=2&a=3',
      '?a=1',
      'a=%41+b',
      'x=\ud800',
      '&&=&',
    ])
      expect(fields(text)).toEqual([...new URLSearchParams(text)]);
  });

  it('gives URLSearchParams fields for any text', () => {
    const piece = fc.constantFrom(
      'a',
      'b',
      '=',
      '&',
      '%',
      '%4',
      '%41',
      '+',
      '?',
      'é',
      '\ud83d',
      '\ude00',
      ' ',
      '',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 16 }), (parts) => {
        const text = parts.join('');
        expect(fields(text)).toEqual([...new URLSearchParams(text)]);
      }),
      { numRuns: 2000 },
    );
  });
});
