import { LIBRARY_CLIENT } from '../messages/client-names';
import { FLAG_BITS, isFlagName, type FlagName } from '../messages/flags';
import type { RealmState } from '../state';
import { dmRecipients, FlagNames, flagsJson, messageBlocks } from './export-messages';
import { editFieldsJson } from './message-edits';
import type { FlagRows } from './message-loader';

/**
 * Stream format 1 (docs/realm-snapshot.md, "Streamed snapshots"): the snapshot document with an
 * empty `messages` list, then one message per line with its `flags` object. Still read (and written
 * on request, `format: 'ndjson1'`, and for `format: 'json'`), but its 27 million `"user":["flag"]`
 * entries in the large preset make it four times the size of format 2 and slow to write and read.
 */

/**
 * The message lines of format 1 (or, with `json`, the messages of the one JSON document joined by
 * commas), one store chunk of messages per string.
 */
export function* messageLinesV1(state: RealmState, json: boolean): Generator<string, void, undefined> {
  let firstLine = true;
  const names = new FlagNames();
  const topics = new Map<string, string>();
  const edits = state.messages.edits;
  for (const { records, start, users, bits } of messageBlocks(state)) {
    const lines: string[] = new Array<string>(records.length);
    for (let k = 0; k < records.length; k++) {
      const m = records[k]!;
      let target: string;
      if (m.stream_id !== null) {
        let topic = topics.get(m.topic);
        if (topic === undefined) topics.set(m.topic, (topic = JSON.stringify(m.topic)));
        target = `"stream_id":${m.stream_id},"topic":${topic}`;
      } else target = `"to":${JSON.stringify(dmRecipients(m.participants ?? [], m.sender_id))}`;
      lines[k] =
        `{"id":${m.id},"sender_id":${m.sender_id},${target},"content":${JSON.stringify(m.content)},` +
        `"timestamp":${m.timestamp},"has_link":${m.has_link},"has_attachment":${m.has_attachment},` +
        `"has_image":${m.has_image},"reactions":${m.reactions.length === 0 ? '[]' : JSON.stringify(m.reactions)}` +
        `${m.client === LIBRARY_CLIENT ? '' : `,"client":${JSON.stringify(m.client)}`}` +
        `${editFieldsJson(edits.get(m.id))},"flags":${flagsJson(names, users, bits, start[k]!, start[k + 1]!)}}`;
    }
    if (json) {
      yield `${firstLine ? '' : ','}${lines.join(',')}`;
      firstLine = false;
    } else yield `${lines.join('\n')}\n`;
  }
}

/**
 * The fast path for a message line as `snapshotChunks` writes it: everything before `"flags"` is
 * parsed by JSON.parse (with the closing brace), the flags object by hand into rows, so a million
 * lines never make 27 million arrays and integer-keyed objects. It takes only the canonical form
 * (user ids ascending without leading zeros, known flag names, no spaces or escapes) and otherwise
 * declines, and the line goes through JSON.parse and the generic checks; so both paths accept and
 * report the same things.
 */
export function splitFlags(text: string): { head: Record<string, unknown>; rows: FlagRows } | undefined {
  const at = text.lastIndexOf(FLAGS_KEY);
  if (at < 0 || !text.endsWith('}}')) return undefined;
  const rows = canonicalFlagRows(text, at + FLAGS_KEY.length - 1, text.length - 2);
  if (rows === undefined) return undefined;
  let head: unknown;
  try {
    head = JSON.parse(`${text.slice(0, at)}}`);
  } catch {
    return undefined;
  }
  // `{,"flags":…}` is not JSON although `{}` is: the head must hold a key. A second `flags` key
  // before ours would be overridden by JSON.parse: both go to the slow path.
  if (typeof head !== 'object' || head === null || Array.isArray(head) || 'flags' in head) return undefined;
  if (Object.keys(head).length === 0) return undefined;
  return { head: head as Record<string, unknown>, rows };
}

const FLAGS_KEY = ',"flags":{';
const FLAG_NAMES_BY_USE = [
  'read',
  ...Object.keys(FLAG_BITS).filter((name) => isFlagName(name) && name !== 'read'),
];
const FLAG_BITS_BY_USE = FLAG_NAMES_BY_USE.map((name) => FLAG_BITS[name as FlagName]);

/** Whether `"name"` (with its closing quote) starts at `at`. */
function startsWithName(s: string, at: number, name: string): boolean {
  return s.startsWith(name, at) && s.charCodeAt(at + name.length) === 34;
}

/** `{"4":["read"],"6":[]}` between `open` ('{') and `close` ('}'), strictly canonical, as rows. */
function canonicalFlagRows(s: string, open: number, close: number): FlagRows | undefined {
  const users: number[] = [];
  const bits: number[] = [];
  let i = open + 1;
  let previous = 0;
  while (i < close) {
    if (users.length > 0) {
      if (s.charCodeAt(i) !== 44 /* , */) return undefined;
      i++;
    }
    if (s.charCodeAt(i) !== 34 /* " */) return undefined;
    i++;
    let user = 0;
    const digits = i;
    for (let c = s.charCodeAt(i); c >= 48 && c <= 57; c = s.charCodeAt(++i)) user = user * 10 + (c - 48);
    if (i === digits || i - digits > 10 || s.charCodeAt(digits) === 48 || user <= previous) return undefined;
    if (s.charCodeAt(i) !== 34 || s.charCodeAt(i + 1) !== 58 /* : */ || s.charCodeAt(i + 2) !== 91 /* [ */)
      return undefined;
    i += 3;
    let b = 0;
    if (s.charCodeAt(i) === 93 /* ] */) i++;
    else
      for (;;) {
        if (s.charCodeAt(i) !== 34) return undefined;
        // Matched in place (no substring per flag): the names are few and `read` is most of them.
        let k = 0;
        while (k < FLAG_NAMES_BY_USE.length && !startsWithName(s, i + 1, FLAG_NAMES_BY_USE[k]!)) k++;
        if (k === FLAG_NAMES_BY_USE.length) return undefined;
        b |= FLAG_BITS_BY_USE[k]!;
        i += FLAG_NAMES_BY_USE[k]!.length + 2;
        const c = s.charCodeAt(i++);
        if (c === 93) break;
        if (c !== 44) return undefined;
      }
    users.push(user);
    bits.push(b);
    previous = user;
  }
  return i === close ? { users, bits } : undefined;
}
