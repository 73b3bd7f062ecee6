import { parseSearch, phrasesMatch, type SearchQuery } from '../core/search/query';
import { messageLexemes } from '../core/search/text';

/**
 * Zulip's full-text search (`search_tsvector @@ plainto_tsquery(...)` plus ILIKE for quoted
 * phrases) decided for one message the straightforward way: tokenize and stem the message. The
 * narrow engine answers from the search index (core/search/search-index.ts) instead; this is the
 * reference the index is tested against (test/narrow/search-index.test.ts).
 */
export { parseSearch, type SearchQuery };

/** Whether a message (content, topic) matches; a query of only stop words matches nothing. */
export function searchMatches(q: SearchQuery, content: string, topic: string): boolean {
  if (q.lexemes.length === 0) return false;
  const have = messageLexemes(content, topic);
  return q.lexemes.every((l) => have.has(l)) && phrasesMatch(q, content, topic);
}
