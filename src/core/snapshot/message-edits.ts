import type { EditHistoryEntry, MessageEdits } from '../messages/store-types';
import type { IssueList } from './issues';
import { HOLE, nonJsonReason } from './json-values';

/**
 * A message's edit history in snapshots and streams (docs/realm-snapshot.md): three optional
 * fields of the message, as Zulip's message dict spells them, written only for a message ever
 * edited or moved (`MessageStore.edits` has it), so snapshots of unedited realms, and files written
 * before edits were carried, are unchanged and still load.
 */
export const EDIT_KEYS = ['edit_history', 'last_edit_timestamp', 'last_moved_timestamp'] as const;

/** The snapshot fields of a message's edits (none when it was never edited or moved). */
export interface MessageEditFields {
  readonly edit_history?: readonly EditHistoryEntry[];
  readonly last_edit_timestamp?: number;
  readonly last_moved_timestamp?: number;
}

/** The edit fields of a message with edits `e` (a fresh copy), in the snapshot's key order. */
export function editFields(e: MessageEdits | undefined): {
  edit_history?: EditHistoryEntry[];
  last_edit_timestamp?: number;
  last_moved_timestamp?: number;
} {
  if (e === undefined) return {};
  const out: ReturnType<typeof editFields> = {
    edit_history: e.history.map((h) => ({ ...h })),
  };
  if (e.last_edit_timestamp !== undefined) out.last_edit_timestamp = e.last_edit_timestamp;
  if (e.last_moved_timestamp !== undefined) out.last_moved_timestamp = e.last_moved_timestamp;
  return out;
}

/** `,"edit_history":[…],…`: the edit fields as JSON text to put after `reactions` ('' for none). */
export function editFieldsJson(e: MessageEdits | undefined): string {
  if (e === undefined) return '';
  let text = `,"edit_history":${JSON.stringify(e.history)}`;
  if (e.last_edit_timestamp !== undefined) text += `,"last_edit_timestamp":${e.last_edit_timestamp}`;
  if (e.last_moved_timestamp !== undefined) text += `,"last_moved_timestamp":${e.last_moved_timestamp}`;
  return text;
}

/** The store's edits of a checked message, or undefined when it carries none. */
export function editsOf(m: MessageEditFields): MessageEdits | undefined {
  if (
    m.edit_history === undefined &&
    m.last_edit_timestamp === undefined &&
    m.last_moved_timestamp === undefined
  )
    return undefined;
  const e: {
    history: readonly EditHistoryEntry[];
    last_edit_timestamp?: number;
    last_moved_timestamp?: number;
  } = { history: m.edit_history ?? [] };
  if (m.last_edit_timestamp !== undefined) e.last_edit_timestamp = m.last_edit_timestamp;
  if (m.last_moved_timestamp !== undefined) e.last_moved_timestamp = m.last_moved_timestamp;
  return e;
}

const ENTRY_STRINGS = ['prev_content', 'prev_rendered_content', 'prev_topic', 'topic'] as const;
const ENTRY_IDS = ['prev_stream', 'stream'] as const;
const ENTRY_KEYS = new Set<string>(['user_id', 'timestamp', ...ENTRY_STRINGS, ...ENTRY_IDS]);

const isId = (v: unknown): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v > 0 && v <= 0x7fffffff;
const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/**
 * Checks a message's edit fields (`r` is a JSON object), reporting at `at`; whether they are well
 * formed. Accepts what format.ts's `editHistoryEntrySchema` accepts.
 */
export function checkEditFields(
  r: Readonly<Record<string, unknown>>,
  at: ReadonlyArray<string | number>,
  issues: IssueList,
): boolean {
  let ok = true;
  for (const key of ['last_edit_timestamp', 'last_moved_timestamp'])
    if (r[key] !== undefined && !isTime(r[key])) {
      issues.add([...at, key], 'expected a non-negative integer');
      ok = false;
    }
  const history = r['edit_history'];
  if (history === undefined) return ok;
  if (!Array.isArray(history) || nonJsonReason(history) !== undefined) {
    issues.add([...at, 'edit_history'], 'expected an array');
    return false;
  }
  for (let j = 0; j < history.length; j++) {
    if (!(j in history)) {
      issues.add([...at, 'edit_history', j], HOLE);
      ok = false;
      continue;
    }
    const h: unknown = history[j];
    if (typeof h !== 'object' || h === null || Array.isArray(h) || nonJsonReason(h) !== undefined) {
      issues.add([...at, 'edit_history', j], 'expected an object');
      ok = false;
      continue;
    }
    const e = h as Record<string, unknown>;
    const bad = (key: string, message: string) => {
      issues.add([...at, 'edit_history', j, key], message);
      ok = false;
    };
    for (const key of Object.keys(e)) if (!ENTRY_KEYS.has(key)) bad(key, 'unknown field');
    if (e['user_id'] !== null && !isId(e['user_id'])) bad('user_id', 'expected a user id or null');
    if (!isTime(e['timestamp'])) bad('timestamp', 'expected a non-negative integer');
    for (const key of ENTRY_STRINGS)
      if (e[key] !== undefined && typeof e[key] !== 'string') bad(key, 'expected a string');
    for (const key of ENTRY_IDS)
      if (e[key] !== undefined && !isId(e[key])) bad(key, 'expected a positive integer');
  }
  return ok;
}
