import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/context';
import { createRealm } from '../../src/core/snapshot/create';
import { snapshotRealm } from '../../src/core/snapshot/export';
import { SnapshotError } from '../../src/core/snapshot/issues';
import { createRealmFromChunks, snapshotChunks } from '../../src/core/snapshot/snapshot-stream';
import { simulateRealm } from '../../src/simulate';
import { arbSnapshot } from '../support/arbitraries';
import { devSnapshot, looseDevSnapshot, realmFromUnknown } from '../support/realm';

const opts = { random: seededRandom(1) };

/** Cuts a text into pieces of the given sizes (cycled), so lines are split across chunks. */
function cut(text: string, sizes: readonly number[]): string[] {
  const out: string[] = [];
  for (let at = 0, i = 0; at < text.length; i++) {
    const n = Math.max(1, sizes[i % sizes.length]!);
    out.push(text.slice(at, at + n));
    at += n;
  }
  return out;
}

/** The streamed text folded back into one document (header + message lines). */
function joined(text: string): Record<string, unknown> {
  const [header, ...lines] = text.split('\n').filter((l) => l !== '');
  const doc = JSON.parse(header!) as Record<string, unknown>;
  doc['messages'] = lines.map((l) => JSON.parse(l) as unknown);
  return doc;
}

function issuesOf(run: () => unknown): string[] {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(SnapshotError);
    return (e as SnapshotError).issues.map((i) => `${i.path}: ${i.message}`);
  }
  return [];
}

