import type { IntMap } from '../collections/int-map';
import { StrMap } from '../collections/str-map';
import type { User } from '../model/records';
import { systemGroupRank } from '../permissions/roles';
import type { RealmState } from '../state';
import { derived } from './derived';
import { EMPTY_IDS, addToList, removeFromList, unionSorted, type IdSet } from './id-sets';

/**
 * Indexes derived from `state.users` (see `derived.ts`): built on first use, carried forward by
 * `putUser` through `carryUserIndexes`.
 */

/** One user record replaced by another (same `user_id`); `before` is undefined for a new user. */
export interface UserChange {
  readonly before: User | undefined;
  readonly after: User;
}

type Users = IntMap<User>;

/** The highest system-group rank (guests); `systemGroupRank` gives 1..6. */
const MAX_RANK = 6;

/** Rank of an active user, 0 for a deactivated one (in no system group). */
const activeRank = (u: User | undefined): number => (u?.is_active === true ? systemGroupRank(u) : 0);

/** Active user ids by system-group rank: entry r holds the active users of rank r (bots by their role). */
const ranks = derived<Users, readonly IdSet[], UserChange>(
  (users) => {
    const out: IdSet[] = Array.from({ length: MAX_RANK + 1 }, () => EMPTY_IDS);
    for (const u of users.values()) {
      const r = activeRank(u);
      if (r > 0) out[r] = out[r]!.set(u.user_id, true);
    }
    return out;
  },
  (index, { before, after }) => {
    const from = activeRank(before);
    const to = activeRank(after);
    if (from === to) return index;
    const next = index.slice();
    if (from > 0) next[from] = next[from]!.delete(after.user_id);
    if (to > 0) next[to] = next[to]!.set(after.user_id, true);
    return next;
  },
);

/** Every bot, active or not. */
const bots = derived<Users, IdSet, UserChange>(
  (users) => {
    let out = EMPTY_IDS;
    for (const u of users.values()) if (u.is_bot) out = out.set(u.user_id, true);
    return out;
  },
  (index, { after }) => (after.is_bot ? index.set(after.user_id, true) : index.delete(after.user_id)),
);

/** Every deactivated user (few in a live organization): what subscriber counts subtract. */
const deactivated = derived<Users, IdSet, UserChange>(
  (users) => {
    let out = EMPTY_IDS;
    for (const u of users.values()) if (!u.is_active) out = out.set(u.user_id, true);
    return out;
  },
  (index, { after }) => (after.is_active ? index.delete(after.user_id) : index.set(after.user_id, true)),
);

/** A `StrMap` of sorted ids by a folded field, kept as the field changes. */
function byFoldedField(field: (u: User) => string) {
  return derived<Users, StrMap<readonly number[]>, UserChange>(
    (users) => {
      let out = StrMap.empty<readonly number[]>();
      for (const u of users.values()) out = addToList(out, field(u), u.user_id);
      return out;
    },
    (index, { before, after }) => {
      const to = field(after);
      if (before === undefined) return addToList(index, to, after.user_id);
      const from = field(before);
      return from === to ? index : addToList(removeFromList(index, from, after.user_id), to, after.user_id);
    },
  );
}

/** Delivery emails are compared ignoring case, as Zulip's index on `upper(delivery_email)`. */
export const foldDeliveryEmail = (email: string): string => email.toUpperCase();

/**
 * The name comparison of `require_unique_names`: NFKC then case folding (upper-then-lower folds
 * `ß` to `ss`, as Python's `casefold` does).
 */
export const foldFullName = (name: string): string => name.normalize('NFKC').toUpperCase().toLowerCase();

const byDeliveryEmail = byFoldedField((u) => foldDeliveryEmail(u.delivery_email));
const byFoldedName = byFoldedField((u) => foldFullName(u.full_name));

/** The user indexes, for `putUser` and the tests (`rebuild` gives the from-scratch value). */
export const USER_INDEXES = { ranks, bots, byDeliveryEmail, byFoldedName, deactivated } as const;

/** Called by `putUser` after it replaced `from` with `to` (which holds `after` instead of `before`). */
export function carryUserIndexes(from: Users, to: Users, before: User | undefined, after: User): void {
  const change: UserChange = { before, after };
  for (const index of Object.values(USER_INDEXES)) index.carry(from, to, change);
}

/**
 * Active users in the system group of rank `maxRank` (`SYSTEM_GROUP_RANK`: everyone of rank ≤ it),
 * ascending. O(answer).
 */
export function activeUserIdsUpToRank(state: RealmState, maxRank: number): number[] {
  const index = ranks.get(state.users);
  const lists: Array<Iterable<number>> = [];
  for (let r = 1; r <= Math.min(maxRank, MAX_RANK); r++) lists.push(index[r]!.keys());
  return unionSorted(lists);
}

/** Deactivated users' ids, ascending when iterated. */
export function deactivatedUserIds(state: RealmState): IdSet {
  return deactivated.get(state.users);
}

/** Active organization owners and administrators, bots included (by their own role), ascending. */
export function activeAdminIds(state: RealmState): number[] {
  return activeUserIdsUpToRank(state, 2);
}

/** Ids of every bot, active or not (ascending when iterated). */
export function botIds(state: RealmState): IdSet {
  return bots.get(state.users);
}

/** The smallest id of a user whose delivery email matches ignoring case. */
export function userIdByDeliveryEmail(state: RealmState, email: string): number | undefined {
  return byDeliveryEmail.get(state.users).get(foldDeliveryEmail(email))?.[0];
}

/** Ids of the users (any, active or not) whose `foldFullName(full_name)` is `folded`, ascending. */
export function userIdsByFoldedName(state: RealmState, folded: string): readonly number[] {
  return byFoldedName.get(state.users).get(folded) ?? [];
}
