/**
 * Search benchmark (issue 27): `search:` queries on the large preset (1M messages) for the heavy
 * user (subscribed to every channel), answered by (1) chat-realm's narrow engine over the search
 * index (buildNarrow + selectWindow, and the whole GET /messages operation), (a) a tight floor that
 * intersects the same posting lists and joins the user's rows, (b) SQLite FTS5 over the same
 * messages (better-sqlite3, in memory), (c) the scan the engine used before the index (every
 * candidate row tokenized and stemmed). Plus the index build and its memory. One run; ratios
 * from it; the load average is printed with the figures.
 */
import { loadavg } from 'node:os';
import Database from 'better-sqlite3';
import type { IdList } from '../../src/core/messages/idlist';
import { nameOf } from '../../src/core/messages/interner';
import { lowerBound } from '../../src/core/messages/rows';
import { locateMessage } from '../../src/core/messages/store-read';
import type { RealmState } from '../../src/core/state';
import { hasId } from '../../src/core/search/postings';
import { parseSearch, phrasesMatch } from '../../src/core/search/query';
import { searchIndexOf, type SearchIndex } from '../../src/core/search/search-index';
import { forEachWord, lexemeOf } from '../../src/core/search/text';
import { buildNarrow, firstUnreadAnchor, NEWEST, selectWindow, type NarrowPlan } from '../../src/narrow';
import { searchMatches } from '../../src/narrow/search';
import { getMessages } from '../../src/ops/messages/getMessages';
import { HEAVY_USER_ID, simulateRealm } from '../../src/simulate/simulate';
import { compare, sized } from '../flags-narrow/timing';

interface Query {
  readonly name: string;
  readonly q: string;
  /** FTS5 MATCH expression with the same meaning as far as FTS5 can say it. */
  readonly fts: string;
}

const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toFixed(4));

