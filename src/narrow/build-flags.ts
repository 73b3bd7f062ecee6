import { FLAG_BITS, MESSAGE_BITS } from '../core/messages/flags';
import { VisibilityPolicy } from '../core/model/records';
import { excludedFromHome } from './context';
import { NarrowError, type PlanBuilder } from './plan-builder';
import { pyStr, type NarrowTerm } from './terms';

/**
 * The `is:`, `in:` and `has:` family. Row flags become flag tests (the evaluator folds them into
 * masks); muting, topic state and message bits become message tests.
 */

const MENTION_BITS =
  FLAG_BITS.mentioned | FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned;

const HAS_BITS: Readonly<Record<string, number>> = {
  link: MESSAGE_BITS.has_link,
  image: MESSAGE_BITS.has_image,
  attachment: MESSAGE_BITS.has_attachment,
  reaction: MESSAGE_BITS.has_reaction,
};

export function applyIs(b: PlanBuilder, term: NarrowTerm): void {
  const operand = String(term.operand);
  const negated = term.negated;
  const ctx = b.ctx;
  switch (operand) {
    case 'dm':
    case 'private':
      // Zulip marks a negated is:dm as asking for channel messages.
      b.mark(negated, !negated);
      b.addFlag(negated, FLAG_BITS.is_private, true);
      return;
    case 'starred':
      b.addFlag(negated, FLAG_BITS.starred, true);
      return;
    case 'unread':
      b.addFlag(negated, FLAG_BITS.read, false);
      return;
    case 'mentioned':
      b.addFlag(negated, MENTION_BITS, true);
      return;
    case 'alerted':
      b.addFlag(negated, FLAG_BITS.has_alert_word, true);
      return;
    case 'resolved':
      b.add(negated, (c, i) => c.recipient[i]! > 0 && ctx.isResolvedTopic(c.topic[i]!));
      return;
    case 'followed': {
      const muting = ctx.mutingInfo;
      b.add(
        negated,
        (c, i) =>
          c.recipient[i]! > 0 &&
          muting.policies.get(c.recipient[i]!)?.get(c.topicKey[i]!) === VisibilityPolicy.followed,
      );
      return;
    }
    case 'muted': {
      const muting = ctx.mutingInfo;
      b.add(
        negated,
        (c, i) => c.recipient[i]! > 0 && excludedFromHome(muting, c.recipient[i]!, c.topicKey[i]!),
      );
      return;
    }
    default:
      throw new NarrowError(`unknown 'is' operand ${operand}`);
  }
}

export function applyIn(b: PlanBuilder, { operand, negated }: NarrowTerm): void {
  if (operand === 'all') return;
  if (operand !== 'home') throw new NarrowError(`unknown 'in' operand ${pyStr(operand)}`);
  const muting = b.ctx.mutingInfo;
  // in:home is "not muted": the muted test, inverted.
  b.add(!negated, (c, i) => c.recipient[i]! > 0 && excludedFromHome(muting, c.recipient[i]!, c.topicKey[i]!));
}

export function applyHas(b: PlanBuilder, { operand, negated }: NarrowTerm): void {
  const bit = Object.hasOwn(HAS_BITS, String(operand)) ? HAS_BITS[String(operand)] : undefined;
  if (bit === undefined) throw new NarrowError(`unknown 'has' operand ${pyStr(operand)}`);
  b.add(negated, (c, i) => (c.bits[i]! & bit) !== 0);
}
