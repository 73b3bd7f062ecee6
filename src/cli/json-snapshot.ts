/**
 * Reading a `.json` snapshot of any size without holding it as one string (V8 refuses strings past
 * ~512 MiB: the large preset's snapshot is 710 MB). A streaming JSON parser (@streamparser/json)
 * reads the file twice: first every top-level section but `messages` (their elements are dropped
 * as they are parsed), then each element of `messages`. The two are handed to the streamed
 * snapshot reader as stream format 1 (the document with an empty `messages` list, then one line per
 * message), which checks everything `createRealm` checks and builds the realm message by message.
 * Small files are read whole with `JSON.parse`, which is faster.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { JSONParser } from '@streamparser/json';
import { parseRealm } from '../core/snapshot/create';
import { SnapshotError } from '../core/snapshot/issues';
import { createRealmFromChunks } from '../core/snapshot/snapshot-stream';
import type { RealmState } from '../core/state';
import { readSnapshotFile, UsageError } from './common';

/** Files up to this size are parsed whole; larger ones are streamed (`CHAT_REALM_JSON_STREAM_BYTES`). */
const STREAM_ABOVE_BYTES = 64 * 1024 * 1024;

/** How the parser reports a value: the path to it is `stack` (its parents' keys) plus `key`. */
interface ParsedValue {
  readonly value?: unknown;
  readonly key?: string | number | undefined;
  /** The container the value was just added to (the parser builds it as it reads). */
  readonly parent?: unknown;
  readonly stack: readonly { readonly key?: string | number | undefined }[];
}

/** A `.json` snapshot file as a realm, streamed when it is large. */
export async function readJsonSnapshot(file: string): Promise<RealmState> {
  const limit = Number(process.env['CHAT_REALM_JSON_STREAM_BYTES'] ?? STREAM_ABOVE_BYTES);
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch (error) {
    throw new UsageError(`Cannot read the snapshot ${file}: ${(error as Error).message}`);
  }
  if (size <= limit) {
    const parsed = parseRealm(await readSnapshotFile(file));
    if (!parsed.ok) throw parsed.error;
    return parsed.state;
  }
  try {
    const document = await readSections(file);
    return await createRealmFromChunks(messageLines(file, document));
  } catch (error) {
    if (error instanceof SnapshotError || error instanceof UsageError) throw error;
    throw new UsageError(`The snapshot ${file} could not be read: ${(error as Error).message}`);
  }
}

/** Feeds a file to a parser chunk by chunk, yielding after each chunk's values were reported. */
async function* feed(file: string, parser: JSONParser): AsyncGenerator<void> {
  const input = createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 });
  for await (const chunk of input as AsyncIterable<string>) {
    parser.write(chunk);
    yield;
  }
  if (!parser.isEnded) parser.end();
}

/**
 * First pass: the top-level sections, `messages` left empty. `keepStack: false` does not do that by
 * itself: the parser only drops a finished value from its container when no enclosing value is to be
 * reported, and `$.*` reports `messages`, so every message would stay in that array until its end
 * (the whole 700 MB document as objects, 6 GB and climbing). Each message is reported instead
 * (`$.messages.*`) and taken out of the array right away, so the pass holds one message at a time.
 */
export async function readSections(
  file: string,
  afterChunk: () => void = () => undefined,
): Promise<Record<string, unknown>> {
  const parser = new JSONParser({ paths: ['$.*', '$.messages.*'], keepStack: false });
  const out: Record<string, unknown> = {};
  let fields = 0;
  parser.onValue = ({ value, key, parent, stack }: ParsedValue) => {
    if (stack.length === 2 && stack[1]?.key === 'messages') {
      if (Array.isArray(parent)) parent.pop();
      else if (typeof parent === 'object' && parent !== null && key !== undefined)
        Reflect.deleteProperty(parent, key);
      return;
    }
    if (stack.length !== 1) return;
    if (typeof key !== 'string') throw new UsageError(`The snapshot ${file} is not a JSON object`);
    // `__proto__` would set the prototype: every key stays a plain field.
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    fields++;
  };
  for await (const _ of feed(file, parser)) afterChunk();
  if (fields === 0) throw new UsageError(`The snapshot ${file} is not a JSON object with sections`);
  return { ...out, messages: [] };
}

/** Second pass: stream format 1, the document line, then one line per element of `messages`. */
export async function* messageLines(file: string, document: Record<string, unknown>): AsyncGenerator<string> {
  yield `${JSON.stringify(document)}\n`;
  const parser = new JSONParser({ paths: ['$.messages.*'], keepStack: false });
  let batch: string[] = [];
  parser.onValue = ({ value, stack }: ParsedValue) => {
    if (stack.length === 2) batch.push(JSON.stringify(value));
  };
  for await (const _ of feed(file, parser)) {
    if (batch.length === 0) continue;
    const text = `${batch.join('\n')}\n`;
    batch = [];
    yield text;
  }
  if (batch.length > 0) yield `${batch.join('\n')}\n`;
}
