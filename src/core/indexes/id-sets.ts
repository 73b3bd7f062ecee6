import { IntMap } from '../collections/int-map';
import type { StrMap } from '../collections/str-map';

/**
 * Persistent id sets and multimaps the derived indexes are made of. Sets are `IntMap<true>` (they
 * iterate ascending); a `StrMap` of sorted id arrays holds keys shared by a few ids (a folded name).
 */
export type IdSet = IntMap<true>;

export const EMPTY_IDS: IdSet = IntMap.empty<true>();

/** `key → ids` with `id` added under `key`. */
export function addToGroup(map: IntMap<IdSet>, key: number, id: number): IntMap<IdSet> {
  const ids = map.get(key) ?? EMPTY_IDS;
  return ids.has(id) ? map : map.set(key, ids.set(id, true));
}

/** `key → ids` with `id` removed from `key` (an emptied set is dropped). */
export function removeFromGroup(map: IntMap<IdSet>, key: number, id: number): IntMap<IdSet> {
  const ids = map.get(key);
  if (ids === undefined || !ids.has(id)) return map;
  const next = ids.delete(id);
  return next.size === 0 ? map.delete(key) : map.set(key, next);
}

/** `key → sorted ids` with `id` inserted under `key`. */
export function addToList(
  map: StrMap<readonly number[]>,
  key: string,
  id: number,
): StrMap<readonly number[]> {
  const ids = map.get(key) ?? [];
  const at = lowerBound(ids, id);
  if (ids[at] === id) return map;
  return map.set(key, [...ids.slice(0, at), id, ...ids.slice(at)]);
}

/** `key → sorted ids` with `id` removed from `key` (an emptied list is dropped). */
export function removeFromList(
  map: StrMap<readonly number[]>,
  key: string,
  id: number,
): StrMap<readonly number[]> {
  const ids = map.get(key);
  if (ids === undefined) return map;
  const at = lowerBound(ids, id);
  if (ids[at] !== id) return map;
  return ids.length === 1 ? map.delete(key) : map.set(key, [...ids.slice(0, at), ...ids.slice(at + 1)]);
}

function lowerBound(sorted: readonly number[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Merges ascending id lists into one ascending list without duplicates. */
export function unionSorted(lists: ReadonlyArray<Iterable<number>>): number[] {
  const all: number[] = [];
  for (const list of lists) for (const id of list) all.push(id);
  if (lists.length <= 1) return all;
  return sortUniqueIds(all);
}

/** Ids (non-negative 31-bit integers) ascending, each once: a typed-array sort, several times faster than `Array#sort`. */
export function sortUniqueIds(ids: readonly number[]): number[] {
  const sorted = Int32Array.from(ids).sort();
  const out: number[] = [];
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) out.push(sorted[i]!);
  return out;
}

/** Whether an ascending list of ids contains `x` (binary search). */
export function sortedIncludes(sorted: ArrayLike<number>, x: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = sorted[mid]!;
    if (v === x) return true;
    if (v < x) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}
