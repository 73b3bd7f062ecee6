import { CLIENT_NAME_MAX, isClientName } from '../messages/client-names';
import { FLAG_NAMES, isFlagName } from '../messages/flags';
import type { MessageInput } from '../messages/store';
import type { Reaction } from '../model/records';
import type { IssueList } from './issues';
import { HOLE, nonJsonReason } from './json-values';
import { checkEditFields, EDIT_KEYS, type MessageEditFields } from './message-edits';

/** A checked message of the snapshot, with its flags still as names. */
export interface MessageSnapshotInput extends MessageInput, MessageEditFields {
  readonly flags?: Readonly<Record<string, readonly string[]>> | undefined;
}

const MESSAGE_KEYS = new Set([
  'id',
  'sender_id',
  'stream_id',
  'topic',
  'to',
  'content',
  'timestamp',
  'has_link',
  'has_attachment',
  'has_image',
  'reactions',
  'client',
  'flags',
  ...EDIT_KEYS,
]);
const REACTION_TYPES = new Set(['unicode_emoji', 'realm_emoji', 'zulip_extra_emoji']);
const REACTION_KEYS = new Set(['user_id', 'emoji_name', 'emoji_code', 'reaction_type']);

const isId = (v: unknown): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v > 0 && v <= 0x7fffffff;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;
const isPlainArray = (v: unknown): v is unknown[] =>
  Array.isArray(v) && Object.getPrototypeOf(v) === Array.prototype;
const isOptionalBoolean = (v: unknown) => v === undefined || typeof v === 'boolean';

/**
 * The common message, checked without building any problem: a plain object of known fields, a
 * channel message or a direct message to ids, no reactions, no edits and no `flags` (stream format 2's
 * lines, most fixtures). Anything else, well formed or not, goes through the full check, so this
 * only ever accepts what `checkMessage` accepts; it spares a million messages the full check's
 * closures and paths.
 */
function isPlainMessage(m: unknown): m is MessageSnapshotInput {
  if (!isPlainObject(m)) return false;
  for (const key of Object.keys(m)) if (!MESSAGE_KEYS.has(key)) return false;
  const t = m['timestamp'];
  if (!isId(m['id']) || !isId(m['sender_id']) || typeof m['content'] !== 'string') return false;
  if (typeof t !== 'number' || !Number.isSafeInteger(t) || t < 0) return false;
  if (!isOptionalBoolean(m['has_link']) || !isOptionalBoolean(m['has_attachment'])) return false;
  if (!isOptionalBoolean(m['has_image']) || m['flags'] !== undefined) return false;
  if (m['client'] !== undefined && !isClientName(m['client'])) return false;
  // Edited messages are rare: their edit fields get the full check.
  if (m['edit_history'] !== undefined || m['last_edit_timestamp'] !== undefined) return false;
  if (m['last_moved_timestamp'] !== undefined) return false;
  const reactions = m['reactions'];
  if (reactions !== undefined && !(isPlainArray(reactions) && reactions.length === 0)) return false;
  if (m['stream_id'] !== undefined)
    return (
      m['to'] === undefined &&
      isId(m['stream_id']) &&
      (m['topic'] === undefined || typeof m['topic'] === 'string')
    );
  const to = m['to'];
  if (m['topic'] !== undefined || !isPlainArray(to)) return false;
  for (let j = 0; j < to.length; j++) if (!isId(to[j])) return false;
  return true;
}

/**
 * One message's shape, checked by hand (a million messages through zod would take minutes),
 * reported at `messages[index]`: the message when it is well formed, else undefined (with its
 * problems added). It accepts what format.ts's `snapshotMessageSchema` accepts (the types and the
 * JSON Schema; test/core/snapshot-message-schema.test.ts compares them on random values). Also
 * refuses what JSON cannot hold (holes in its lists, `undefined` fields, non-plain objects), so
 * the streamed import and `createRealm` agree.
 */
