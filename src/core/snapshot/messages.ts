import { FLAG_NAMES, isFlagName } from '../messages/flags';
import type { MessageInput } from '../messages/store';
import type { Reaction } from '../model/records';
import type { IssueList } from './issues';

/** A checked message of the snapshot, with its flags still as names. */
export interface MessageSnapshotInput extends MessageInput {
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
  'flags',
]);
const REACTION_TYPES = new Set(['unicode_emoji', 'realm_emoji', 'zulip_extra_emoji']);

const isId = (v: unknown): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v > 0 && v <= 0x7fffffff;

/**
 * Checks the shape of each message by hand (a million messages through zod would take minutes).
 * References (users, channels) are checked by the caller.
 */
export function checkMessages(
  raw: readonly unknown[],
  issues: IssueList,
): Array<{ message: MessageSnapshotInput; index: number }> {
  const out: Array<{ message: MessageSnapshotInput; index: number }> = [];
  raw.forEach((m, i) => {
    const at = ['messages', i];
    if (typeof m !== 'object' || m === null || Array.isArray(m)) {
      issues.add(at, 'expected an object');
      return;
    }
    const r = m as Record<string, unknown>;
    let ok = true;
    const bad = (key: string, message: string) => {
      issues.add([...at, key], message);
      ok = false;
    };
    for (const key of Object.keys(r)) if (!MESSAGE_KEYS.has(key)) bad(key, 'unknown field');
    if (!isId(r['id'])) bad('id', 'expected a positive integer');
    if (!isId(r['sender_id'])) bad('sender_id', 'expected a positive integer');
    if (typeof r['content'] !== 'string') bad('content', 'expected a string');
    if (typeof r['timestamp'] !== 'number' || !Number.isInteger(r['timestamp']) || r['timestamp'] < 0) {
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
      if (!Array.isArray(r['to']) || !r['to'].every(isId)) bad('to', 'expected an array of user ids');
      if (r['topic'] !== undefined) bad('topic', 'direct messages have no topic');
    }
    for (const key of ['has_link', 'has_attachment', 'has_image']) {
      if (r[key] !== undefined && typeof r[key] !== 'boolean') bad(key, 'expected a boolean');
    }
    if (r['reactions'] !== undefined) {
      if (!Array.isArray(r['reactions'])) bad('reactions', 'expected an array');
      else
        r['reactions'].forEach((x: unknown, j: number) => {
          const re = x as Partial<Record<keyof Reaction, unknown>> | null;
          if (
            typeof re !== 'object' ||
            re === null ||
            !isId(re.user_id) ||
            typeof re.emoji_name !== 'string' ||
            typeof re.emoji_code !== 'string' ||
            !REACTION_TYPES.has(String(re.reaction_type))
          ) {
            issues.add([...at, 'reactions', j], 'expected {user_id, emoji_name, emoji_code, reaction_type}');
            ok = false;
          }
        });
    }
    if (r['flags'] !== undefined) {
      const flags = r['flags'];
      if (typeof flags !== 'object' || flags === null || Array.isArray(flags))
        bad('flags', 'expected an object');
      else
        for (const [user, list] of Object.entries(flags)) {
          if (!/^[1-9][0-9]*$/.test(user)) {
            issues.add([...at, 'flags', user], 'keys are user ids');
            ok = false;
          }
          if (!Array.isArray(list)) {
            issues.add([...at, 'flags', user], `expected a list of flags (${FLAG_NAMES.join(', ')})`);
            ok = false;
            continue;
          }
          list.forEach((f: unknown, j: number) => {
            if (typeof f !== 'string' || !isFlagName(f)) {
              issues.add([...at, 'flags', user, j], `unknown flag ${JSON.stringify(f)}`);
              ok = false;
            }
          });
        }
    }
    if (ok) out.push({ message: r as unknown as MessageSnapshotInput, index: i });
  });
  return out;
}
