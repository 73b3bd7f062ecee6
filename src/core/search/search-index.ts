import { placeAt } from '../messages/moved-columns';
import { StrMap } from '../collections/str-map';
import { buildIdList, insertIds, removeIds, type IdList } from '../messages/idlist';
import { nameOf } from '../messages/interner';
import { locateMessage } from '../messages/store-read';
import type { MessageStore } from '../messages/store-types';
import { forEachWord, indexedText, lexemeOf, messageLexemes } from './text';

/**
 * The full-text index of the messages: per lexeme, the ascending ids of the messages whose topic
 * or rendered content has it (Zulip's `search_tsvector`, see text.ts). Persistent like the store:
 * posting lists are `IdList`s and the map a `StrMap`, so an update copies O(lexemes · log n) and
 * every older state keeps its own index.
 *
 * It is derived, not a state field: cached per `store.chunksKey` (which changes whenever a message
 * is added, changed or removed), built on first use and carried forward by the store's
 * mutators through `carrySearchIndex`. A store changed without carrying it just has its index
 * rebuilt on the next search, so the index is always exact.
 */
export interface SearchIndex {
  readonly postings: StrMap<IdList>;
  /** Postings held: (message, distinct lexeme) pairs. */
  readonly size: number;
}

/** Keyed by `MessageStore.chunksKey`: the same for every store whose messages are the same. */
const indexes = new WeakMap<object, SearchIndex>();

/** The store's index (built now if no state before it had one carried). */
export function searchIndexOf(store: MessageStore): SearchIndex {
  let index = indexes.get(store.chunksKey);
  if (index === undefined) {
    index = buildSearchIndex(store);
    indexes.set(store.chunksKey, index);
  }
  return index;
}

/** Whether the store's index is built (a host may build it ahead of the first search). */
export function hasSearchIndex(store: MessageStore): boolean {
  return indexes.has(store.chunksKey);
}

/** One lexeme's ids while building, with the last id added (a message adds each lexeme once). */
interface Building {
  readonly ids: number[];
  last: number;
}

/**
 * Builds the index in one pass over the messages. Words map straight to their lexeme's list
 * (stemming and stop words decided once per distinct word), and a list remembers the last id it
 * took, so a message's repeated lexemes need no per-message set.
 */
export function buildSearchIndex(store: MessageStore): SearchIndex {
  const byLexeme = new Map<string, Building>();
  const byWord = new Map<string, Building | null>();
  const topicWords = new Map<number, readonly string[]>();
  let size = 0;
  let id = 0;
  const add = (word: string): void => {
    let b = byWord.get(word);
    if (b === undefined) {
      const l = lexemeOf(word);
      if (l === null) b = null;
      else {
        b = byLexeme.get(l);
        if (b === undefined) byLexeme.set(l, (b = { ids: [], last: -1 }));
      }
      byWord.set(word, b);
    }
    if (b !== null && b.last !== id) {
      b.ids.push(id);
      b.last = id;
      size++;
    }
  };
  for (const c of store.chunks) {
    for (let i = 0; i < c.ids.length; i++) {
      id = c.ids[i]!;
      if (c.recipient[i]! > 0) {
        const t = c.topic[i]!;
        let words = topicWords.get(t);
        if (words === undefined) {
          const w: string[] = [];
          forEachWord(nameOf(store.topics, t), (x) => w.push(x));
          topicWords.set(t, (words = w));
        }
        for (const w of words) add(w);
      }
      forEachWord(indexedText(c.content[i]!), add);
    }
  }
  let postings = StrMap.empty<IdList>();
  for (const [l, b] of byLexeme) postings = postings.set(l, buildIdList(b.ids));
  return { postings, size };
}

/** The lexemes message `id` has in `store`, or null when the store does not hold it. */
function lexemesIn(store: MessageStore, id: number): Set<string> | null {
  const at = locateMessage(store, id);
  if (at === undefined) return null;
  // Read without folding a moved chunk's columns: a move stays O(k) with an index to carry.
  const place = placeAt(at.chunk, at.index);
  return messageLexemes(
    at.chunk.content[at.index]!,
    place.recipient > 0 ? nameOf(store.topics, place.topic) : '',
  );
}

/**
 * The API for every change of messages: `after` is `before` with the messages `ids` added, changed
 * (content or topic; a move between channels changes nothing here) or removed, every other message
 * the same. Carries `before`'s index, when it has one, to `after` in O(changed lexemes · log n):
 * each id's lexemes are read from both stores and only the difference is applied. With no ids
 * (a change that left content and topics alone, e.g. reaction bits) the index is carried as is.
 */
export function carrySearchIndex(before: MessageStore, after: MessageStore, ids: Iterable<number>): void {
  if (before.chunksKey === after.chunksKey) return;
  const index = indexes.get(before.chunksKey);
  if (index === undefined || indexes.has(after.chunksKey)) return;
  // lexeme → ids that gain it / lose it
  const gain = new Map<string, number[]>();
  const lose = new Map<string, Set<number>>();
  let size = index.size;
  for (const id of ids) {
    const was = lexemesIn(before, id);
    const now = lexemesIn(after, id);
    if (now !== null)
      for (const l of now)
        if (was === null || !was.has(l)) {
          const g = gain.get(l);
          if (g === undefined) gain.set(l, [id]);
          else g.push(id);
          size++;
        }
    if (was !== null)
      for (const l of was)
        if (now === null || !now.has(l)) {
          const s = lose.get(l);
          if (s === undefined) lose.set(l, new Set([id]));
          else s.add(id);
          size--;
        }
  }
  let postings = index.postings;
  for (const [l, gone] of lose) {
    const list = postings.get(l);
    if (list === undefined) continue;
    const next = removeIds(list, gone);
    postings = next.count === 0 ? postings.delete(l) : postings.set(l, next);
  }
  for (const [l, added] of gain) {
    // One batch insertion per list (ids ascending).
    added.sort((a, b) => a - b);
    postings = postings.set(l, insertIds(postings.get(l), added));
  }
  indexes.set(after.chunksKey, { postings, size });
}