function cpuMs(since: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** The floor: newest-first over the smallest posting list, membership in the others by galloping cursors, the user's rows joined, phrases on the candidates. */
function floor(state: RealmState, index: SearchIndex, query: string, limit: number, before: number): number {
  const q = parseSearch(query);
  const lists: IdList[] = [];
  for (const l of q.lexemes) {
    const list = index.postings.get(l);
    if (list === undefined) return 0;
    lists.push(list);
  }
  if (lists.length === 0) return 0;
  lists.sort((a, b) => a.count - b.count);
  const rows = state.messages.rows.get(HEAVY_USER_ID)!.chunks;
  const drive = lists[0]!.chunks;
  let found = 0;
  let rci = rows.length - 1;
  for (let ci = drive.length - 1; ci >= 0 && found < limit; ci--) {
    const c = drive[ci]!;
    for (let i = c.length - 1; i >= 0; i--) {
      const id = c[i]!;
      if (id > before) continue;
      let ok = true;
      for (let k = 1; k < lists.length; k++) if (!hasId(lists[k]!, id)) ok = false;
      if (!ok) continue;
      while (rci > 0 && rows[rci]!.ids[0]! > id) rci--;
      const r = rows[rci]!.ids;
      const p = lowerBound(r, id);
      if (p >= r.length || r[p] !== id) continue;
      if (q.phrases.length > 0) {
        const at = locateMessage(state.messages, id)!;
        const rec = at.chunk.recipient[at.index]!;
        const topic = rec > 0 ? nameOf(state.messages.topics, at.chunk.topic[at.index]!) : '';
        if (!phrasesMatch(q, at.chunk.content[at.index]!, topic)) continue;
      }
      if (++found >= limit) break;
    }
  }
  return found;
}

/** The scan before the index: the narrow without the search term, plus a test that tokenizes and stems each candidate. */
function scanPlan(state: RealmState, query: string): NarrowPlan {
  const built = buildNarrow(state, state.users.get(HEAVY_USER_ID)!, []);
  if (!built.ok) throw new Error(built.error.msg);
  const q = parseSearch(query);
  const topics = state.messages.topics;
  return {
    ...built.plan,
    messageTests: [
      (c, i) => {
        const r = c.recipient[i]!;
        return searchMatches(q, c.content[i]!, r > 0 ? nameOf(topics, c.topic[i]!) : '');
      },
    ],
  };
}

function planFor(state: RealmState, query: string): NarrowPlan {
  const built = buildNarrow(state, state.users.get(HEAVY_USER_ID)!, [
    { operator: 'search', operand: query, negated: false },
  ]);
  if (!built.ok) throw new Error(built.error.msg);
  return built.plan;
}

/** The slowest of a few calls of each function (ms), to size the timed batches. */
function probe(fns: ReadonlyArray<() => unknown>): number {
  let worst = 0;
  for (const f of fns)
    for (let k = 0; k < 3; k++) {
      const t = performance.now();
      f();
      worst = Math.max(worst, performance.now() - t);
    }
  return worst;
}

function pickQueries(state: RealmState, index: SearchIndex): Query[] {
  // Queries are words as a user types them (a lexeme is not: stemming "databas" again gives "databa"):
  // each lexeme's first word seen in the last messages and topics.
  const wordOf = new Map<string, string>();
  const chunks = state.messages.chunks;
  for (const c of chunks.slice(-3))
    for (let i = 0; i < c.ids.length; i++) {
      const topic = c.recipient[i]! > 0 ? nameOf(state.messages.topics, c.topic[i]!) : '';
      forEachWord(`${topic} ${c.content[i]!}`, (w) => {
        const l = lexemeOf(w);
        if (l !== null && !wordOf.has(l)) wordOf.set(l, w);
      });
    }
  const counts = [...index.postings.entries()]
    .filter(([l]) => wordOf.has(l) && /^[a-z]+$/.test(l))
    .map(([l, list]) => [wordOf.get(l)!, list.count] as const)
    .sort((a, b) => a[1] - b[1]);
  const rare = counts[0]!;
  const common = counts[counts.length - 1]!;
  const second = counts[counts.length - 2]!;
  // Two words of the newest message (so some messages have both), and a phrase of two adjacent ones.
  const last = chunks[chunks.length - 1]!;
  const text = last.content[last.ids.length - 1]!.split(' ');
  const pair = `${text[0]} ${text[text.length - 1]}`;
  const phrase = `${text[1]} ${text[2]}`;
  return [
    { name: 'miss (no message has the word)', q: 'zyzzyvas', fts: 'zyzzyvas' },
    { name: `rarest word (${rare[1].toLocaleString('en')} messages)`, q: rare[0], fts: rare[0] },
    { name: `most common word (${common[1].toLocaleString('en')} messages)`, q: common[0], fts: common[0] },
    { name: 'two words of one message', q: pair, fts: pair },
    {
      name: `the two most common words (${second[1].toLocaleString('en')} messages have the second)`,
      q: `${common[0]} ${second[0]}`,
      fts: `${common[0]} ${second[0]}`,
    },
    { name: 'phrase', q: `"${phrase}"`, fts: `"${phrase}"` },
  ];
}

export async function runSearchBench(opts: { quick: boolean; log: (s: string) => void }): Promise<string> {
  const { log } = opts;
  const preset = opts.quick ? 'medium' : 'large';
  log(`search: simulating the ${preset} preset`);
  const state = simulateRealm({ preset, seed: 1 });
  const n = state.messages.count;
  log(`search: ${n} messages`);

  // --- index build and memory ---
  gc();
  const heap0 = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
  let t = performance.now();
  let cpu = process.cpuUsage();
  const built = searchIndexOf(state.messages);
  const buildMs = performance.now() - t;
  const buildCpuMs = cpuMs(cpu);
  gc();
  const heap1 = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
  let postingBytes = 0;
  let postingChunks = 0;
  for (const [, list] of built.postings.entries())
    for (const c of list.chunks) {
      postingBytes += c.byteLength;
      postingChunks++;
    }
  const index = built;
  log(
    `search: index built in ${buildMs.toFixed(0)} ms, ${built.size} postings, ${built.postings.size} lexemes`,
  );

  // --- FTS5 ---
  const db = new Database(':memory:');
  db.exec("CREATE VIRTUAL TABLE fts USING fts5(topic, content, tokenize = 'porter unicode61')");
  const insert = db.prepare('INSERT INTO fts(rowid, topic, content) VALUES (?, ?, ?)');
  t = performance.now();
  cpu = process.cpuUsage();
  db.transaction(() => {
    for (const c of state.messages.chunks)
      for (let i = 0; i < c.ids.length; i++) {
        const r = c.recipient[i]!;
        insert.run(c.ids[i]!, r > 0 ? nameOf(state.messages.topics, c.topic[i]!) : '', c.content[i]!);
      }
  })();
  const ftsBuildMs = performance.now() - t;
  const ftsCpuMs = cpuMs(cpu);
  const ftsPages = (db.prepare('PRAGMA page_count').get() as { page_count: number }).page_count;
  const ftsPageSize = (db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size;
  log(`search: FTS5 built in ${ftsBuildMs.toFixed(0)} ms`);
  const ftsNewest = db.prepare('SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY rowid DESC LIMIT 100');
  const ftsAround = db.prepare(
    'SELECT rowid FROM fts WHERE fts MATCH ? AND rowid < ? ORDER BY rowid DESC LIMIT 50',
  );
  const ftsAfter = db.prepare(
    'SELECT rowid FROM fts WHERE fts MATCH ? AND rowid >= ? ORDER BY rowid ASC LIMIT 51',
  );

  const queries = pickQueries(state, index);
  const rowsNewest: string[] = [];
  const rowsUnread: string[] = [];
  for (const query of queries) {
    const plan = planFor(state, query.q);
    const narrowOnly = () => {
      const b = buildNarrow(state, state.users.get(HEAVY_USER_ID)!, [
        { operator: 'search', operand: query.q, negated: false },
      ]);
      return b.ok ? selectWindow(b.plan, NEWEST, 100, 0, true, true).ids.length : 0;
    };
    const op = () =>
      getMessages(
        state,
        { userId: HEAVY_USER_ID },
        {
          anchor: 'newest',
          num_before: 100,
          num_after: 0,
          narrow: [{ operator: 'search', operand: query.q }],
        },
      );
    const fl = () => floor(state, index, query.q, 100, 0x7fffffff);
    const fts = () => ftsNewest.all(query.fts).length;
    const hits = narrowOnly();
    log(`search: ${query.name} "${query.q}": ${hits} hits (floor ${fl()}, FTS5 ${fts()})`);
    const [e, o, f, s] = compare(
      [narrowOnly, op, fl, fts],
      sized(probe([narrowOnly, op, fl, fts]), opts.quick),
    );
    let scanMs: number | null = null;
    if (query.name.startsWith('miss') || query.name.startsWith('most common')) {
      const sp = scanPlan(state, query.q);
      t = performance.now();
      selectWindow(sp, NEWEST, 100, 0, true, true);
      scanMs = performance.now() - t;
    }
    rowsNewest.push(
      `| ${query.name}: \`${query.q}\` | ${hits} | ${ms(e!.ms)} | ${ms(o!.ms)} | ${ms(f!.ms)} | ${ms(s!.ms)} | ${scanMs === null ? '—' : ms(scanMs)} | ${(e!.ms / Math.max(f!.ms, 1e-6)).toFixed(1)}× | ${(e!.ms / Math.max(s!.ms, 1e-6)).toFixed(2)}× |`,
    );
    // first_unread: the heavy user has read nothing, so the anchor is the oldest match; 50 before and 50 after it.
    const anchored = () => {
      const b = buildNarrow(state, state.users.get(HEAVY_USER_ID)!, [
        { operator: 'search', operand: query.q, negated: false },
      ]);
      if (!b.ok) return 0;
      const at = firstUnreadAnchor(b.plan);
      return selectWindow(b.plan, at, 50, 50, true, true).ids.length;
    };
    const anchor = firstUnreadAnchor(plan);
    const ftsAnchored = () =>
      ftsAround.all(query.fts, anchor).length + ftsAfter.all(query.fts, anchor).length;
    const [a, fa] = compare([anchored, ftsAnchored], sized(probe([anchored, ftsAnchored]), opts.quick));
    rowsUnread.push(
      `| ${query.name}: \`${query.q}\` | ${anchored()} | ${ms(a!.ms)} | ${ms(fa!.ms)} | ${(a!.ms / Math.max(fa!.ms, 1e-6)).toFixed(2)}× |`,
    );
  }
  db.close();
  const load = loadavg()
    .map((x) => x.toFixed(2))
    .join(', ');
  const heapDelta = heap1 - heap0;
  return [
    `## Search (${preset} preset)`,
    '',
    `${n.toLocaleString('en')} messages (simulated content: 512 texts of 4–15 words from a 60-word vocabulary, some with a link; topics of two words and a number). Heavy user (id ${HEAVY_USER_ID}, subscribed to every channel, reads everything but other users' DMs). Median ms of one call after warm-up, interleaved rounds, one run; load average ${load}.`,
    '',
    `**Index build**: ${(buildMs / 1000).toFixed(2)} s wall, ${(buildCpuMs / 1000).toFixed(2)} s CPU for ${n.toLocaleString('en')} messages (${built.postings.size.toLocaleString('en')} lexemes, ${built.size.toLocaleString('en')} postings = (message, distinct lexeme) pairs); SQLite FTS5 (in memory, \`porter unicode61\`) ${(ftsBuildMs / 1000).toFixed(2)} s wall, ${(ftsCpuMs / 1000).toFixed(2)} s CPU — ratio ${(buildMs / ftsBuildMs).toFixed(2)}× wall, ${(buildCpuMs / ftsCpuMs).toFixed(2)}× CPU.`,
    '',
    `**Memory**: posting lists ${(postingBytes / 2 ** 20).toFixed(1)} MiB in ${postingChunks.toLocaleString('en')} typed arrays = ${(postingBytes / built.size).toFixed(1)} bytes per indexed word occurrence (posting), ${(postingBytes / n).toFixed(0)} bytes per message, plus per-array overhead; heap + array buffers grew ${(heapDelta / 2 ** 20).toFixed(1)} MiB over the build${(globalThis as { gc?: unknown }).gc ? ' (after gc)' : ' (without --expose-gc: indicative)'}. FTS5: ${((ftsPages * ftsPageSize) / 2 ** 20).toFixed(1)} MiB of pages.`,
    '',
    '### Newest 100 hits (`anchor: newest, num_before: 100`)',
    '',
    '| query | hits | chat-realm narrow (ms) | GET /messages whole op (ms) | (a) floor (ms) | (b) FTS5 (ms) | (c) old scan (ms, one call) | narrow ÷ floor | narrow ÷ FTS5 |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rowsNewest,
    '',
    '### `first_unread` anchor (50 before, 50 after; the heavy user has read nothing, so the oldest match)',
    '',
    '| query | hits | chat-realm narrow (ms) | FTS5, same window (ms) | ÷ FTS5 |',
    '|---|---:|---:|---:|---:|',
    ...rowsUnread,
  ].join('\n');
}
