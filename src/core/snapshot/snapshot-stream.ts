import type { RealmState } from '../state';
import { RealmAssembly, type RealmOptions } from './create';
import { snapshotSections } from './export';
import { SnapshotError } from './issues';
import { messageLinesV1, splitFlags } from './stream-v1';
import {
  canonicalRowLine,
  decodeRows,
  rowLineOf,
  snapshotChunksV2,
  STREAM_FORMAT_2,
  type DecodedRows,
  type RowScratch,
} from './stream-v2';

/**
 * A realm as a stream of text (docs/realm-snapshot.md, "Streamed snapshots"), so no single string
 * holds it: the large preset's snapshot is beyond V8's string limit as one JSON text. By default
 * NDJSON in stream format 2 (`chat-realm.stream/2`): a format line, the snapshot document with an
 * empty `messages` list, one line per message without `flags`, one line per user with that user's
 * rows as integers, and an end line with the counts. `format: 'ndjson1'` writes stream format 1
 * (one line per message with its `flags`; folding its lines into `messages` gives
 * `JSON.stringify(snapshotRealm(state))`'s document), and `format: 'json'` that one JSON document
 * itself (for tools that want plain JSON; reading it back needs the whole text in memory).
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
  options: { readonly format?: 'ndjson' | 'ndjson1' | 'json' } = {},
): Generator<string, void, undefined> {
  if (options.format === undefined || options.format === 'ndjson') {
    yield* snapshotChunksV2(state);
    return;
  }
  const sections = snapshotSections(state);
  if (options.format === 'ndjson1') {
    yield `${JSON.stringify(sections)}\n`;
    yield* messageLinesV1(state, false);
    return;
  }
  // One JSON document, written around its `messages` list: the sections before it, the messages
  // joined by commas, the sections after it. Same text as JSON.stringify(snapshotRealm(state)).
  const keys = Object.keys(sections);
  const at = keys.indexOf('messages');
  const part = (ks: readonly string[]) =>
    JSON.stringify(Object.fromEntries(ks.map((k) => [k, (sections as Record<string, unknown>)[k]])));
  yield `${part(keys.slice(0, at)).slice(0, -1)},"messages":[`;
  yield* messageLinesV1(state, true);
  yield `]${keys.length > at + 1 ? `,${part(keys.slice(at + 1)).slice(1)}` : '}'}\n`;
}

/**
 * Reads a streamed snapshot, format 2 or format 1 (told apart by the first line: format 2's is
 * `{"format":"chat-realm.stream/2"}`, format 1's the snapshot document), from text chunks in any
 * sizes (lines may be split across chunks); blank lines are skipped. Checks exactly as
 * `createRealm` does (the same `RealmAssembly`): messages are reported at `messages[i]`, counting
 * message lines (format 1: after those inside the document); format 2's row lines at `rows[k]`
 * (the k-th row line); a line that is not JSON at the path of what it should have been; problems
 * of the stream itself (a missing or wrong end line, lines out of place) at `(root)`. Lines are
 * checked and turned into columns and rows as they come: only the realm is held, never the text.
 */
export class SnapshotStreamReader {
  private rest = '';
  private line = 0;
  /** Messages so far. */
  private index = 0;
  private assembly: RealmAssembly | undefined;
  private headerError: string | undefined;
  /** 0 until the first line is read. */
  private version: 0 | 1 | 2 = 0;
  // Format 2:
  private rowLine = 0;
  private rowCount = 0;
  private ended: { messages: number; rows: number } | undefined;
  private afterEnd = false;
  private readonly scratch: RowScratch = { ids: new Int32Array(1 << 12), flags: new Uint16Array(1 << 12) };

  constructor(private readonly options: RealmOptions = {}) {}

  /**
   * Feeds the next chunk of text. Only the line cut by the chunk's start is joined to what came
   * before (not the whole chunk, which would copy every chunk once more); a line longer than a
   * chunk (a busy user's rows) gathers its pieces until its newline.
   */
  push(chunk: string): void {
    let nl = chunk.indexOf('\n');
    if (nl < 0) {
      this.rest += chunk;
      return;
    }
    this.take(this.rest === '' ? chunk.slice(0, nl) : this.rest + chunk.slice(0, nl));
    let from = nl + 1;
    for (nl = chunk.indexOf('\n', from); nl >= 0; nl = chunk.indexOf('\n', from)) {
      this.take(chunk.slice(from, nl));
      from = nl + 1;
    }
    this.rest = chunk.slice(from);
  }

  /** The realm, or a `SnapshotError` listing every problem. */
  end(): RealmState {
    if (this.rest !== '') this.take(this.rest);
    this.rest = '';
    const assembly = this.assembly;
    if (assembly === undefined) {
      const missing =
        this.version === 2
          ? 'the stream stops after its format line, before the snapshot document'
          : 'an empty stream holds no snapshot';
      throw new SnapshotError([{ path: '(root)', message: this.headerError ?? missing }]);
    }
    if (this.version === 2) {
      const ended = this.ended;
      if (ended === undefined) assembly.issue([], 'the stream stops before its end line (cut short?)');
      else if (ended.messages !== this.index || ended.rows !== this.rowCount)
        assembly.issue(
          [],
          `the end line counts ${ended.messages} messages and ${ended.rows} rows, the stream holds ${this.index} and ${this.rowCount}`,
        );
    }
    return assembly.finish();
  }

