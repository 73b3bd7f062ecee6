import { nameOf } from '../core/messages/interner';
import { hasId } from '../core/search/postings';
import { parseSearch, phrasesMatch } from '../core/search/query';
import { searchIndexOf } from '../core/search/search-index';
import type { PlanBuilder } from './plan-builder';

/**
 * The `search` operator. Zulip joins every search operand into one (non-negated) query, applied
 * after the other terms, so the builder collects the operands and calls this once at the end.
 *
 * Answered from the search index: each lexeme's posting list is offered as a candidate list (the
 * smallest of all the narrow's lists drives the scan, newest first from the anchor, and stops
 * when the window is full) and is a membership test for the others; quoted phrases are checked
 * on the candidates only. A lexeme no message has makes the narrow empty at once.
 */
export function applySearch(b: PlanBuilder, operands: readonly string[]): void {
  if (operands.length === 0) return;
  const q = parseSearch(operands.join(' '));
  // Only stop words: PostgreSQL ignores such a query and it matches nothing.
  if (q.lexemes.length === 0) return b.matchNothing(false);
  const index = searchIndexOf(b.ctx.state.messages);
  for (const l of q.lexemes) {
    const list = index.postings.get(l);
    if (list === undefined) return b.matchNothing(false);
    const at = b.add(false, (c, i) => hasId(list, c.ids[i]!));
    b.driveFrom(list, [at], null);
  }
  if (q.phrases.length > 0) {
    const topics = b.ctx.state.messages.topics;
    b.add(false, (c, i) => {
      const r = c.recipient[i]!;
      return phrasesMatch(q, c.content[i]!, r > 0 ? nameOf(topics, c.topic[i]!) : '');
    });
  }
}
