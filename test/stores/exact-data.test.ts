/**
 * Stored data is exact: every string the engine accepts (a byte-order mark, NUL, astral
 * characters, lone UTF-16 surrogates) comes back byte for byte through each store, its change log
 * and its checkpoints, and through the command line's serve and export (docs/persistence.md,
 * "Exact data").
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { runExport } from '../../src/cli/transfer';
import { startServe } from '../../src/cli/serve';
import { allMessages } from '../../src/core/messages/store';
import { openRealm } from '../../src/host/realm-handle';
import type { RealmStore } from '../../src/host/store';
import { memoryStore } from '../../src/stores/memory/index';
import { postgresStore } from '../../src/stores/postgres/index';
import { sqliteStore } from '../../src/stores/sqlite/index';
import { ALL_OPS, appendMark } from '../support/host-ops';
import { cast, devSnapshot } from '../support/realm';
import { openDatabase, uniqueSchema } from './pg-backing';

const dir = mkdtempSync(join(tmpdir(), 'chat-realm-exact-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const quiet = { out: () => undefined, err: () => undefined };

/** Any UTF-16 string: code points of the whole range, lone surrogates, BOM and NUL made frequent. */
const unit = fc.oneof(
  fc.integer({ min: 0, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
  fc.constantFrom('\ufeff', '\0', '\ud83d', '\ude00', '😀', 'a'),
);
const anyText = fc.string({ unit, maxLength: 12 });

function contents(state: { messages: Parameters<typeof allMessages>[0] }): string[] {
  return [...allMessages(state.messages)].map((m) => m.content);
}

/** Seeds a realm with `first` and `second` as the first two contents, appends `mark`, reloads twice. */
async function roundTrip(open: () => Promise<RealmStore>, first: string, second: string, mark: string) {
  const snapshot = devSnapshot();
  snapshot.messages[0]!.content = first;
  snapshot.messages[1]!.content = second;
  const h = await openRealm({ store: await open(), snapshot, operations: ALL_OPS, checkpoints: false });
  const expected = contents(h.state);
  expect(expected.slice(0, 2)).toEqual([first, second]);
  await h.run(appendMark, { userId: cast.hamlet }, { mark: `m${mark}` });
  const name = h.state.users.get(cast.hamlet)!.full_name;
  expect(name.endsWith(`m${mark}`)).toBe(true);
  await h.close();
  // From checkpoint 0 (format 3) and the change log.
  const replayed = await openRealm({ store: await open(), operations: ALL_OPS, checkpoints: false });
  expect(contents(replayed.state)).toEqual(expected);
  expect(replayed.state.users.get(cast.hamlet)!.full_name).toBe(name);
  await replayed.checkpoint();
  await replayed.close();
  // From the checkpoint of version 1.
  const again = await openRealm({ store: await open(), operations: ALL_OPS, checkpoints: false });
  expect(again.version).toBe(1);
  expect(contents(again.state)).toEqual(expected);
  expect(again.state.users.get(cast.hamlet)!.full_name).toBe(name);
  await again.close();
}

const shared = (store: RealmStore): (() => Promise<RealmStore>) => {
  return async () => ({ ...store, close: async () => {} });
};

describe('every string round-trips exactly through every store', () => {
  const cases = fc.tuple(anyText, anyText, anyText);
  const fixed: Array<[string, string, string]> = [
    ['\ufeffHello', '\0', '\ud800'],
    ['\udc00x', '😀\ud83d', '\ufeff\ufeff'],
  ];

  it('memory', async () => {
    for (const [a, b, c] of fixed) await roundTrip(shared(memoryStore()), a, b, c);
    await fc.assert(
      fc.asyncProperty(cases, async ([a, b, c]) => roundTrip(shared(memoryStore()), a, b, c)),
      { numRuns: 20 },
    );
  }, 120_000);

  it('sqlite', async () => {
    let n = 0;
    const file = () => {
      const filename = join(dir, `p${n++}.db`);
      return async () => sqliteStore({ filename });
    };
    for (const [a, b, c] of fixed) await roundTrip(file(), a, b, c);
    await fc.assert(
      fc.asyncProperty(cases, async ([a, b, c]) => roundTrip(file(), a, b, c)),
      { numRuns: 15 },
    );
  }, 120_000);

  it('postgres (NUL included: text columns hold JSON, which escapes it)', async () => {
    const db = await openDatabase();
    const schema = uniqueSchema();
    let n = 0;
    const realm = () => {
      const name = `p${n++}`;
      return async () => postgresStore({ client: db.client, realm: name, schema, listen: false });
    };
    try {
      for (const [a, b, c] of fixed) await roundTrip(realm(), a, b, c);
      await fc.assert(
        fc.asyncProperty(cases, async ([a, b, c]) => roundTrip(realm(), a, b, c)),
        { numRuns: 6 },
      );
    } finally {
      await db.client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await db.end();
    }
  }, 180_000);
});

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
