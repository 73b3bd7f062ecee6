/**
 * Bounds on what a register request asks a queue to keep. Zulip has none beyond its request size
 * (zerver/views/events_register.py takes any list), but each queue keeps its `narrow` and
 * `event_types` for its whole life and tests every event against them, so an unbounded list lets
 * one member hold megabytes per queue and slow every delivery (issue 31). The bounds are far above
 * what a client sends (Zulip has about 80 event types; its clients send at most a few narrow
 * terms) and are documented in docs/hosting.md and docs/differences/register.md.
 */
import { errors, type ZulipError } from '../errors';
import { codePointLength } from '../params';
import type { EventNarrowTerm } from './narrow-events';

/** Terms a register `narrow` may have. */
export const MAX_NARROW_TERMS = 100;
/** Characters (code points) of one narrow operand: a channel name, topic or email is far shorter. */
export const MAX_NARROW_OPERAND_LENGTH = 1000;
/** Names `event_types` or `fetch_event_types` may list. */
export const MAX_EVENT_TYPES = 200;
/** Characters of one event type name. */
export const MAX_EVENT_TYPE_LENGTH = 100;

export interface QueueRequestLists {
  readonly narrow?: readonly EventNarrowTerm[] | undefined;
  readonly event_types?: readonly string[] | null | undefined;
  readonly fetch_event_types?: readonly string[] | null | undefined;
}

/** The first list over its bound, as a 400 BAD_REQUEST; undefined when all fit. */
export function checkRegisterLimits(lists: QueueRequestLists): ZulipError | undefined {
  const narrow = lists.narrow ?? [];
  if (narrow.length > MAX_NARROW_TERMS)
    return errors.badRequest(`Too many narrow terms (the limit is ${MAX_NARROW_TERMS})`);
  for (const term of narrow)
    if (term.some((part) => codePointLength(part) > MAX_NARROW_OPERAND_LENGTH))
      return errors.badRequest(`narrow operand is too long (limit: ${MAX_NARROW_OPERAND_LENGTH} characters)`);
  for (const name of ['event_types', 'fetch_event_types'] as const) {
    const list = lists[name] ?? [];
    if (list.length > MAX_EVENT_TYPES)
      return errors.badRequest(`Too many ${name} (the limit is ${MAX_EVENT_TYPES})`);
    if (list.some((type) => codePointLength(type) > MAX_EVENT_TYPE_LENGTH))
      return errors.badRequest(`${name} item is too long (limit: ${MAX_EVENT_TYPE_LENGTH} characters)`);
  }
  return undefined;
}
