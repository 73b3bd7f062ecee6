/**
 * `chat-realm export` / `import` with streamed snapshots (NDJSON), in process.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/run';
import { createRealm } from '../../src/core/snapshot/create';
import { snapshotRealm } from '../../src/core/snapshot/export';
import { createRealmFromChunks } from '../../src/core/snapshot/snapshot-stream';
import { devSnapshot } from '../support/realm';

const dir = mkdtempSync(join(tmpdir(), 'chat-realm-transfer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await run(args, { out: (t) => (stdout += `${t}\n`), err: (t) => (stderr += `${t}\n`) });
  return { code, stdout, stderr };
}

describe('chat-realm export / import, streamed', () => {
  it('exports NDJSON and JSON, imports NDJSON into a new store, and exports the same realm again', async () => {
    const source = join(dir, 'source.json');
    writeFileSync(source, JSON.stringify(devSnapshot()));
    const db = join(dir, 'a.db');
    expect((await cli(['import', '--snapshot', source, '--db', db])).code).toBe(0);

    const ndjson = join(dir, 'a.ndjson');
    expect((await cli(['export', '--db', db, '--out', ndjson])).code).toBe(0);
    const json = join(dir, 'a.json');
    expect((await cli(['export', '--db', db, '--out', json])).code).toBe(0);
    const text = readFileSync(ndjson, 'utf8');
    const lines = text.split('\n').filter((l) => l !== '');
    expect(JSON.parse(lines[0]!)).toEqual({ format: 'chat-realm.stream/2' });
    expect(JSON.parse(lines[1]!)).toMatchObject({ format: 'chat-realm.snapshot/1', messages: [] });
    const fromNdjson = createRealmFromChunks([text]);
    const fromJson = createRealm(JSON.parse(readFileSync(json, 'utf8')));
    expect(JSON.stringify(snapshotRealm(fromNdjson))).toBe(JSON.stringify(snapshotRealm(fromJson)));
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ end: { messages: fromJson.messages.count } });
    expect(lines).toHaveLength(3 + fromJson.messages.count + fromJson.messages.rows.size);

    const copy = join(dir, 'b.db');
    expect((await cli(['import', '--snapshot', ndjson, '--db', copy])).code).toBe(0);
    const again = join(dir, 'b.ndjson');
    expect((await cli(['export', '--db', copy, '--out', again])).code).toBe(0);
    expect(readFileSync(again, 'utf8')).toBe(text);
    // --format overrides the file name; standard output carries the same text.
    const stdout = await cli(['export', '--db', copy, '--format', 'ndjson']);
    expect(stdout.stdout).toBe(text);
    // Stream format 1 is still written on request and read back.
    const v1 = join(dir, 'c.ndjson');
    expect((await cli(['export', '--db', copy, '--out', v1, '--format', 'ndjson1'])).code).toBe(0);
    expect(JSON.parse(readFileSync(v1, 'utf8').split('\n')[0]!)).toMatchObject({
      format: 'chat-realm.snapshot/1',
    });
    const fromV1 = join(dir, 'c.db');
    expect((await cli(['import', '--snapshot', v1, '--db', fromV1])).code).toBe(0);
    const back = join(dir, 'c2.ndjson');
    expect((await cli(['export', '--db', fromV1, '--out', back])).code).toBe(0);
    expect(readFileSync(back, 'utf8')).toBe(text);
  });

  it('refuses a bad streamed snapshot with every problem and its path, creating no store', async () => {
    const bad = join(dir, 'bad.ndjson');
    const s = devSnapshot() as Record<string, unknown> & { messages?: unknown[] };
    const { messages, ...header } = s;
    writeFileSync(
      bad,
      [
        JSON.stringify({ ...header, messages: [] }),
        JSON.stringify({ ...(messages![0] as object), sender_id: 999 }),
        '{not json',
      ].join('\n'),
    );
    const db = join(dir, 'never.db');
    const result = await cli(['import', '--snapshot', bad, '--db', db]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('messages[0].sender_id: no user 999');
    expect(result.stderr).toContain('messages[1]: line 3 is not JSON');
    expect(existsSync(db)).toBe(false);
  });
});
