/**
 * Stream format 2 (`chat-realm.stream/2`): its layout, lossless round trips, and damaged streams
 * refused with a clear problem at a path.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/context';
import { FLAG_BITS, FLAG_NAMES } from '../../src/core/messages/flags';
import { createRealm } from '../../src/core/snapshot/create';
import { snapshotRealm } from '../../src/core/snapshot/export';
import { SnapshotError } from '../../src/core/snapshot/issues';
import { createRealmFromChunks, snapshotChunks } from '../../src/core/snapshot/snapshot-stream';
import { simulateRealm } from '../../src/simulate';
import { devSnapshot, realmFromUnknown } from '../support/realm';

const opts = { random: seededRandom(1) };

function issuesOf(run: () => unknown): string[] {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(SnapshotError);
    return (e as SnapshotError).issues.map((i) => `${i.path}: ${i.message}`);
  }
  return [];
}

/** The lines of a realm's format-2 stream. */
const linesOf = (state: ReturnType<typeof createRealm>) =>
  [...snapshotChunks(state)]
    .join('')
    .split('\n')
    .filter((l) => l !== '');

const read = (lines: readonly string[]) => createRealmFromChunks([lines.join('\n')], opts);

describe('stream format 2', () => {
  const dev = createRealm(devSnapshot(), opts);
  const lines = linesOf(dev);
  const count = dev.messages.count;
  const firstRow = 2 + count;

  it('is a format line, the document, the messages without flags, one row line per user, an end line', () => {
    const snap = JSON.parse(JSON.stringify(snapshotRealm(dev))) as Record<string, unknown> & {
      messages: Array<Record<string, unknown> & { flags: Record<string, string[]> }>;
    };
    expect(JSON.parse(lines[0]!)).toEqual({ format: 'chat-realm.stream/2' });
    expect(JSON.parse(lines[1]!)).toEqual({ ...snap, messages: [] });
    const messages = lines.slice(2, firstRow).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(messages).toEqual(snap.messages.map(({ flags: _flags, ...m }) => m));
    // Each row line, decoded, gives the flags of the document's messages.
    const flags = new Map<number, Record<string, string[]>>();
    let rows = 0;
    let previousUser = 0;
    for (const line of lines.slice(firstRow, -1)) {
      const { user_id: user, rows: values } = JSON.parse(line) as { user_id: number; rows: number[] };
      expect(user).toBeGreaterThan(previousUser);
      previousUser = user;
      let id = 0;
      for (const v of values) {
        id += Math.floor(v / 256);
        const names = FLAG_NAMES.filter((n) => ((v % 256) & FLAG_BITS[n]) !== 0).sort();
        const entry = flags.get(id) ?? {};
        entry[String(user)] = names;
        flags.set(id, entry);
        rows++;
      }
    }
    for (const m of snap.messages) expect(flags.get(m['id'] as number) ?? {}).toEqual(m.flags);
    expect(JSON.parse(lines.at(-1)!)).toEqual({ end: { messages: count, rows } });
  });

  it('round-trips simulated organizations exactly (small, and a medium-sized one cut into chunks)', () => {
    for (const state of [
      simulateRealm({ preset: 'small', seed: 5 }),
      simulateRealm({ preset: 'medium', seed: 2, messages: 20_000 }),
    ]) {
      const text = [...snapshotChunks(state)].join('');
      const pieces: string[] = [];
      for (let at = 0, k = 0; at < text.length; k++)
        pieces.push(text.slice(at, (at += 1000 + ((k * 7919) % 70_000))));
      const copy = createRealmFromChunks(pieces, opts);
      expect(JSON.stringify(snapshotRealm(copy))).toBe(JSON.stringify(snapshotRealm(state)));
      expect([...snapshotChunks(copy)].join('')).toBe(text);
    }
  });

  it('reads row lines written another way (spaces, any valid JSON) as their canonical form (property)', () => {
    const rowLines = lines.slice(firstRow, -1);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: rowLines.length - 1 }), fc.constantFrom(0, 1, 2), (k, style) => {
        const parsed = JSON.parse(rowLines[k]!) as { user_id: number; rows: number[] };
        const respelled =
          style === 0
            ? JSON.stringify(parsed, null, 1).replace(/\n/g, '')
            : style === 1
              ? JSON.stringify({ rows: parsed.rows, user_id: parsed.user_id })
              : ` ${JSON.stringify(parsed)} `;
        const copy = read(lines.map((l, i) => (i === firstRow + k ? respelled : l)));
        expect(snapshotRealm(copy)).toEqual(snapshotRealm(dev));
      }),
      { numRuns: 20 },
    );
  });

  it('refuses a stream cut short, or with counts that disagree', () => {
    expect(issuesOf(() => read(lines.slice(0, -1)))).toEqual([
      '(root): the stream stops before its end line (cut short?)',
    ]);
    // Cut inside a row line: that line is not JSON, and the end line is missing.
    const last = lines.at(-2)!;
    expect(issuesOf(() => read([...lines.slice(0, -2), last.slice(0, last.length - 5)]))).toEqual([
      expect.stringMatching(
        new RegExp(`^rows\\[${lines.length - 2 - firstRow}\\]: line ${lines.length - 1} is not JSON`),
      ),
      '(root): the stream stops before its end line (cut short?)',
    ]);
    // A whole row line lost.
    expect(issuesOf(() => read(lines.filter((_, i) => i !== firstRow)))).toEqual([
      expect.stringMatching(
        /^\(root\): the end line counts \d+ messages and \d+ rows, the stream holds \d+ and \d+$/,
      ),
    ]);
    expect(issuesOf(() => read([...lines, lines[2]!]))).toEqual([
      `(root): line ${lines.length + 1} follows the end line`,
    ]);
    expect(issuesOf(() => read([...lines.slice(0, -1), '{"end":{"messages":1}}']))).toEqual([
      `(root): line ${lines.length}: expected the end line {"end":{"messages":…,"rows":…}}`,
    ]);
    expect(issuesOf(() => read(lines.slice(0, 1)))).toEqual([
      '(root): the stream stops after its format line, before the snapshot document',
    ]);
    expect(issuesOf(() => read(['{"format":"chat-realm.stream/3"}', ...lines.slice(1)]))).toEqual([
      expect.stringMatching(/^\(root\): line 1: not a stream this version reads/),
    ]);
  });

  it('refuses rows that name no user, no message, repeat a user or do not ascend, with their paths', () => {
    const row = (k: number) => JSON.parse(lines[firstRow + k]!) as { user_id: number; rows: number[] };
    const withRow = (k: number, line: object | string) =>
      lines.map((l, i) =>
        i === firstRow + k ? (typeof line === 'string' ? line : JSON.stringify(line)) : l,
      );
    const r0 = row(0);
    expect(issuesOf(() => read(withRow(0, { ...r0, user_id: 999 })))).toEqual([
      'rows[0].user_id: no user 999',
    ]);
    expect(issuesOf(() => read(withRow(1, { ...row(1), user_id: r0.user_id })))).toEqual([
      `rows[1].user_id: user ${r0.user_id}'s rows came on an earlier line`,
    ]);
    const farAway = [...r0.rows, 100_000 * 256 + 1, 256];
    expect(issuesOf(() => read(withRow(0, { ...r0, rows: farAway })))).toContainEqual(
      expect.stringMatching(
        `^rows\\[0\\]\\.rows\\[${r0.rows.length}\\]: no message \\d+ \\(nor for 1 more rows of this line\\)$`,
      ),
    );
    expect(issuesOf(() => read(withRow(0, { ...r0, rows: [...r0.rows, 1] })))[0]).toMatch(
      new RegExp(`^rows\\[0\\]\\.rows\\[${r0.rows.length}\\]: message ids must ascend`),
    );
    expect(issuesOf(() => read(withRow(0, { ...r0, rows: [1, ...r0.rows] })))[0]).toMatch(
      /^rows\[0\]\.rows\[0\]: no message 0/,
    );
    expect(issuesOf(() => read(withRow(0, { ...r0, rows: [...r0.rows, 2.5] })))[0]).toBe(
      `rows[0].rows[${r0.rows.length}]: expected a non-negative integer`,
    );
    expect(issuesOf(() => read(withRow(0, { ...r0, extra: true })))[0]).toBe('rows[0].extra: unknown field');
    expect(issuesOf(() => read(withRow(0, { ...r0, rows: [2 ** 40] })))[0]).toMatch(
      /^rows\[0\]\.rows\[0\]: no message/,
    );
  });

  it('refuses messages out of place: flags on a message line, messages after rows or in the document', () => {
    const withFlags = JSON.stringify({ ...(JSON.parse(lines[2]!) as object), flags: {} });
    expect(issuesOf(() => read(lines.map((l, i) => (i === 2 ? withFlags : l))))).toEqual([
      'messages[0].flags: stream format 2 gives rows on user lines, not in messages',
    ]);
    const moved = [...lines.slice(0, 2), ...lines.slice(3, -1), lines[2]!, lines.at(-1)!];
    expect(issuesOf(() => read(moved))).toContain(
      `messages[${count - 1}]: line ${lines.length - 1}: messages come before the row lines`,
    );
    const doc = JSON.parse(lines[1]!) as Record<string, unknown>;
    const inline = [
      lines[0]!,
      JSON.stringify({ ...doc, messages: [JSON.parse(lines[2]!)] }),
      ...lines.slice(2),
    ];
    expect(issuesOf(() => read(inline))).toEqual([
      'messages: in stream format 2, messages come on their own lines',
    ]);
  });

  it('reports the document’s own problems as createRealm does, and a message line that is not JSON at its path', () => {
    const doc = JSON.parse(lines[1]!) as Record<string, unknown>;
    const bad = { ...doc, realm: { id: 'x' } };
    const issues = issuesOf(() => read([lines[0]!, JSON.stringify(bad), ...lines.slice(2)]));
    expect(issues).toEqual(issuesOf(() => realmFromUnknown(bad)));
    expect(issuesOf(() => read(lines.map((l, i) => (i === 4 ? '{"id": 3, oops' : l))))).toEqual([
      expect.stringMatching(/^messages\[2\]: line 5 is not JSON: /),
    ]);
  });
});
