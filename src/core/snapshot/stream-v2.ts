import { MESSAGE_BITS } from '../messages/flags';
import { CLIENT_MASK, clientName } from '../messages/client-names';
import { conversationParticipants, nameOf } from '../messages/interner';
import type { MessageStore } from '../messages/store-types';
import type { RealmState } from '../state';
import { snapshotSections } from './export';
import { dmRecipients } from './export-messages';
import { editFieldsJson } from './message-edits';
import { MessageKinds, NO_MESSAGE } from './message-kinds';

/**
 * Stream format 2 (docs/realm-snapshot.md, "Streamed snapshots"), NDJSON:
 *
 *     {"format":"chat-realm.stream/2"}
 *     { the snapshot document, "messages": [] }
 *     {"id":1,"sender_id":…, …}                  one line per message, without `flags`
 *     {"user_id":4,"rows":[257,513,2049,…]}      one line per user who holds rows
 *     {"end":{"messages":1000000,"rows":27598411}}
 *
 * A row line lists the user's rows (Zulip's UserMessage rows) in ascending message id, each as one
 * integer: (message id − the previous row's message id, or 0 for the first) × 256 + the row's flag
 * bits (read 1, starred 2, collapsed 4, mentioned 8, stream_wildcard_mentioned 16,
 * topic_wildcard_mentioned 32, has_alert_word 64, historical 128). Format 1 spelled each of the
 * large preset's 27.6 million rows as `"4":["read"]` inside its message; one small integer each
 * makes the stream a third of the size and lets the reader fill the store's typed arrays directly.
 * The end line makes a stream that was cut short detectable.
 */
export const STREAM_FORMAT_2 = 'chat-realm.stream/2';

export function* snapshotChunksV2(state: RealmState): Generator<string, void, undefined> {
  yield `{"format":"${STREAM_FORMAT_2}"}\n${JSON.stringify(snapshotSections(state))}\n`;
  yield* messageLines(state.messages);
  const rows = yield* rowLines(state.messages);
  yield `{"end":{"messages":${state.messages.count},"rows":${rows}}}\n`;
}

/** One line per message, in canonical form without `flags`; one store chunk per string. */
function* messageLines(store: MessageStore): Generator<string, void, undefined> {
  const topicJson: Array<string | undefined> = [];
  const participants = new Map<number, readonly number[]>();
  for (const c of store.chunks) {
    const n = c.ids.length;
    const lines = new Array<string>(n);
    for (let i = 0; i < n; i++) {
      const id = c.ids[i]!;
      const sender = c.sender[i]!;
      const r = c.recipient[i]!;
      const bits = c.bits[i]!;
      let target: string;
      if (r > 0) {
        const t = c.topic[i]!;
        target = `"stream_id":${r},"topic":${(topicJson[t] ??= JSON.stringify(nameOf(store.topics, t)))}`;
      } else {
        let p = participants.get(-r);
        if (p === undefined)
          participants.set(-r, (p = conversationParticipants(nameOf(store.conversations, -r))));
        target = `"to":[${dmRecipients(p, sender).join(',')}]`;
      }
      const reactions = store.reactions.get(id);
      lines[i] =
        `{"id":${id},"sender_id":${sender},${target},"content":${JSON.stringify(c.content[i]!)},` +
        `"timestamp":${c.timestamp[i]!},"has_link":${(bits & MESSAGE_BITS.has_link) !== 0},` +
        `"has_attachment":${(bits & MESSAGE_BITS.has_attachment) !== 0},` +
        `"has_image":${(bits & MESSAGE_BITS.has_image) !== 0},` +
        `"reactions":${reactions === undefined || reactions.length === 0 ? '[]' : JSON.stringify(reactions)}` +
        `${(bits & CLIENT_MASK) === 0 ? '' : `,"client":${JSON.stringify(clientName(bits, id, store.clients))}`}` +
        `${editFieldsJson(store.edits.get(id))}}`;
    }
    yield `${lines.join('\n')}\n`;
  }
}

/**
 * One line per user with rows, ascending user id, batched into strings of about a megabyte.
 * Returns the number of rows written. Rows of messages that no longer exist are left out (the
 * store never keeps them; this keeps the stream readable if one ever did).
 */
function* rowLines(store: MessageStore): Generator<string, number, undefined> {
  const kinds = messageKindsOf(store);
  let values = new Float64Array(1 << 12);
  let total = 0;
  let batch: string[] = [];
  let size = 0;
  for (const [user, rows] of store.rows) {
    if (rows.count === 0) continue;
    if (values.length < rows.count) values = new Float64Array(Math.max(rows.count, values.length * 2));
    let n = 0;
    let previous = 0;
    for (const chunk of rows.chunks) {
      const ids = chunk.ids;
      const flags = chunk.flags;
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]!;
        if (kinds.kindOf(id) === NO_MESSAGE) continue;
        values[n++] = (id - previous) * 256 + (flags[i]! & 0xff);
        previous = id;
      }
    }
    if (n === 0) continue;
    total += n;
    const line = `{"user_id":${user},"rows":[${values.subarray(0, n).join(',')}]}`;
    batch.push(line);
    size += line.length;
    if (size >= 1 << 20) {
      yield `${batch.join('\n')}\n`;
      batch = [];
      size = 0;
    }
  }
  if (batch.length > 0) yield `${batch.join('\n')}\n`;
  return total;
}

