import { zulipError, type ZulipError } from '../../core/errors';
import { FLAG_BITS } from '../../core/messages/flags';

/** Zulip's API flags (`UserMessage.flags` less NON_API_FLAGS). */
const ALL_FLAGS = new Set([
  'read',
  'starred',
  'collapsed',
  'mentioned',
  'stream_wildcard_mentioned',
  'topic_wildcard_mentioned',
  'group_mentioned',
  'force_expand',
  'force_collapse',
  'has_alert_word',
  'historical',
]);
const EDITABLE: Readonly<Record<string, number>> = {
  read: FLAG_BITS.read,
  starred: FLAG_BITS.starred,
  collapsed: FLAG_BITS.collapsed,
};

/**
 * The checks opening Zulip's `do_update_message_flags`, in its order: an unknown flag, a flag
 * clients may not edit, an operation other than add/remove. The flag's bit, or the error.
 */
export function checkFlagUpdate(flag: string, op: string): { bit: number; add: boolean } | ZulipError {
  if (!ALL_FLAGS.has(flag)) return zulipError(`Invalid flag: '${flag}'`);
  const bit = Object.hasOwn(EDITABLE, flag) ? EDITABLE[flag] : undefined;
  if (bit === undefined) return zulipError(`Flag not editable: '${flag}'`);
  if (op !== 'add' && op !== 'remove') return zulipError(`Invalid message flag operation: '${op}'`);
  return { bit, add: op === 'add' };
}
