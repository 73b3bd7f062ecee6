/**
 * The `narrow` of POST /register: which `message` events a queue receives (Zulip's
 * zerver/lib/narrow_predicate.py). Only a few operators exist here, none negated, and each is
 * tested against the message dictionary and flags the event carries, not against the database.
 */
import { errors, type ZulipError } from '../errors';

/** One `[operator, operand]` pair, as the register request sends it (checked to have two). */
export type EventNarrowTerm = readonly string[];

/** What a predicate reads of a `message` event. */
export interface NarrowedMessage {
  readonly type: string;
  readonly display_recipient?: unknown;
  readonly subject?: unknown;
  readonly sender_email?: unknown;
}

export type EventNarrowPredicate = (message: NarrowedMessage, flags: readonly string[]) => boolean;

const CHANNEL_OPERATORS = new Set(['channel', 'stream']);
const SUPPORTED = new Set([...CHANNEL_OPERATORS, 'topic', 'exact-topic', 'sender', 'is']);
const UNSUPPORTED_IS = new Set(['followed']);
const RESOLVED_TOPIC_PREFIX = '✔ ';

/** Zulip's `check_narrow_for_events`: the first term it cannot filter events by is refused. */
export function checkNarrowForEvents(narrow: readonly EventNarrowTerm[]): ZulipError | undefined {
  for (const [operator = '', operand = ''] of narrow) {
    if (!SUPPORTED.has(operator)) return errors.badRequest(`Operator ${operator} not supported.`);
    if (operator === 'is' && UNSUPPORTED_IS.has(operand))
      return errors.badRequest(`Operand ${operand} not supported.`);
  }
  return undefined;
}

/** Every term must hold; `null` when there is no term (every message event is accepted). */
export function eventNarrowPredicate(narrow: readonly EventNarrowTerm[]): EventNarrowPredicate | null {
  if (narrow.length === 0) return null;
  const terms = narrow.map(([operator = '', operand = '']) => [operator, operand] as const);
  return (message, flags) =>
    terms.every(([operator, operand]) => satisfies(operator, operand, message, flags));
}

function satisfies(
  operator: string,
  operand: string,
  message: NarrowedMessage,
  flags: readonly string[],
): boolean {
  const isStream = message.type === 'stream';
  const topic = String(message.subject ?? '');
  if (CHANNEL_OPERATORS.has(operator))
    return isStream && operand.toLowerCase() === String(message.display_recipient).toLowerCase();
  switch (operator) {
    case 'topic': {
      // The whole topic, case-insensitively (Zulip's narrow_predicate.py), never one of its words.
      return isStream && operand.toLowerCase() === topic.toLowerCase();
    }
    case 'exact-topic':
      return isStream && operand === topic;
    case 'sender':
      return operand.toLowerCase() === String(message.sender_email).toLowerCase();
    case 'is':
      return satisfiesIs(operand, isStream, topic, flags);
    default:
      return true;
  }
}

function satisfiesIs(operand: string, isStream: boolean, topic: string, flags: readonly string[]): boolean {
  switch (operand) {
    case 'dm':
    case 'private':
      return !isStream;
    case 'starred':
      return flags.includes('starred');
    case 'unread':
      return !flags.includes('read');
    case 'alerted':
    case 'mentioned':
      return flags.includes('mentioned');
    case 'resolved':
      return isStream && topic.startsWith(RESOLVED_TOPIC_PREFIX);
    default:
      // Zulip's predicate lets every other `is:` operand through.
      return true;
  }
}
