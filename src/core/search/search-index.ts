import { StrMap } from '../collections/str-map';
import { buildIdList, removeIds, type IdList } from '../messages/idlist';
import { nameOf } from '../messages/interner';
import { locateMessage } from '../messages/store-read';
import type { MessageChunk, MessageStore } from '../messages/store-types';
import { insertId } from './postings';
import { addLexemes, indexedText, messageLexemes } from './text';

/**
 * The full-text index of the messages: per lexeme, the ascending ids of the messages whose topic
 * or rendered content has it (Zulip's `search_tsvector`, see text.ts). Persistent like the store:
 * posting lists are `IdList`s and the map a `StrMap`, so an update copies O(lexemes · log n) and
 * every older state keeps its own index.
 *
 * It is derived, not a state field: cached per `store.chunks` (the array is replaced whenever a
 * message is added, changed or removed), built on first use and carried forward by the store's
 * mutators through `carrySearchIndex`. A store changed without carrying it just has its index
 * rebuilt on the next search, so the index is always exact.
 */
export interface SearchIndex {
  readonly postings: StrMap<IdList>;
  /** Postings held: (message, distinct lexeme) pairs. */
  readonly size: number;
}

const indexes = new WeakMap<readonly MessageChunk[], SearchIndex>();

/** The store's index (built now if no state before it had one carried). */
export function searchIndexOf(store: MessageStore): SearchIndex {
  let index = indexes.get(store.chunks);
  if (index === undefined) {
    index = buildSearchIndex(store);
    indexes.set(store.chunks, index);
  }
  return index;
}

/** Whether the store's index is built (a host may build it ahead of the first search). */
export function hasSearchIndex(store: MessageStore): boolean {
  return indexes.has(store.chunks);
}

/** Builds the index in one pass over the messages (topics tokenized once per topic). */
export function buildSearchIndex(store: MessageStore): SearchIndex {
  const lists = new Map<string, number[]>();
  const topicLexemes = new Map<number, readonly string[]>();
  const seen = new Set<string>();
  let size = 0;
  for (const c of store.chunks) {
    for (let i = 0; i < c.ids.length; i++) {
      const id = c.ids[i]!;
      seen.clear();
      if (c.recipient[i]! > 0) {
        const t = c.topic[i]!;
        let tl = topicLexemes.get(t);
        if (tl === undefined) {
          const s = new Set<string>();
          addLexemes(nameOf(store.topics, t), s);
          topicLexemes.set(t, (tl = [...s]));
        }
        for (const l of tl) seen.add(l);
      }
      addLexemes(indexedText(c.content[i]!), seen);
      for (const l of seen) {
        const list = lists.get(l);
        if (list === undefined) lists.set(l, [id]);
        else list.push(id);
      }
      size += seen.size;
    }
  }
  let postings = StrMap.empty<IdList>();
  for (const [l, ids] of lists) postings = postings.set(l, buildIdList(ids));
  return { postings, size };
}

/** The lexemes message `id` has in `store`, or null when the store does not hold it. */
function lexemesIn(store: MessageStore, id: number): Set<string> | null {
  const at = locateMessage(store, id);
  if (at === undefined) return null;
  const r = at.chunk.recipient[at.index]!;
  return messageLexemes(
    at.chunk.content[at.index]!,
    r > 0 ? nameOf(store.topics, at.chunk.topic[at.index]!) : '',
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
  if (before.chunks === after.chunks) return;
  const index = indexes.get(before.chunks);
  if (index === undefined || indexes.has(after.chunks)) return;
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
    let list = postings.get(l);
    for (const id of added) list = insertId(list, id);
    postings = postings.set(l, list!);
  }
  indexes.set(after.chunks, { postings, size });
}
