/**
 * Stored data is exact: whatever string the engine accepts comes back byte for byte after a
 * checkpoint, a reload and an export (docs/persistence.md, "Exact data").
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runExport } from '../../src/cli/transfer';
import { startServe } from '../../src/cli/serve';

const dir = mkdtempSync(join(tmpdir(), 'chat-realm-exact-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const quiet = { out: () => undefined, err: () => undefined };

describe('exact stored data through the command line', () => {
  it('keeps a byte-order mark at the start of the first message through serve, stop and export', async () => {
    const fixture = JSON.parse(readFileSync('test/fixtures/dev-realm.json', 'utf8')) as {
      messages: Array<{ content: string }>;
    };
    fixture.messages[0]!.content = '\ufeffHello';
    const snapshotFile = join(dir, 'bom.json');
    writeFileSync(snapshotFile, JSON.stringify(fixture));
    const db = join(dir, 'bom.db');
    const serving = await startServe(['--snapshot', snapshotFile, '--db', db, '--port', '0'], quiet);
    if (serving === 'help') throw new Error('unexpected help');
    await serving.stop();
    const out: string[] = [];
    expect(await runExport(['--db', db], { out: (t) => out.push(t), err: () => undefined })).toBe(0);
    const exported = JSON.parse(out.join('')) as { messages: Array<{ content: string }> };
    expect(exported.messages.map((m) => m.content)).toEqual(fixture.messages.map((m) => m.content));
  });
});
