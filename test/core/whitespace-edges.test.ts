/**
 * The strips and the topic check skip their regexes for plain ASCII (send's fast path). Law: for
 * any string, each answers what the regex alone answers (the sets as documented in
 * src/core/text/whitespace.ts and send-checks.ts, restated here as the reference).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkTopicPrintable, normalizeMessageContent, pyRstrip } from '../../src/core/messages/send-checks';
import { pythonStrip, stripUnicodeWhitespace } from '../../src/core/text/whitespace';
import { devRealm } from '../support/realm';

const WS = '\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PY = `${WS}\\u001c-\\u001f`;
const unicodeEdges = new RegExp(`^[${WS}]+|[${WS}]+$`, 'gu');
const pythonEdges = new RegExp(`^[${PY}]+|[${PY}]+$`, 'gu');
const trailing = new RegExp(`[${PY}]+$`, 'u');
const unprintable = /[\p{Cc}\p{Cs}\p{Cn}]/u;

function firstUnprintable(topic: string): number {
  let position = 0;
  for (const ch of topic) {
    position++;
    if (unprintable.test(ch)) return position;
  }
  return 0;
}

// Edges and insides drawn from ASCII, the whitespace sets, controls and a few non-ASCII letters.
const piece = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.constantFrom(
    ' ',
    '\n',
    '\t',
    '\x1c',
    '\x00',
    '\x7f',
    '\x85',
    '\xa0',
    '\u3000',
    '\ufeff',
    'é',
    '\ud800',
    '~',
    '!',
  ),
);
const text = fc.array(piece, { maxLength: 6 }).map((xs) => xs.join(''));

describe('whitespace and printable fast paths', () => {
  it('strip as the regexes do', () => {
    fc.assert(
      fc.property(text, (s) => {
        expect(stripUnicodeWhitespace(s)).toBe(s.replace(unicodeEdges, ''));
        expect(pythonStrip(s)).toBe(s.replace(pythonEdges, ''));
        expect(pyRstrip(s)).toBe(s.replace(trailing, ''));
      }),
      { numRuns: 2000 },
    );
  });

  it('find the first unprintable character as the per-character regex does', () => {
    fc.assert(
      fc.property(text, (topic) => {
        const at = firstUnprintable(topic);
        const r = checkTopicPrintable(topic);
        if (at === 0) expect(r).toBeUndefined();
        else expect(r?.msg).toBe(`Invalid character in topic, at position ${at}!`);
      }),
      { numRuns: 2000 },
    );
  });

  it('normalize a message body as rstrip then dropping leading newlines', () => {
    const state = devRealm();
    fc.assert(
      fc.property(text, (s) => {
        const body = s.replace(trailing, '').replace(/^\n+/, '');
        const r = normalizeMessageContent(state, s);
        if (body.length === 0 || body.includes('\x00')) expect(typeof r).not.toBe('string');
        else expect(r).toBe(body);
      }),
      { numRuns: 2000 },
    );
  });
});
