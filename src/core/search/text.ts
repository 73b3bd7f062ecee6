import { stem } from 'porter2';

/**
 * The words of a text as Zulip's search sees them, after PostgreSQL's `zulip.english_us_search`
 * configuration as closely as the engine can: runs of letters and digits (anything else, `_`
 * included, separates words, as PostgreSQL's default parser does), lower-cased, Zulip's stop
 * words (`zulip_english.stop`: PostgreSQL's English list plus the single letters) dropped, and
 * words of letters only reduced by the Snowball English (Porter2) stemmer (`english_stem`); words
 * with a digit stay as they are (PostgreSQL maps them to the `simple` dictionary). The hunspell
 * step of Zulip's configuration and the parser's URL, e-mail, host, number and hyphenated-word
 * tokens are not reproduced (docs/differences/narrow.md).
 */

const STOP_LIST =
  'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it ' +
  'its itself they them their theirs themselves what which who whom this that these those am is are was were be been ' +
  'being have has had having do does did doing a an the and but if or because as until while of at by for with about ' +
  'against between into through during before after above below to from up down in out on off over under again ' +
  'further then once here there when where why how all any both each few more most other some such no nor not only ' +
  'own same so than too very s t can will just don should now b c d e f g h j k l m n o p q r u v w x y z';

const STOP_WORDS: ReadonlySet<string> = new Set(STOP_LIST.split(' '));

/** A word: letters (with their combining marks) and digits. */
export const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const HAS_DIGIT = /\p{N}/u;

/**
 * Lexemes by lower-cased word, so a realm's million messages stem each distinct word once. Bounded:
 * cleared when full (the stemmer is a pure function, so this only trades memory for time).
 */
const lexemeCache = new Map<string, string | null>();
const CACHE_LIMIT = 1 << 18;

/** The lexeme of one lower-cased word, or null for a stop word. */
export function lexemeOf(word: string): string | null {
  let l = lexemeCache.get(word);
  if (l === undefined) {
    l = STOP_WORDS.has(word) ? null : HAS_DIGIT.test(word) ? word : stem(word);
    if (lexemeCache.size >= CACHE_LIMIT) lexemeCache.clear();
    lexemeCache.set(word, l);
  }
  return l;
}

/** ASCII letters and digits (the common case, tested without a regular expression). */
const ASCII_WORD = new Uint8Array(128);
for (let c = 48; c < 58; c++) ASCII_WORD[c] = 1;
for (let c = 97; c < 123; c++) ASCII_WORD[c] = 1;
for (let c = 65; c < 91; c++) ASCII_WORD[c] = 1;
const WORD_CHAR = /[\p{L}\p{M}\p{N}]/u;

/**
 * Calls `fn` with each lower-cased word of `text`, in order: the same words as `WORD` finds, by a
 * character loop (the index build tokenizes every message; a regular expression's match objects
 * cost more than the rest of the build). Surrogate pairs are tested as one code point.
 */
export function forEachWord(text: string, fn: (word: string) => void): void {
  const lower = text.toLowerCase();
  const n = lower.length;
  let start = -1;
  for (let i = 0; i < n; i++) {
    const c = lower.charCodeAt(i);
    let word: boolean;
    let width = 1;
    if (c < 128) word = ASCII_WORD[c] === 1;
    else {
      const cp = lower.codePointAt(i)!;
      width = cp > 0xffff ? 2 : 1;
      word = WORD_CHAR.test(String.fromCodePoint(cp));
    }
    if (word) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      fn(lower.slice(start, i));
      start = -1;
    }
    i += width - 1;
  }
  if (start >= 0) fn(lower.slice(start));
}

/** Adds the lexemes of `text` to `out`. */
function addLexemes(text: string, out: Set<string>): void {
  forEachWord(text, (w) => {
    const l = lexemeOf(w);
    if (l !== null) out.add(l);
  });
}

/** The distinct lexemes of `text`, in order of first appearance. */
export function lexemes(text: string): string[] {
  const out = new Set<string>();
  addLexemes(text, out);
  return [...out];
}

/**
 * The text Zulip's index sees for a message's Markdown: its rendering's text. The engine's
 * renderer (core/markdown.ts) only adds punctuation, tags and entities, which separate words
 * anyway, except that a link `[text](url)` shows its text and hides its URL in an attribute
 * (PostgreSQL's parser skips tags); so the URL is dropped here instead of rendering every message
 * (test/core/search-text.test.ts checks this against the renderer).
 */
export function indexedText(content: string): string {
  return content.includes('](') ? content.replace(LINK, '$1') : content;
}
const LINK = /\[([^\]]+)\]\((?:https?:\/\/|mailto:)[^()\s]+\)/gi;

/** Every lexeme a message is found by: its topic's and its rendered content's. */
export function messageLexemes(content: string, topic: string): Set<string> {
  const out = new Set<string>();
  addLexemes(topic, out);
  addLexemes(indexedText(content), out);
  return out;
}
