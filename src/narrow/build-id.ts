import { NarrowError, type PlanBuilder } from './plan-builder';
import { pyStr, type NarrowTerm } from './terms';

/**
 * The `id` operator: a non-negated id term limits candidates to one message, which beats any
 * index list; two such terms with different ids match nothing.
 */
export function applyId(b: PlanBuilder, { operand, negated }: NarrowTerm): void {
  const text = pyStr(operand);
  // Zulip parses the operand as a non-negative 32-bit integer (booleans are not ids here).
  if (typeof operand === 'boolean' || !/^[0-9]+$/.test(text) || Number(text) > 2147483647) {
    throw new NarrowError('Invalid message ID');
  }
  const id = Number(text);
  b.add(negated, (c, i) => c.ids[i] === id);
  if (!negated) b.single = b.single === null || b.single === id ? id : -1;
}
