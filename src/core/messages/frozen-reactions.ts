import type { Reaction } from '../model/records';

/**
 * A message's reaction list as the store keeps it: the array and each reaction frozen, so that a
 * read (GET /messages' dicts) can hand the stored list out as is instead of copying it per read.
 * A reaction that is not frozen yet is copied first: a loader may keep objects its caller still
 * holds, and freezing those would change the caller's objects. An already-frozen list of frozen
 * reactions is kept.
 */
export function frozenReactions(list: readonly Reaction[]): readonly Reaction[] {
  if (Object.isFrozen(list) && list.every((r) => Object.isFrozen(r))) return list;
  return Object.freeze(list.map((r) => (Object.isFrozen(r) ? r : Object.freeze(copyOf(r)))));
}

/**
 * A copy with the same own keys in the same order (the JSON shows them in that order), made by
 * `Object.assign`, not by `{ ...r }`: V8 gives a frozen spread copy a property dictionary of its
 * own, ~200 bytes more per reaction than a frozen assigned copy, so memory per reacted message
 * would grow.
 */
function copyOf(r: Reaction): Reaction {
  return Object.assign({}, r);
}