describe('streamed snapshots (snapshotChunks / createRealmFromChunks)', () => {
  const dev = createRealm(devSnapshot(), opts);

  it('writes format 1 on request: the canonical document, header line plus one line per message', () => {
    const text = [...snapshotChunks(dev, { format: 'ndjson1' })].join('');
    expect(JSON.stringify(joined(text))).toBe(JSON.stringify(snapshotRealm(dev)));
    expect(text.split('\n').filter((l) => l !== '')).toHaveLength(1 + dev.messages.count);
  });

  it("writes one JSON document with format 'json' (JSON.stringify(snapshotRealm)'s text)", () => {
    expect([...snapshotChunks(dev, { format: 'json' })].join('')).toBe(
      `${JSON.stringify(snapshotRealm(dev))}\n`,
    );
    const empty = createRealm({ format: 'chat-realm.snapshot/1' }, opts);
    expect([...snapshotChunks(empty, { format: 'json' })].join('')).toBe(
      `${JSON.stringify(snapshotRealm(empty))}\n`,
    );
  });

  it('reads it back from chunks of any size, sync and async', async () => {
    const text = [...snapshotChunks(dev)].join('');
    for (const sizes of [[1], [7, 300, 2], [1 << 20]]) {
      const copy = createRealmFromChunks(cut(text, sizes), opts);
      expect(snapshotRealm(copy)).toEqual(snapshotRealm(dev));
    }
    async function* chunks() {
      for (const c of cut(text, [4096])) yield c;
    }
    const copy = await createRealmFromChunks(chunks(), opts);
    expect(JSON.stringify(snapshotRealm(copy))).toBe(JSON.stringify(snapshotRealm(dev)));
  });

  it('round-trips a simulated organization (rows without a sender subscription, DMs, reactions)', () => {
    const state = simulateRealm({ preset: 'small', seed: 3 });
    const expected = JSON.stringify(snapshotRealm(state));
    for (const format of ['ndjson', 'ndjson1'] as const) {
      const text = [...snapshotChunks(state, { format })].join('');
      const copy = createRealmFromChunks([text], opts);
      expect(JSON.stringify(snapshotRealm(copy))).toBe(expected);
      // Either format read back writes the same text again.
      expect([...snapshotChunks(copy, { format })].join('')).toBe(text);
    }
    const v1 = [...snapshotChunks(state, { format: 'ndjson1' })].join('');
    expect(JSON.stringify(snapshotRealm(realmFromUnknown(joined(v1), opts)))).toBe(expected);
  });

  it('keeps every string exact (BOM, lone surrogates, NUL, astral, line separators)', () => {
    const s = looseDevSnapshot();
    const odd = ['\ufeffHello', 'a\ud800b', '\udfff', 'nul\u0000', '😀\u2028\u2029\r\n'];
    odd.forEach((content, i) => (s['messages']![i]!['content'] = content));
    s['messages']![5]!['topic'] = '\ufefftopic\ud83d';
    const state = realmFromUnknown(s, opts);
    const copy = createRealmFromChunks(cut([...snapshotChunks(state)].join(''), [5, 11]), opts);
    expect(snapshotRealm(copy)).toEqual(snapshotRealm(state));
    const contents = snapshotRealm(copy).messages.map((m) => m.content);
    for (const c of odd) expect(contents).toContain(c);
  });

  it('agrees with createRealm on random snapshots, in both formats (property)', () => {
    fc.assert(
      fc.property(
        arbSnapshot(),
        fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1 }),
        fc.constantFrom('ndjson' as const, 'ndjson1' as const),
        (s, sizes, format) => {
          const direct = createRealm(s, opts);
          const text = [...snapshotChunks(direct, { format })].join('');
          expect(snapshotRealm(createRealmFromChunks(cut(text, sizes), opts))).toEqual(snapshotRealm(direct));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('reports the same problems at the same paths as createRealm on the joined document', () => {
    const s = looseDevSnapshot();
    s['channels']![0]!['folder_id'] = 99;
    s['subscriptions']!.push({ user_id: 999, stream_id: 1 });
    s['messages']![0]!['sender_id'] = 777;
    s['messages']![1]!['flags'] = { '4': ['shiny'], '999': [] };
    s['messages']![2]!['stream_id'] = 55;
    s['messages']!.push({ id: 1, sender_id: 4, to: [6], content: 'dup', timestamp: 1 });
    const { messages, ...header } = s;
    const lines = [JSON.stringify({ ...header, messages: [] }), ...messages!.map((m) => JSON.stringify(m))];
    const expected = issuesOf(() => realmFromUnknown(s));
    expect(expected.length).toBeGreaterThan(4);
    expect(issuesOf(() => createRealmFromChunks([lines.join('\n')]))).toEqual(expected);
    // Messages inside the header line count first; the rest continue the numbering.
    const mixed = [JSON.stringify({ ...header, messages: messages!.slice(0, 3) }), ...lines.slice(4)];
    expect(issuesOf(() => createRealmFromChunks([mixed.join('\n')]))).toEqual(expected);
    // A header that fails its schema: message shapes first, then the header's problems.
    const badHeader = JSON.stringify({ ...header, realm: { id: 'x' }, messages: [] });
    const broken = [badHeader, JSON.stringify({ id: -1 })].join('\n');
    expect(issuesOf(() => createRealmFromChunks([broken]))).toEqual(
      issuesOf(() => realmFromUnknown({ ...header, realm: { id: 'x' }, messages: [{ id: -1 }] })),
    );
  });

  it('reports a line that is not JSON at its message path, and an empty or broken stream at the root', () => {
    const text = [...snapshotChunks(dev, { format: 'ndjson1' })].join('').split('\n');
    text[3] = '{"id": 2, oops';
    expect(issuesOf(() => createRealmFromChunks([text.join('\n')]))).toEqual([
      expect.stringMatching(/^messages\[2\]: line 4 is not JSON: /),
    ]);
    expect(issuesOf(() => createRealmFromChunks([]))).toEqual(['(root): an empty stream holds no snapshot']);
    expect(issuesOf(() => createRealmFromChunks(['{"format":']))).toEqual([
      expect.stringMatching(/^\(root\): line 1 is not JSON: /),
    ]);
  });
});

describe('snapshotRealm flags (built on first read)', () => {
  const dev = createRealm(devSnapshot(), opts);
  it('reads, spreads, serializes and compares like a data property, and can be replaced', () => {
    const snap = snapshotRealm(dev);
    const messages = snap['messages'] as Array<Record<string, unknown>>;
    const first = messages[0]!;
    expect(Object.keys(first)).toContain('flags');
    const flags = first['flags'] as Record<string, string[]>;
    expect(first['flags']).toBe(flags);
    expect(Object.getOwnPropertyDescriptor(first, 'flags')).toMatchObject({ value: flags, writable: true });
    expect({ ...messages[1]! }['flags']).toEqual(messages[1]!['flags']);
    messages[2]!['flags'] = { '4': ['read'] };
    expect(messages[2]!['flags']).toEqual({ '4': ['read'] });
    const frozen = Object.freeze(messages[3]!);
    expect(frozen['flags']).toBe(frozen['flags']);
    expect(JSON.parse(JSON.stringify(snapshotRealm(dev)))).toEqual(snapshotRealm(dev));
  });
});

describe('the streamed reader takes canonical lines apart, and agrees with JSON.parse on every other line', () => {
  const dev = createRealm(devSnapshot(), opts);
  const [header, first, ...rest] = [...snapshotChunks(dev, { format: 'ndjson1' })]
    .join('')
    .split('\n')
    .filter((l) => l !== '');
  const at = first!.lastIndexOf(',"flags":{');
  const head = first!.slice(0, at);
  const variants = [
    `${head},"flags":{}}`,
    `${head},"flags":{"4":["starred","read","read"],"6":[]}}`,
    `${head},"flags":{"6":[],"4":["read"]}}`, // not ascending
    `${head},"flags":{"04":["read"]}}`, // leading zero: "keys are user ids"
    `${head},"flags":{"4":["re\\u0061d"]}}`, // an escape
    `${head},"flags":{"4":["shiny"]}}`,
    `${head},"flags":{"4":["read"],"4":[]}}`, // a duplicate key: the last wins
    `${head},"flags":{"999":["read"]}}`,
    `${head},"flags":{"12345678901":[]}}`,
    `${head},"flags":{"4": ["read"]}}`, // a space
    `${head},"flags":{"4":["read"]},"flags":{}}`,
    `{"flags":{"4":[]},${head.slice(1)},"flags":{"4":["read"]}}`,
    `{,"flags":{"4":["read"]}}`,
    `${head},"flags":{"4":["read"],}}`,
    `${head},"flags":{"4":["read"]}} `,
  ];
  for (const line of variants)
    it(`reads ${line.slice(at)} as JSON.parse would`, () => {
      const stream = () => createRealmFromChunks([[header, line, ...rest].join('\n')], opts);
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        parsed = undefined;
      }
      if (parsed === undefined) {
        expect(issuesOf(stream)).toEqual([expect.stringMatching(/^messages\[0\]: line 2 is not JSON/)]);
        return;
      }
      const doc = JSON.parse(header!) as Record<string, unknown>;
      doc['messages'] = [parsed, ...rest.map((l) => JSON.parse(l) as unknown)];
      const direct = issuesOf(() => realmFromUnknown(doc, opts));
      expect(issuesOf(stream)).toEqual(direct);
      if (direct.length === 0)
        expect(snapshotRealm(stream())).toEqual(snapshotRealm(realmFromUnknown(doc, opts)));
    });
});
