/**
 * The search index against the straightforward scan with the same tokenizer and stemmer:
 * - for random messages (channel and direct, topics and contents from a small vocabulary with stop
 *   words, punctuation, digits, case variants, links and quotes) and random queries (words, stop
 *   words, quoted phrases), the ids the index answers (posting lists intersected, phrases checked
 *   on the candidates) are exactly the ids `searchMatches` accepts in a scan of every message;
 * - the index carried through random sends, deletions and content/topic changes
 *   (`carrySearchIndex`) equals the index built from scratch for the final store, and every older
 *   store keeps the index it had.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { idListToArray, type IdList } from '../../src/core/messages/idlist';
import {
  allMessages,
  buildMessageStore,
  deleteMessages,
  type MessageInput,
  type MessageStore,
} from '../../src/core/messages/store';
import { appendMessage, nextMessageId } from '../../src/core/messages/store-append';
import { hasId } from '../../src/core/search/postings';
import { parseSearch, phrasesMatch } from '../../src/core/search/query';
import {
  buildSearchIndex,
  carrySearchIndex,
  hasSearchIndex,
  searchIndexOf,
  type SearchIndex,
} from '../../src/core/search/search-index';
import { searchMatches } from '../../src/narrow/search';

const WORDS = [
  'Lunch',
  'lunches',
  'lunching',
  'deploy',
  'deployed',
  'deploys',
  'server',
  'servers',
  'the',
  'a',
  'is',
  'not',
  'x',
  'Database',
  'databases',
  'running',
  'runs',
  'run',
  'cafés',
  'café',
  'v2',
  '2024',
  "don't",
  'foo_bar',
  'foo-bar',
  'HTTPS',
  'example.org',
  'review',
  'reviewing',
  'généreux',
  'über',
];
const SEPARATORS = [' ', ' ', ' ', ', ', '. ', '\n', ' **', '** ', ' `', '` ', ' "', '" '];

const text = (min: number, max: number) =>
  fc
    .array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...SEPARATORS)), {
      minLength: min,
      maxLength: max,
    })
    .map((parts) =>
      parts
        .map(([w, s]) => w + s)
        .join('')
        .trim(),
    );

const content = fc.oneof(
  { weight: 4, arbitrary: text(0, 10) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(text(1, 3), text(1, 2))
      .map(([t, u]) => `see [${t}](https://example.org/${u.replace(/\s+/g, '-')}) ok`),
  },
);

const messageArb = fc.record({
  dm: fc.boolean(),
  stream: fc.integer({ min: 1, max: 3 }),
  topic: text(1, 3),
  content,
});
type Msg = { dm: boolean; stream: number; topic: string; content: string };

function store(msgs: readonly Msg[]): MessageStore {
  const input: MessageInput[] = msgs.map((m, k) =>
    m.dm
      ? { id: 10 + 3 * k, sender_id: 1, to: [2], content: m.content, timestamp: k }
      : {
          id: 10 + 3 * k,
          sender_id: 1,
          stream_id: m.stream,
          topic: m.topic,
          content: m.content,
          timestamp: k,
        },
  );
  return buildMessageStore(input, new Map());
}

const queryArb = fc.oneof(
  fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }).map((w) => w.join(' ')),
  fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...WORDS)).map(([a, b]) => `"${a} ${b}"`),
  fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...WORDS)).map(([a, b]) => `${a} "${b}"`),
);

/** The index's answer: the smallest posting list walked, membership in the others, phrases on the candidates. */
function fromIndex(s: MessageStore, index: SearchIndex, query: string): number[] {
  const q = parseSearch(query);
  if (q.lexemes.length === 0) return [];
  const lists: IdList[] = [];
  for (const l of q.lexemes) {
    const list = index.postings.get(l);
    if (list === undefined) return [];
    lists.push(list);
  }
  lists.sort((a, b) => a.count - b.count);
  const byId = new Map([...allMessages(s)].map((m) => [m.id, m]));
  return idListToArray(lists[0]!).filter((id) => {
    if (!lists.every((list) => hasId(list, id))) return false;
    const m = byId.get(id)!;
    return phrasesMatch(q, m.content, m.topic);
  });
}

