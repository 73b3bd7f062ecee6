/**
 * Changes recorded by chat-realm up to 0.1.x without a topic sent as `subject` (issue 23; see
 * doctor.ts): how to recognize one, and what to tell the operator when it does not replay.
 */
import type { Change } from './change';

/**
 * Whether a stored change looks like one recorded without its `subject`: an acknowledged wire
 * request to send a message or edit a scheduled message whose fields have neither `topic` nor
 * `subject` (a change recorded now keeps whichever was sent).
 */
export function lostTopicAlias(change: Change): boolean {
  const input = change.input;
  if (input.kind !== 'request' || change.status !== 200) return false;
  if (typeof input.body !== 'object') return false;
  if (Object.hasOwn(input.body, 'topic') || Object.hasOwn(input.body, 'subject')) return false;
  const path = input.url.split('?')[0]!.replace(/\/+$/, '');
  const method = input.method.toUpperCase();
  return (
    (method === 'POST' && /\/api\/v1\/messages$/.test(path)) ||
    (method === 'PATCH' && /\/api\/v1\/scheduled_messages\/\d+$/.test(path))
  );
}

/** Said with a divergence of such a change: what happened and what to do. */
export const LOST_TOPIC_HINT =
  'this change was recorded without its topic, which was sent as `subject` (a defect of chat-realm ' +
  'up to 0.1.x); run `chat-realm doctor` on this store (docs/persistence.md, "Stores that lost a `subject`")';
