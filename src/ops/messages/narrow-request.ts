import * as z from 'zod/mini';
import { zulipError, type ZulipError } from '../../core/errors';
import type { User } from '../../core/model/records';
import { accepts, zulipIssue } from '../../core/params';
import type { RealmState } from '../../core/state';
import { badNarrow, NEWEST } from '../../narrow';
import { accessMessage } from './message-access';
import { parseNarrow, type NarrowTerm, type Operand } from '../../narrow/terms';

/*
 * What GET /messages and POST /messages/flags/narrow share: the anchor and the narrow as the
 * request gives them. Kept apart from both operations, so importing one does not bundle the other.
 */

/** A narrow term as the library takes it: an object (the `negated` flag optional) or Zulip's legacy pair. */
export type NarrowInput =
  | { readonly operator: string; readonly operand: Operand; readonly negated?: boolean }
  | readonly [operator: string, operand: string];

/**
 * Python's `int()` on a string: surrounding whitespace, a sign, and single underscores between
 * digits are allowed. Returns null when Python would raise.
 */
export function parsePythonInt(text: string): number | null {
  const m = /^\s*([+-]?)(\d(?:_?\d)*)\s*$/u.exec(text);
  if (!m) return null;
  const digits = m[2]!.replaceAll('_', '');
  const n = Number(digits);
  return m[1] === '-' ? -n : n;
}

/** Zulip's `parse_anchor_value`: null for first_unread, clamped to [0, 10^16]; undefined when invalid. */
export function resolveAnchor(raw: string | number): number | null | undefined {
  if (raw === 'oldest') return 0;
  if (raw === 'newest') return NEWEST;
  if (raw === 'first_unread') return null;
  const n = typeof raw === 'number' ? raw : parsePythonInt(raw);
  if (n === null) return undefined;
  // `<= 0` also turns -0 ("-0" on the wire, or a library caller's -0) into Python's 0.
  return n <= 0 ? 0 : n > NEWEST ? NEWEST : n;
}

/** The first topic term named `general chat` means the empty topic (only the first topic term is looked at). */
export function renameGeneralChat(terms: readonly NarrowTerm[]): NarrowTerm[] {
  const out = [...terms];
  const i = out.findIndex((t) => t.operator === 'topic');
  if (i >= 0 && out[i]!.operand === 'general chat') out[i] = { ...out[i]!, operand: '' };
  return out;
}

/** A required `narrow` parameter: Zulip's term syntax, parsed (its errors as Zulip words them). */
export const narrowSchema = accepts<readonly NarrowInput[]>()(
  z.pipe(
    z.unknown(),
    z.transform((value, ctx) => {
      const r = parseNarrow(value);
      if (!r.ok) {
        zulipIssue(ctx, r.msg);
        return z.NEVER;
      }
      return r.terms;
    }),
  ),
);

/** `can_narrow_define_conversation`: a `dm` term, or a channel term together with a topic term. */
function definesConversation(terms: readonly NarrowTerm[]): boolean {
  let channel = false;
  let topic = false;
  for (const t of terms) {
    if (t.operator === 'dm' || t.operator === 'pm-with') return true;
    if (t.operator === 'stream' || t.operator === 'channel') channel = true;
    else if (t.operator === 'topic') topic = true;
    if (channel && topic) return true;
  }
  return false;
}

const CONVERSATION_OPERATORS = new Set(['stream', 'channel', 'topic', 'dm', 'pm-with']);

/**
 * Zulip's `update_narrow_terms_containing_with_operator` (zerver/lib/narrow.py), run after the
 * `general chat` rename as in `clean_narrow_for_message_fetch`: `with:<message id>` follows the
 * message's conversation wherever it is now. The term is dropped; a message the user may read
 * replaces the conversation terms (channel, topic, dm) with its channel and topic, or its direct
 * message participants (a one-to-one message by its recipient's id, as Zulip's `Recipient`
 * gives it); otherwise the given terms stay when they name a conversation by themselves, and the
 * narrow is refused when they do not.
 */
export function resolveWithOperator(
  state: RealmState,
  user: User,
  terms: readonly NarrowTerm[],
): NarrowTerm[] | ZulipError {
  const withTerms = terms.filter((t) => t.operator === 'with');
  if (withTerms.length === 0) return [...terms];
  if (withTerms.length > 1)
    return zulipError("Invalid narrow operator combination: Duplicate 'with' operators.", 'BAD_NARROW', 400, {
      desc: "Duplicate 'with' operators.",
    });
  const rest = terms.filter((t) => t !== withTerms[0]);
  const invalid = badNarrow("Invalid 'with' operator");
  const operand = withTerms[0]!.operand;
  const messageId =
    typeof operand === 'string'
      ? parsePythonInt(operand)
      : typeof operand === 'boolean'
        ? Number(operand)
        : operand;
  if (typeof messageId !== 'number') return invalid;
  const accessed = accessMessage(state, user, messageId, false);
  if (accessed === undefined) return definesConversation(rest) ? rest : invalid;
  const others = rest.filter((t) => !CONVERSATION_OPERATORS.has(t.operator));
  const { record } = accessed;
  if (record.stream_id !== null)
    return [
      { operator: 'channel', operand: record.stream_id, negated: false },
      { operator: 'topic', operand: record.topic, negated: false },
      ...others,
    ];
  const participants = record.participants ?? [];
  // A one-to-one message's `Recipient` is its receiver (the sender for a message to oneself).
  const dm =
    participants.length <= 2
      ? [participants.find((id) => id !== record.sender_id) ?? record.sender_id]
      : [...participants];
  return [{ operator: 'dm', operand: dm, negated: false }, ...others];
}
