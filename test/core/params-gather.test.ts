/**
 * `parseParams` reads a plain object's keys in one pass into per-spec slots (a reused array), and any
 * other object spec by spec. The law: both readings give the same answer (values, ignored keys, or
 * the Zulip error, the first in spec order), whatever the keys, aliases, unknown or undefined values.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { parseParams, param, rawParam } from '../../src/core/params';

let nested: unknown;

const specs = [
  rawParam('client', z.string()),
  rawParam('content', z.string(), { required: true }),
  param('read_by_sender', z.boolean()),
  rawParam('to', z.union([z.string(), z.int()])),
  rawParam(
    'topic',
    z.pipe(
      z.string(),
      z.transform((s: string) => s.trim()),
    ),
    { alias: 'subject' },
  ),
  rawParam(
    'again',
    z.pipe(
      z.string(),
      z.transform((s: string) => {
        // A parse inside a parse (of the same list) gets its own slots.
        nested = parseParams(specs, { content: s, subject: 'inner' }, 'decoded');
        return s.length;
      }),
    ),
  ),
];

const KEYS = ['client', 'content', 'read_by_sender', 'to', 'topic', 'subject', 'again', 'other', 'zzz'];
const value = fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.boolean(), fc.constant(undefined));
const input = fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 6 });

/** The same keys and values on an object whose prototype is not `Object.prototype` (read spec by spec). */
function unplain(o: Record<string, unknown>): Record<string, unknown> {
  return Object.assign(Object.create({ inherited: 'x' }) as Record<string, unknown>, o);
}

describe('parseParams over plain and other objects', () => {
  it('answers the same for a plain object, a null-prototype object and any other object', () => {
    fc.assert(
      fc.property(input, fc.constantFrom<'wire' | 'decoded'>('wire', 'decoded'), (o, mode) => {
        const plain = parseParams(specs, { ...o }, mode);
        const bare = parseParams(
          specs,
          Object.assign(Object.create(null) as Record<string, unknown>, o),
          mode,
        );
        const other = parseParams(specs, unplain(o), mode);
        expect(bare).toEqual(plain);
        expect(other).toEqual(plain);
      }),
      { numRuns: 400 },
    );
  });

  it('reports the first problem in spec order, unknown keys as ignored, and parses inside a parse', () => {
    expect(parseParams(specs, { topic: 'a', subject: 'b' }, 'decoded')).toMatchObject({ ok: false });
    expect(parseParams(specs, { topic: 'a' }, 'decoded')).toMatchObject({
      ok: false,
      error: { msg: "Missing 'content' argument" },
    });
    expect(parseParams(specs, { content: 'x', zzz: 1, other: 2, client: 'c' }, 'decoded')).toEqual({
      ok: true,
      values: { client: 'c', content: 'x' },
      ignored: ['other', 'zzz'],
    });
    expect(parseParams(specs, { content: 'x', subject: ' t ', to: undefined }, 'decoded')).toEqual({
      ok: true,
      values: { content: 'x', topic: 't' },
      ignored: [],
    });
    const outer = parseParams(specs, { content: 'outer', again: 'abc', topic: 'o' }, 'decoded');
    expect(outer).toEqual({ ok: true, values: { content: 'outer', topic: 'o', again: 3 }, ignored: [] });
    expect(nested).toEqual({ ok: true, values: { content: 'abc', topic: 'inner' }, ignored: [] });
    // The slots are empty again: nothing of an earlier parse shows through.
    expect(parseParams(specs, { content: 'y' }, 'decoded')).toEqual({
      ok: true,
      values: { content: 'y' },
      ignored: [],
    });
  });
});