function messageKindsOf(store: MessageStore): MessageKinds {
  const ids = new Int32Array(store.count);
  const direct = new Uint8Array(store.count);
  let k = 0;
  for (const c of store.chunks)
    for (let i = 0; i < c.ids.length; i++, k++) {
      ids[k] = c.ids[i]!;
      direct[k] = c.recipient[i]! > 0 ? 0 : 1;
    }
  return MessageKinds.of(ids.subarray(0, k), (j) => direct[j] === 1);
}

/** A row line's values: the user, and the integers of its rows as written. */
export interface RowLine {
  readonly user: number;
  readonly values: ArrayLike<number>;
}

/** A row line's rows decoded: message ids (ascending) and flag bits, arrays of their own. */
export interface DecodedRows {
  readonly user: number;
  readonly ids: Int32Array;
  readonly flags: Uint16Array;
}

const ROW_PREFIX = '{"user_id":';
const ROWS_KEY = ',"rows":[';

/** A reader's buffers for a row line, grown as needed and reused line after line. */
export interface RowScratch {
  ids: Int32Array;
  flags: Uint16Array;
}

/**
 * A row line exactly as `snapshotChunks` writes it (`{"user_id":4,"rows":[257,513]}`: no spaces,
 * no leading zeros) whose rows are all valid, read and decoded in one pass without JSON.parse.
 * Undefined for any other text (another spelling, an integer of ten digits or more, a row that
 * does not ascend), which then goes through JSON.parse, `rowLineOf` and `decodeRows`, so both ways
 * accept the same lines and the slow one reports the problems. Nine digits at most keep every
 * integer a small one (no floating point in the loop).
 */
export function canonicalRowLine(s: string, buffer: RowScratch): DecodedRows | undefined {
  if (!s.startsWith(ROW_PREFIX)) return undefined;
  let i = ROW_PREFIX.length;
  const digits = i;
  let user = 0;
  for (let c = s.charCodeAt(i); c >= 48 && c <= 57; c = s.charCodeAt(++i)) user = user * 10 + (c - 48);
  if (i === digits || i - digits > 10 || s.charCodeAt(digits) === 48 || user > 0x7fffffff) return undefined;
  if (!s.startsWith(ROWS_KEY, i)) return undefined;
  i += ROWS_KEY.length;
  const end = s.length - 2;
  if (s.charCodeAt(end) !== 93 /* ] */ || s.charCodeAt(end + 1) !== 125 /* } */) return undefined;
  let n = 0;
  let ids = buffer.ids;
  let flags = buffer.flags;
  let previous = 0;
  if (i < end)
    for (;;) {
      const from = i;
      let v = 0;
      for (let c = s.charCodeAt(i); c >= 48 && c <= 57; c = s.charCodeAt(++i)) v = v * 10 + (c - 48);
      if (i === from || i - from > 9 || (s.charCodeAt(from) === 48 && i - from > 1)) return undefined;
      const delta = v >>> 8;
      const id = previous + delta;
      if (delta === 0 || id > 0x7fffffff) return undefined;
      if (n === ids.length) {
        const moreIds = new Int32Array(n * 2);
        const moreFlags = new Uint16Array(n * 2);
        moreIds.set(ids);
        moreFlags.set(flags);
        buffer.ids = ids = moreIds;
        buffer.flags = flags = moreFlags;
      }
      ids[n] = id;
      flags[n] = v & 0xff;
      n++;
      previous = id;
      if (i === end) break;
      if (s.charCodeAt(i) !== 44 /* , */) return undefined;
      i++;
    }
  else if (i !== end) return undefined;
  return { user, ids: ids.slice(0, n), flags: flags.slice(0, n) };
}

const isId = (v: unknown): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v > 0 && v <= 0x7fffffff;

/**
 * A parsed row line's shape (`{user_id, rows}`): the line, or the problems (relative paths)
 * that make it unusable.
 */
export function rowLineOf(
  raw: Record<string, unknown>,
): RowLine | Array<{ path: Array<string | number>; message: string }> {
  const problems: Array<{ path: Array<string | number>; message: string }> = [];
  for (const key of Object.keys(raw))
    if (key !== 'user_id' && key !== 'rows') problems.push({ path: [key], message: 'unknown field' });
  if (!isId(raw['user_id'])) problems.push({ path: ['user_id'], message: 'expected a positive integer' });
  const list = raw['rows'];
  if (!Array.isArray(list)) problems.push({ path: ['rows'], message: 'expected an array of integers' });
  else
    for (let j = 0; j < list.length; j++) {
      const v: unknown = list[j];
      if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
        problems.push({ path: ['rows', j], message: 'expected a non-negative integer' });
        break;
      }
    }
  if (problems.length > 0) return problems;
  return { user: raw['user_id'] as number, values: list as number[] };
}

/**
 * The rows of a line as message ids (ascending) and flag bits, or the first problem: a row whose
 * id does not follow the previous one (its integer is below 256), or an id beyond 2^31 − 1.
 */
export function decodeRows(line: RowLine): DecodedRows | { at: number; message: string } {
  const { values } = line;
  const n = values.length;
  const ids = new Int32Array(n);
  const flags = new Uint16Array(n);
  let previous = 0;
  for (let j = 0; j < n; j++) {
    const v = values[j]!;
    const delta = Math.floor(v / 256);
    if (delta === 0)
      return {
        at: j,
        message:
          j === 0
            ? 'no message 0 (a row is (message id − previous id) × 256 + flags)'
            : `message ids must ascend: this row repeats message ${previous}`,
      };
    const id = previous + delta;
    if (id > 0x7fffffff) return { at: j, message: `no message ${id}` };
    ids[j] = id;
    flags[j] = v - delta * 256;
    previous = id;
  }
  return { user: line.user, ids, flags };
}