  private take(text: string): void {
    this.line++;
    if (this.version === 2) return this.takeV2(text);
    if (this.assembly === undefined) {
      if (this.headerError !== undefined || isBlank(text)) return;
      const first = this.parseFirst(text);
      if (first === undefined) return;
      this.version = 1;
      this.assembly = new RealmAssembly(first, this.options);
      const inline = (first as { messages?: unknown } | null)?.messages;
      if (Array.isArray(inline)) for (const m of inline) this.assembly.message(m, this.index++);
      return;
    }
    if (isBlank(text)) return;
    if (this.fastLineV1(text)) return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch (e) {
      this.assembly.problem(this.index++, `line ${this.line} is not JSON: ${(e as Error).message}`);
      return;
    }
    this.assembly.message(message, this.index++);
  }

  /** The first line: format 2's format line (then undefined) or format 1's document. */
  private parseFirst(text: string): unknown {
    let first: unknown;
    try {
      first = JSON.parse(text);
    } catch (e) {
      this.headerError = `line ${this.line} is not JSON: ${(e as Error).message}`;
      return undefined;
    }
    const format = isRecord(first) ? first['format'] : undefined;
    if (typeof format !== 'string' || !format.startsWith('chat-realm.stream/')) return first;
    if (format === STREAM_FORMAT_2 && Object.keys(first as object).length === 1) this.version = 2;
    else
      this.headerError = `line ${this.line}: not a stream this version reads (${STREAM_FORMAT_2}, or format 1 whose first line is the snapshot document)`;
    return undefined;
  }

  private takeV2(text: string): void {
    if (isBlank(text) || this.headerError !== undefined) return;
    const assembly = this.assembly;
    if (assembly === undefined) {
      let document: unknown;
      try {
        document = JSON.parse(text);
      } catch (e) {
        this.headerError = `line ${this.line} is not JSON: ${(e as Error).message}`;
        return;
      }
      this.assembly = new RealmAssembly(document, this.options);
      const inline = isRecord(document) ? document['messages'] : undefined;
      if (Array.isArray(inline) && inline.length > 0)
        this.assembly.issue(['messages'], 'in stream format 2, messages come on their own lines');
      return;
    }
    if (this.ended !== undefined) {
      if (!this.afterEnd) assembly.issue([], `line ${this.line} follows the end line`);
      this.afterEnd = true;
      return;
    }
    const fast = canonicalRowLine(text, this.scratch);
    if (fast !== undefined) return this.rows(assembly, fast);
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (e) {
      const why = `line ${this.line} is not JSON: ${(e as Error).message}`;
      if (this.rowLine > 0) assembly.issue(['rows', this.rowLine++], why);
      else assembly.problem(this.index++, why);
      return;
    }
    if (isRecord(raw) && raw['end'] !== undefined) return this.endLine(assembly, raw);
    if (isRecord(raw) && raw['rows'] !== undefined) {
      const line = rowLineOf(raw);
      if (Array.isArray(line)) {
        const k = this.rowLine++;
        for (const p of line) assembly.issue(['rows', k, ...p.path], p.message);
        return;
      }
      const decoded = decodeRows(line);
      if ('at' in decoded) {
        assembly.issue(['rows', this.rowLine++, 'rows', decoded.at], decoded.message);
        return;
      }
      return this.rows(assembly, decoded);
    }
    if (this.rowLine > 0)
      assembly.issue(['messages', this.index], `line ${this.line}: messages come before the row lines`);
    assembly.messageApart(raw, this.index++);
  }

  private rows(assembly: RealmAssembly, rows: DecodedRows): void {
    this.rowCount += rows.ids.length;
    assembly.userRows(this.rowLine++, rows.user, rows.ids, rows.flags);
  }

  private endLine(assembly: RealmAssembly, raw: Record<string, unknown>): void {
    const end = raw['end'];
    const count = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
    if (
      Object.keys(raw).length === 1 &&
      isRecord(end) &&
      Object.keys(end).length === 2 &&
      count(end['messages']) &&
      count(end['rows'])
    )
      this.ended = { messages: end['messages'], rows: end['rows'] };
    else {
      assembly.issue([], `line ${this.line}: expected the end line {"end":{"messages":…,"rows":…}}`);
      this.ended = { messages: this.index, rows: this.rowCount };
    }
  }

  private fastLineV1(text: string): boolean {
    const split = splitFlags(text);
    if (split === undefined) return false;
    this.assembly!.messageWithRows(split.head, this.index++, split.rows);
    return true;
  }
}

/** Whether a line holds only whitespace (checked without `trim`, which copies every line). */
function isBlank(text: string): boolean {
  if (text.length > 0 && text.charCodeAt(0) === 123 /* { */) return false;
  return text.trim() === '';
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

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
