import { lexemes } from './text';

/**
 * A search operand as Zulip's tsearch backend reads it: `plainto_tsquery` of the whole operand
 * (every word, quoted ones included, as lexemes that must all occur), and each double-quoted
 * phrase also as a case-insensitive substring (`ILIKE '%phrase%'`) of the Markdown content or the
 * topic. No prefix matching: `plainto_tsquery` has none (the web client's own filter does).
 */
export interface SearchQuery {
  /** Distinct lexemes, in query order; empty when the operand has only stop words (nothing matches). */
  readonly lexemes: readonly string[];
  /** Lower-cased quoted phrases. */
  readonly phrases: readonly string[];
}

export function parseSearch(query: string): SearchQuery {
  const phrases: string[] = [];
  for (const m of query.match(/"[^"]+"|\S+/g) ?? []) {
    if (m.length >= 2 && m.startsWith('"') && m.endsWith('"')) phrases.push(m.slice(1, -1).toLowerCase());
  }
  return { lexemes: lexemes(query), phrases };
}

/**
 * Whether each phrase occurs in the Markdown content or the topic (Zulip's ILIKE on `content` and
 * `subject`): a case-insensitive (Unicode case folding) substring test, compiled once per query, so
 * a candidate costs no lower-cased copy of its content.
 */
export function phrasesMatch(q: SearchQuery, content: string, topic: string): boolean {
  if (q.phrases.length === 0) return true;
  for (const re of phraseMatchers(q)) if (!re.test(content) && !re.test(topic)) return false;
  return true;
}

const matchers = new WeakMap<SearchQuery, readonly RegExp[]>();

function phraseMatchers(q: SearchQuery): readonly RegExp[] {
  let m = matchers.get(q);
  if (m === undefined) {
    m = q.phrases.map((p) => new RegExp(p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'), 'iu'));
    matchers.set(q, m);
  }
  return m;
}

/**
 * The lexemes to highlight for a narrow: those of its non-negated `search` operands joined (Zulip
 * highlights every word of its tsquery, quoted ones included), or null when it has none.
 */
export function narrowSearchLexemes(
  narrow: ReadonlyArray<{ readonly operator: string; readonly operand: unknown; readonly negated?: boolean }>,
): ReadonlySet<string> | null {
  const operands = narrow.filter((t) => t.operator === 'search' && t.negated !== true);
  if (operands.length === 0) return null;
  return new Set(parseSearch(operands.map((t) => String(t.operand)).join(' ')).lexemes);
}
