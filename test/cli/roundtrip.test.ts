/**
 * The command line reads back every file it writes: `simulate → import → export → import → export`
 * gives identical exports, for a `.json` snapshot (read with the streaming JSON parser, as a file
 * too large for one string is) and a `.ndjson` one (`simulate` writes the stream format for that
 * name). A small organization here; `bash bench/cli-roundtrip.sh large` runs the large preset
 * (1,000,000 messages) through the same steps (figures in bench/README.md).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readJsonSnapshot } from '../../src/cli/json-snapshot';
import { run } from '../../src/cli/run';
import { snapshotRealm } from '../../src/core/snapshot/export';
import { devRealm } from '../support/realm';

const dir = mkdtempSync(join(tmpdir(), 'chat-realm-roundtrip-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: readonly string[]): Promise<number> {
  let stderr = '';
  const code = await run(args, { out: () => undefined, err: (t) => (stderr += `${t}\n`) });
  if (code !== 0) throw new Error(`chat-realm ${args.join(' ')}: exit ${code}\n${stderr}`);
  return code;
}

describe('simulate → import → export → import → export', () => {
  beforeEach(() => {
    // Every .json file is streamed, whatever its size, and simulate's progress stays quiet.
    vi.stubEnv('CHAT_REALM_JSON_STREAM_BYTES', '0');
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  for (const ext of ['json', 'ndjson']) {
    it(`gives identical exports through a .${ext} file`, async () => {
      const path = (name: string) => join(dir, `${name}.${ext}`);
      await cli(['simulate', '--preset', 'small', '--users', '30', '--messages', '1500', '--out', path('a')]);
      const head = readFileSync(path('a'), 'utf8').slice(0, 40);
      if (ext === 'ndjson') expect(head).toMatch(/^\{"format":"chat-realm.stream\/2"\}\n/);
      else expect(head).toMatch(/^\{"format":"chat-realm.snapshot\/1"/);
      await cli(['import', '--snapshot', path('a'), '--db', join(dir, `a-${ext}.db`)]);
      await cli(['export', '--db', join(dir, `a-${ext}.db`), '--out', path('b')]);
      await cli(['import', '--snapshot', path('b'), '--db', join(dir, `b-${ext}.db`)]);
      await cli(['export', '--db', join(dir, `b-${ext}.db`), '--out', path('c')]);
      expect(readFileSync(path('c'), 'utf8')).toBe(readFileSync(path('b'), 'utf8'));
    }, 120_000);
  }

  it('streams a .json snapshot to the same realm as JSON.parse, whatever its key order', async () => {
    // Canonical (passwords already hashed), so both readers build the same realm.
    const snapshot = snapshotRealm(devRealm());
    // `messages` first and last: the sections around it are read in a first pass.
    const { messages, ...rest } = snapshot;
    for (const [name, doc] of [
      ['first', { messages, ...rest }],
      ['last', { ...rest, messages }],
    ] as const) {
      const file = join(dir, `dev-${name}.json`);
      writeFileSync(file, JSON.stringify(doc, null, 1));
      expect(snapshotRealm(await readJsonSnapshot(file))).toEqual(snapshot);
    }
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '[1, 2]');
    await expect(readJsonSnapshot(bad)).rejects.toThrow(/is not a JSON object/);
    writeFileSync(bad, '{"format": "chat-realm.snapshot/1", "users": [');
    await expect(readJsonSnapshot(bad)).rejects.toThrow(/could not be read/);
  });
});
