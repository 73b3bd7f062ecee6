import type { Reaction } from '../model/records';

/**
 * A message's reaction list as the store keeps it: the array and each reaction frozen, so that a
 * read (GET /messages' dicts) can hand the stored list out as is instead of copying it per read.
 * A reaction that is not frozen yet is copied first (`{ ...r }`, the same own keys in the same
 * order as the JSON shows them): a loader may keep objects its caller still holds, and freezing
 * those would change the caller's objects. An already-frozen list of frozen reactions is kept.
 */
export function frozenReactions(list: readonly Reaction[]): readonly Reaction[] {
  if (Object.isFrozen(list) && list.every((r) => Object.isFrozen(r))) return list;
  return Object.freeze(list.map((r) => (Object.isFrozen(r) ? r : Object.freeze({ ...r }))));
}