function fromScan(s: MessageStore, query: string): number[] {
  const q = parseSearch(query);
  return [...allMessages(s)].filter((m) => searchMatches(q, m.content, m.topic)).map((m) => m.id);
}

function postingsOf(index: SearchIndex): Map<string, number[]> {
  return new Map([...index.postings.entries()].map(([l, list]) => [l, idListToArray(list)] as const));
}

describe('search index', () => {
  it('answers exactly as a scan with the same tokenizer and stemmer', () => {
    fc.assert(
      fc.property(
        fc.array(messageArb, { maxLength: 40 }),
        fc.array(queryArb, { minLength: 1, maxLength: 6 }),
        (msgs, queries) => {
          const s = store(msgs);
          const index = buildSearchIndex(s);
          for (const query of queries) expect(fromIndex(s, index, query)).toEqual(fromScan(s, query));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('is carried through sends, deletions and changes, exactly as a rebuild', () => {
    const change = fc.oneof(
      fc.record({ kind: fc.constant('send' as const), m: messageArb }),
      fc.record({
        kind: fc.constant('delete' as const),
        picks: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
      }),
      fc.record({ kind: fc.constant('edit' as const), pick: fc.nat(), m: messageArb }),
    );
    fc.assert(
      fc.property(
        fc.array(messageArb, { maxLength: 20 }),
        fc.array(change, { maxLength: 12 }),
        (initial, changes) => {
          const msgs = initial.map((m, k) => ({ ...m, id: 10 + 3 * k }));
          let s = store(initial);
          searchIndexOf(s);
          const history: Array<[MessageStore, Map<string, number[]>]> = [];
          for (const c of changes) {
            history.push([s, postingsOf(searchIndexOf(s))]);
            if (c.kind === 'send') {
              const id = nextMessageId(s);
              msgs.push({ ...c.m, id });
              s = appendMessage(
                s,
                {
                  id,
                  sender: 1,
                  timestamp: id,
                  bits: 0,
                  content: c.m.content,
                  streamId: c.m.dm ? null : c.m.stream,
                  topic: c.m.dm ? '' : c.m.topic,
                  participants: c.m.dm ? [1, 2] : [],
                },
                [],
              );
            } else if (c.kind === 'delete') {
              if (msgs.length === 0) continue;
              const gone = new Set(c.picks.map((p) => msgs[p % msgs.length]!.id));
              for (let k = msgs.length - 1; k >= 0; k--) if (gone.has(msgs[k]!.id)) msgs.splice(k, 1);
              s = deleteMessages(s, gone);
            } else {
              if (msgs.length === 0) continue;
              // An edit as the edit operation will make it: a new store whose one message changed content
              // and topic (built here from scratch), with the index carried by the change API.
              const k = c.pick % msgs.length;
              const before = s;
              msgs[k] = { ...c.m, dm: msgs[k]!.dm, id: msgs[k]!.id };
              const input: MessageInput[] = msgs.map((m) =>
                m.dm
                  ? { id: m.id, sender_id: 1, to: [2], content: m.content, timestamp: m.id }
                  : {
                      id: m.id,
                      sender_id: 1,
                      stream_id: m.stream,
                      topic: m.topic,
                      content: m.content,
                      timestamp: m.id,
                    },
              );
              s = buildMessageStore(input, new Map());
              carrySearchIndex(before, s, [msgs[k]!.id]);
            }
          }
          // Carried, not rebuilt on demand.
          expect(hasSearchIndex(s)).toBe(true);
          expect(postingsOf(searchIndexOf(s))).toEqual(postingsOf(buildSearchIndex(s)));
          expect(searchIndexOf(s).size).toBe(buildSearchIndex(s).size);
          for (const [old, postings] of history) expect(postingsOf(searchIndexOf(old))).toEqual(postings);
        },
      ),
      { numRuns: 120 },
    );
  });
});
