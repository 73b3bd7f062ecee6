import { nameOf } from '../core/messages/interner';
import type { PlanBuilder } from './plan-builder';
import { parseSearch, searchMatches } from './search';

/**
 * The `search` operator. Zulip joins every search operand into one (non-negated) query, applied
 * after the other terms, so the builder collects the operands and calls this once at the end.
 */
export function applySearch(b: PlanBuilder, operands: readonly string[]): void {
  if (operands.length === 0) return;
  const q = parseSearch(operands.join(' '));
  const topics = b.ctx.state.messages.topics;
  b.add(false, (c, i) => {
    const r = c.recipient[i]!;
    return searchMatches(q, c.content[i]!, r > 0 ? nameOf(topics, c.topic[i]!) : '');
  });
}
