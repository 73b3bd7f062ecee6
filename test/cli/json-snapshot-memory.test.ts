/**
 * The streamed `.json` reader holds one message at a time, not the `messages` list: both passes over
 * a 24 MB file whose messages are 96 KB each keep the heap (measured after a full collection, after
 * every 1 MiB chunk) within a few MB of where it started. Before the first pass dropped each message
 * as it was parsed, the heap grew by the whole list (the large preset's import passed 6 GB).
 * A bound on retained memory, not a timing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { messageLines, readSections } from '../../src/cli/json-snapshot';

const MESSAGES = 250;
const CONTENT = 'x'.repeat(96 * 1024);
/** Far below the file (24 MB), well above one chunk, one message and the parser's buffers. */
const BOUND = 8 * 1024 * 1024;

// A full collection on demand: the flag exposes `gc` to contexts created after it is set.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapUsed(): number {
  gc();
  return process.memoryUsage().heapUsed;
}

const dir = mkdtempSync(join(tmpdir(), 'chat-realm-json-memory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A document shaped like a snapshot: sections around a long `messages` list. */
function writeDocument(): string {
  const file = join(dir, 'big.json');
  const messages = Array.from({ length: MESSAGES }, (_, id) => ({ id, content: CONTENT }));
  writeFileSync(file, JSON.stringify({ format: 'f', users: [{ user_id: 1 }], messages, after: { n: 1 } }));
  return file;
}

describe('streamed .json snapshot memory', () => {
  it('the first pass keeps the sections and none of the messages', async () => {
    const file = writeDocument();
    const start = heapUsed();
    let peak = 0;
    const document = await readSections(file, () => {
      peak = Math.max(peak, heapUsed() - start);
    });
    expect(document).toEqual({ format: 'f', users: [{ user_id: 1 }], messages: [], after: { n: 1 } });
    expect(peak).toBeLessThan(BOUND);
  }, 120_000);

  it('the second pass hands on every message and keeps none', async () => {
    const file = writeDocument();
    const start = heapUsed();
    let peak = 0;
    let count = 0;
    let first = true;
    for await (const text of messageLines(file, { format: 'f', messages: [] })) {
      const lines = text.split('\n').filter((line) => line !== '');
      if (first) lines.shift();
      first = false;
      count += lines.length;
      peak = Math.max(peak, heapUsed() - start);
    }
    expect(count).toBe(MESSAGES);
    expect(peak).toBeLessThan(BOUND);
  }, 120_000);
});