export function checkMessage(m: unknown, index: number, issues: IssueList): MessageSnapshotInput | undefined {
  if (isPlainMessage(m)) return m;
  const at = ['messages', index];
  if (typeof m !== 'object' || m === null || Array.isArray(m)) {
    issues.add(at, nonJsonReason(m) ?? 'expected an object');
    return undefined;
  }
  const notJson = nonJsonReason(m);
  if (notJson !== undefined) {
    issues.add(at, notJson);
    return undefined;
  }
  const r = m as Record<string, unknown>;
  let ok = true;
  const bad = (key: string, message: string) => {
    issues.add([...at, key], message);
    ok = false;
  };
  // A field set to undefined counts as left out, as everywhere in the snapshot.
  for (const key of Object.keys(r)) if (!MESSAGE_KEYS.has(key)) bad(key, 'unknown field');
  if (!isId(r['id'])) bad('id', 'expected a positive integer');
  if (!isId(r['sender_id'])) bad('sender_id', 'expected a positive integer');
  if (typeof r['content'] !== 'string') bad('content', 'expected a string');
  if (typeof r['timestamp'] !== 'number' || !Number.isSafeInteger(r['timestamp']) || r['timestamp'] < 0) {
    bad('timestamp', 'expected a non-negative integer');
  }
  const isChannel = r['stream_id'] !== undefined;
  if (isChannel === (r['to'] !== undefined)) {
    issues.add(at, 'a message has either stream_id and topic, or to');
    ok = false;
  }
  if (isChannel) {
    if (!isId(r['stream_id'])) bad('stream_id', 'expected a positive integer');
    if (r['topic'] !== undefined && typeof r['topic'] !== 'string') bad('topic', 'expected a string');
  } else if (r['to'] !== undefined) {
    const to = r['to'];
    if (!Array.isArray(to) || nonJsonReason(to) !== undefined) bad('to', 'expected an array of user ids');
    else
      for (let j = 0; j < to.length; j++) {
        // A hole is not "user 0": `every` would skip it, and the export would then refuse it.
        if (!(j in to)) {
          issues.add([...at, 'to', j], HOLE);
          ok = false;
        } else if (!isId(to[j])) {
          issues.add([...at, 'to', j], 'expected a user id');
          ok = false;
        }
      }
    if (r['topic'] !== undefined) bad('topic', 'direct messages have no topic');
  }
  for (const key of ['has_link', 'has_attachment', 'has_image']) {
    if (r[key] !== undefined && typeof r[key] !== 'boolean') bad(key, 'expected a boolean');
  }
  if (r['client'] !== undefined && !isClientName(r['client']))
    bad('client', `expected a string of at most ${CLIENT_NAME_MAX} characters`);
  if (r['reactions'] !== undefined) {
    const reactions = r['reactions'];
    if (!Array.isArray(reactions) || nonJsonReason(reactions) !== undefined)
      bad('reactions', 'expected an array');
    else
      for (let j = 0; j < reactions.length; j++) {
        const re = reactions[j] as Partial<Record<keyof Reaction, unknown>> | null;
        if (!(j in reactions)) {
          issues.add([...at, 'reactions', j], HOLE);
          ok = false;
        } else if (
          typeof re !== 'object' ||
          re === null ||
          nonJsonReason(re) !== undefined ||
          Object.keys(re).some((k) => !REACTION_KEYS.has(k)) ||
          !isId(re.user_id) ||
          typeof re.emoji_name !== 'string' ||
          typeof re.emoji_code !== 'string' ||
          !REACTION_TYPES.has(String(re.reaction_type))
        ) {
          issues.add([...at, 'reactions', j], 'expected {user_id, emoji_name, emoji_code, reaction_type}');
          ok = false;
        }
      }
  }
  if (!checkEditFields(r, at, issues)) ok = false;
  if (r['flags'] !== undefined) {
    const flags = r['flags'];
    if (
      typeof flags !== 'object' ||
      flags === null ||
      Array.isArray(flags) ||
      nonJsonReason(flags) !== undefined
    )
      bad('flags', 'expected an object');
    else
      for (const user of Object.keys(flags)) {
        const list = (flags as Record<string, unknown>)[user];
        if (!/^[1-9][0-9]*$/.test(user)) {
          issues.add([...at, 'flags', user], 'keys are user ids');
          ok = false;
        }
        if (!Array.isArray(list) || nonJsonReason(list) !== undefined) {
          issues.add([...at, 'flags', user], `expected a list of flags (${FLAG_NAMES.join(', ')})`);
          ok = false;
          continue;
        }
        for (let j = 0; j < list.length; j++) {
          const f: unknown = list[j];
          if (!(j in list)) {
            issues.add([...at, 'flags', user, j], HOLE);
            ok = false;
          } else if (typeof f !== 'string' || !isFlagName(f)) {
            issues.add([...at, 'flags', user, j], `unknown flag ${String(JSON.stringify(f))}`);
            ok = false;
          }
        }
      }
  }
  return ok ? (r as unknown as MessageSnapshotInput) : undefined;
}
