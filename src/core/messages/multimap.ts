/**
 * Grouping into plain `Map`s, for one-pass builders that collect per-key lists locally and turn
 * them into persistent structures once at the end.
 */

/** Appends `id` to the list under `key`, creating it. */
export function pushTo(map: Map<number, number[]>, key: number, id: number): void {
  const list = map.get(key);
  if (list) list.push(id);
  else map.set(key, [id]);
}

/** Adds `id` to the set under `key`, creating it. */
export function addTo(map: Map<number, Set<number>>, key: number, id: number): void {
  const set = map.get(key);
  if (set) set.add(id);
  else map.set(key, new Set([id]));
}
