/**
 * An approximation of Zulip's PostgreSQL full-text search (`search_tsvector @@ plainto_tsquery`):
 * every non-stop-word of the query, after a light English stemming, must occur in the content or
 * the topic; each double-quoted phrase must also occur as a case-insensitive substring of the
 * content or the topic. PostgreSQL's Snowball stemmer and parser are not reproduced exactly.
 */
const STOP_WORDS = new Set(
  (
    'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its ' +
    'itself they them their theirs themselves what which who whom this that these those am is are was were be been being have ' +
    'has had having do does did doing a an the and but if or because as until while of at by for with about against between ' +
    'into through during before after above below to from up down in out on off over under again further then once here there ' +
    'when where why how all any both each few more most other some such no nor not only own same so than too very s t can will ' +
    'just don should now'
  ).split(' '),
);

/** A light English stemmer (suffix stripping); applied to both the query and the text. */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3) return w;
  if (w.endsWith("'s")) w = w.slice(0, -2);
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ies')) w = `${w.slice(0, -3)}i`;
  else if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us')) w = w.slice(0, -1);
  for (const suffix of ['ingly', 'edly', 'ing', 'ed', 'ly']) {
    if (w.endsWith(suffix) && w.length - suffix.length >= 3) {
      w = w.slice(0, -suffix.length);
      if (/([^aeiouslz])\1$/.test(w)) w = w.slice(0, -1);
      break;
    }
  }
  if (w.endsWith('y') && w.length > 3) w = `${w.slice(0, -1)}i`;
  return w;
}

function lexemes(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).filter((w) => !STOP_WORDS.has(w)).map(stem);
}

export interface SearchQuery {
  readonly lexemes: readonly string[];
  readonly phrases: readonly string[];
}

export function parseSearch(query: string): SearchQuery {
  const phrases: string[] = [];
  for (const m of query.match(/"[^"]+"|\S+/g) ?? []) {
    if (m.length >= 2 && m.startsWith('"') && m.endsWith('"')) phrases.push(m.slice(1, -1).toLowerCase());
  }
  return { lexemes: [...new Set(lexemes(query))], phrases };
}

/** Whether a message (content, topic) matches; a query of only stop words matches nothing. */
export function searchMatches(q: SearchQuery, content: string, topic: string): boolean {
  if (q.phrases.length > 0) {
    const c = content.toLowerCase();
    const t = topic.toLowerCase();
    for (const p of q.phrases) if (!c.includes(p) && !t.includes(p)) return false;
  }
  if (q.lexemes.length === 0) return false;
  const have = new Set(lexemes(`${topic} ${content}`));
  return q.lexemes.every((l) => have.has(l));
}
