import { appendTyped, startTyped } from '../messages/grow';
import { ID_CHUNK, idChunkFor, type IdList } from '../messages/idlist';
import { lowerBound } from '../messages/rows';

/**
 * Posting lists are the store's persistent id lists (`IdList`): sorted ids in chunks, never
 * mutated. These are the two updates the search index needs besides `removeIds`: one id added
 * anywhere (an edit can give an old message a new word), and membership.
 */

/** `list` with `id` added (the same list when it is there): an append in place past the end, else one chunk rebuilt. */
export function insertId(list: IdList | undefined, id: number): IdList {
  if (list === undefined || list.count === 0) return { chunks: [startTyped(Int32Array, id, 16)], count: 1 };
  const chunks = list.chunks;
  const lastChunk = chunks[chunks.length - 1]!;
  if (id > lastChunk[lastChunk.length - 1]!) {
    const next = chunks.slice();
    if (lastChunk.length >= ID_CHUNK) next.push(startTyped(Int32Array, id, 16));
    else next[next.length - 1] = appendTyped(lastChunk, id, ID_CHUNK);
    return { chunks: next, count: list.count + 1 };
  }
  const ci = idChunkFor(chunks, id);
  const c = chunks[ci]!;
  const i = lowerBound(c, id);
  if (i < c.length && c[i] === id) return list;
  const grown = new Int32Array(c.length + 1);
  grown.set(c.subarray(0, i));
  grown[i] = id;
  grown.set(c.subarray(i), i + 1);
  const next = chunks.slice();
  // A chunk that outgrows the size splits in two, so a rebuild stays O(ID_CHUNK).
  if (grown.length > ID_CHUNK)
    next.splice(ci, 1, grown.slice(0, grown.length >> 1), grown.slice(grown.length >> 1));
  else next[ci] = grown;
  return { chunks: next, count: list.count + 1 };
}

/** Whether `id` is in the list: two binary searches. */
export function hasId(list: IdList, id: number): boolean {
  const c = list.chunks[idChunkFor(list.chunks, id)];
  if (c === undefined) return false;
  const i = lowerBound(c, id);
  return i < c.length && c[i] === id;
}
