/**
 * The search tokenizer, stemmer and highlighter:
 * - lexemes as PostgreSQL's `zulip.english_us_search` gives them for words the hunspell step
 *   leaves to `english_stem` (expected values from PostgreSQL 15's `to_tsvector`/`ts_lexize`);
 * - the text indexed for a message's Markdown has the same lexemes as its rendering's text;
 * - `match_content` / `match_subject` highlights as Zulip's `highlight_string` makes them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/core/markdown';
import { escapeHtmlTopic, highlightHtml } from '../../src/core/search/highlight';
import { parseSearch, phrasesMatch } from '../../src/core/search/query';
import { forEachWord, indexedText, lexemes, WORD } from '../../src/core/search/text';

describe('search text', () => {
  it('tokenizes, drops stop words and stems as PostgreSQL english_stem', () => {
    // select ts_lexize('english_stem', w): generously → generous, running → run, ...
    expect(lexemes('Generously running databases, cafés and naïve ÜBER')).toEqual([
      'generous',
      'run',
      'databas',
      'café',
      'naïv',
      'über',
    ]);
    // `_` separates words; digits keep a word unstemmed; single letters are Zulip stop words.
    expect(lexemes("foo_bar v2 2024 don't x y the")).toEqual(['foo', 'bar', 'v2', '2024']);
    expect(lexemes('the and of')).toEqual([]);
  });

  it('splits words by a character loop exactly as the WORD expression does', () => {
    const ch = fc.constantFrom(
      'a',
      'Z',
      '9',
      '_',
      '-',
      ' ',
      'é',
      'İ',
      '\u0301',
      '中',
      '😀',
      '𝔸',
      '٣',
      '\n',
      "'",
    );
    fc.assert(
      fc.property(fc.array(ch, { maxLength: 20 }), (chars) => {
        const s = chars.join('');
        const words: string[] = [];
        forEachWord(s, (w) => words.push(w));
        expect(words).toEqual([...s.toLowerCase().matchAll(WORD)].map((m) => m[0]));
      }),
      { numRuns: 500 },
    );
  });

  it('parses quoted phrases and keeps their words in the query', () => {
    expect(parseSearch('lunch "Fish and chips"')).toEqual({
      lexemes: ['lunch', 'fish', 'chip'],
      phrases: ['fish and chips'],
    });
  });

  it('matches phrases case-insensitively as literal text', () => {
    const q = parseSearch('"Foo-bar (x) [y] a.b \\\\ / ^$ * + ? {1} |"');
    expect(phrasesMatch(q, 'so FOO-BAR (X) [Y] A.B \\\\ / ^$ * + ? {1} | there', '')).toBe(true);
    expect(phrasesMatch(q, 'foo-bar (x) [y] aXb \\\\ / ^$ * + ? {1} |', '')).toBe(false);
    expect(phrasesMatch(parseSearch('"Café Lunch"'), '', 'CAFÉ lunch plans')).toBe(true);
  });

  it('indexes the lexemes of the rendered text', () => {
    const word = fc.constantFrom('lunch', 'Deploy', 'the', 'x', 'servers', 'café', 'v2', 'https', 'org');
    const sep = fc.constantFrom(
      ' ',
      '\n',
      '\n\n',
      ' *',
      '* ',
      ' **',
      '** ',
      ' ~~',
      '~~ ',
      ', ',
      '<',
      '&',
      '>',
    );
    const piece = fc.oneof(
      fc.tuple(word, sep).map(([w, s]) => w + s),
      fc.tuple(word, word).map(([t, u]) => ` [${t} ${u}](https://example.org/${u}) `),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (parts) => {
        const md = parts.join('');
        const html = renderMarkdown(md);
        const renderedText = html.replace(/<[^>]*>/g, ' ').replace(/&#?[A-Za-z0-9]+;/g, ' ');
        expect(new Set(lexemes(indexedText(md)))).toEqual(new Set(lexemes(renderedText)));
      }),
      { numRuns: 300 },
    );
  });

  it('highlights matching words outside tags and entities', () => {
    const q = new Set(parseSearch('lunch deploy').lexemes);
    expect(
      highlightHtml('<p>Lunch after <a href="https://lunch.example">deploying</a> &amp; lunches</p>', q),
    ).toBe(
      '<p><span class="highlight">Lunch</span> after <a href="https://lunch.example"><span class="highlight">deploying</span></a> &amp; <span class="highlight">lunches</span></p>',
    );
    expect(highlightHtml('<p>nothing here</p>', q)).toBe('<p>nothing here</p>');
    expect(highlightHtml(escapeHtmlTopic('lunch <plans> & "more"'), q)).toBe(
      '<span class="highlight">lunch</span> &lt;plans&gt; &amp; &quot;more&quot;',
    );
  });
});
