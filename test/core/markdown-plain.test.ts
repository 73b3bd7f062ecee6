import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderInline, renderMarkdown } from '../../src/core/markdown';

/** The paragraph path alone (what `renderMarkdown` did for every text before its plain-text shortcut). */
function paragraphs(text: string): string {
  const normalized = text.replace(/\r\n?/g, '\n');
  if (normalized.trim() === '') return '';
  return normalized
    .split(/\n[ \t]*\n/)
    .map((p) => p.replace(/^\n+|\n+$/g, ''))
    .filter((p) => p.trim() !== '')
    .map((p) => `<p>${p.split('\n').map(renderInline).join('<br>\n')}</p>`)
    .join('\n');
}

describe('renderMarkdown: the plain-text shortcut changes nothing', () => {
  const chars = fc.constantFrom(...'ab Z09 .,!?\'"()-#_+\t\u00a0é\n\r\\`[]*~&<>:/@'.split(''));
  it('equals the paragraph path on any text', () => {
    fc.assert(
      fc.property(fc.array(chars, { maxLength: 40 }), (cs) => {
        const text = cs.join('');
        expect(renderMarkdown(text)).toBe(paragraphs(text));
      }),
      { numRuns: 3000 },
    );
  });
  it('renders plain text as one paragraph of itself', () => {
    expect(renderMarkdown('Message 12')).toBe('<p>Message 12</p>');
    expect(renderMarkdown('  \t ')).toBe('');
  });
});
