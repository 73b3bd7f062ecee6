import { FLAG_BITS, isFlagName, type FlagName } from '../messages/flags';
import type { RealmState } from '../state';
import { RealmAssembly, type RealmOptions } from './create';
import { snapshotSections } from './export';
import { dmRecipients, FlagNames, flagsJson, messageBlocks } from './export-messages';
import { SnapshotError } from './issues';
import type { FlagRows } from './message-loader';

/**
 * A realm as a stream of text (docs/realm-snapshot.md, "Streamed snapshots"). By default NDJSON, whose first
 * line is the snapshot document with an empty `messages` list and whose every further line is one
 * message, in canonical form. Joining the message lines into `messages` gives exactly
 * `JSON.stringify(snapshotRealm(state))`'s document. Chunks are strings of whole lines (a header,
 * then one store chunk of up to 4096 messages each), so no single string holds the realm: the
 * large preset's 678 million characters are beyond V8's string limit. With `format: 'json'` the
 * chunks are instead the one JSON document itself (for tools that want plain JSON; reading that
 * back needs the whole text in memory, so large realms should travel as NDJSON).
 *
 * @example
 * ```ts
 * const text = [...snapshotChunks(realm)].join('');
 * const copy = createRealmFromChunks([text]);
 * expect(snapshotRealm(copy)).toEqual(snapshotRealm(realm));
 * ```
 */
export function* snapshotChunks(
  state: RealmState,
  options: { readonly format?: 'ndjson' | 'json' } = {},
): Generator<string, void, undefined> {
  const sections = snapshotSections(state);
  const json = options.format === 'json';
  let after = '';
  if (json) {
    // One JSON document, written around its `messages` list: the sections before it, the messages
    // joined by commas, the sections after it. Same text as JSON.stringify(snapshotRealm(state)).
    const keys = Object.keys(sections);
    const at = keys.indexOf('messages');
    const part = (ks: readonly string[]) =>
      JSON.stringify(Object.fromEntries(ks.map((k) => [k, (sections as Record<string, unknown>)[k]])));
    yield `${part(keys.slice(0, at)).slice(0, -1)},"messages":[`;
    after = `]${keys.length > at + 1 ? `,${part(keys.slice(at + 1)).slice(1)}` : '}'}\n`;
  } else yield `${JSON.stringify(sections)}\n`;
  let firstLine = true;
  const names = new FlagNames();
  const topics = new Map<string, string>();
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
        `"has_image":${m.has_image},"reactions":${m.reactions.length === 0 ? '[]' : JSON.stringify(m.reactions)},` +
        `"flags":${flagsJson(names, users, bits, start[k]!, start[k + 1]!)}}`;
    }
    if (json) {
      yield `${firstLine ? '' : ','}${lines.join(',')}`;
      firstLine = false;
    } else yield `${lines.join('\n')}\n`;
  }
  if (json) yield after;
}

/**
 * Reads a streamed snapshot: text chunks in any sizes (lines may be split across chunks). The
 * first line is the document (its own `messages`, if any, come first); every further non-blank
 * line is the next message. Checks exactly as `createRealm` does on the joined document (the same
 * `RealmAssembly`), reporting the same problems at the same paths (`messages[i]` counts messages
 * across lines); a line that is not JSON is a problem at its message's path. Messages are checked
 * and turned into columns and rows as they come, so only the realm is ever held, not the text.
 */
export class SnapshotStreamReader {
  private rest = '';
  private line = 0;
  private index = 0;
  private assembly: RealmAssembly | undefined;
  private headerError: string | undefined;

  constructor(private readonly options: RealmOptions = {}) {}

  /** Feeds the next chunk of text. */
  push(chunk: string): void {
    let text = this.rest + chunk;
    let from = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', from)) {
      this.take(text.slice(from, nl));
      from = nl + 1;
    }
    text = from === 0 ? text : text.slice(from);
    this.rest = text;
  }

  /** The realm, or a `SnapshotError` listing every problem. */
  end(): RealmState {
    if (this.rest !== '') this.take(this.rest);
    this.rest = '';
    if (this.assembly === undefined)
      throw new SnapshotError([
        { path: '(root)', message: this.headerError ?? 'an empty stream holds no snapshot' },
      ]);
    return this.assembly.finish();
  }

  private take(text: string): void {
    this.line++;
    if (this.assembly === undefined) {
      if (this.headerError !== undefined || text.trim() === '') return;
      let header: unknown;
      try {
        header = JSON.parse(text);
      } catch (e) {
        this.headerError = `line ${this.line} is not JSON: ${(e as Error).message}`;
        return;
      }
      this.assembly = new RealmAssembly(header, this.options);
      const inline = (header as { messages?: unknown } | null)?.messages;
      if (Array.isArray(inline)) for (const m of inline) this.assembly.message(m, this.index++);
      return;
    }
    if (text.trim() === '') return;
    if (this.fastLine(text)) return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch (e) {
      this.assembly.problem(this.index++, `line ${this.line} is not JSON: ${(e as Error).message}`);
      return;
    }
    this.assembly.message(message, this.index++);
  }

  private fastLine(text: string): boolean {
    const split = splitFlags(text);
    if (split === undefined) return false;
    this.assembly!.messageWithRows(split.head, this.index++, split.rows);
    return true;
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
function splitFlags(text: string): { head: Record<string, unknown>; rows: FlagRows } | undefined {
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

/**
 * Builds a realm from a streamed snapshot (`snapshotChunks`' format): synchronously from an
 * iterable of strings, or as a promise from an async iterable (a file read stream with a text
 * encoding, a `fetch` body through `TextDecoderStream`).
 *
 * @example
 * ```ts
 * const lines = [...snapshotChunks(realm)];
 * const copy = createRealmFromChunks(lines);
 * expect(copy.messages.count).toBe(realm.messages.count);
 * async function* fromNetwork() { for (const l of lines) yield l; }
 * const again = await createRealmFromChunks(fromNetwork());
 * expect(again.users.size).toBe(realm.users.size);
 * ```
 */
export function createRealmFromChunks(chunks: Iterable<string>, options?: RealmOptions): RealmState;
export function createRealmFromChunks(
  chunks: AsyncIterable<string>,
  options?: RealmOptions,
): Promise<RealmState>;
export function createRealmFromChunks(
  chunks: Iterable<string> | AsyncIterable<string>,
  options: RealmOptions = {},
): RealmState | Promise<RealmState> {
  const reader = new SnapshotStreamReader(options);
  if (Symbol.asyncIterator in chunks) {
    return (async () => {
      for await (const chunk of chunks) reader.push(chunk);
      return reader.end();
    })();
  }
  for (const chunk of chunks) reader.push(chunk);
  return reader.end();
}
