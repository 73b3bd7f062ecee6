import { IntMap } from '../collections/int-map';
import type { Subscription, User } from '../model/records';
import type { RealmState } from '../state';
import { derived } from './derived';
import { deactivatedUserIds } from './user-indexes';
import { EMPTY_IDS, addToGroup, removeFromGroup, type IdSet } from './id-sets';

/**
 * `user → stream ids of their active subscriptions`, derived from `state.subscriptions` (see
 * `derived.ts`) and carried by `putSubscription`. Whether the *user* is active is not looked at.
 */

/** One subscription row replaced (same user and stream); `before` is undefined for a new row. */
export interface SubscriptionChange {
  readonly before: Subscription | undefined;
  readonly after: Subscription;
}

type Subscriptions = IntMap<IntMap<Subscription>>;

const byUser = derived<Subscriptions, IntMap<IdSet>, SubscriptionChange>(
  (subscriptions) => {
    // Built per user in one pass, each user's set then made persistent once.
    const perUser = new Map<number, number[]>();
    for (const [streamId, perChannel] of subscriptions) {
      for (const sub of perChannel.values()) {
        if (!sub.active) continue;
        let list = perUser.get(sub.user_id);
        if (list === undefined) perUser.set(sub.user_id, (list = []));
        list.push(streamId);
      }
    }
    let out = IntMap.empty<IdSet>();
    for (const [userId, streams] of perUser) {
      let ids = EMPTY_IDS;
      for (const s of streams) ids = ids.set(s, true);
      out = out.set(userId, ids);
    }
    return out;
  },
  (index, { before, after }) => {
    if ((before?.active === true) === after.active) return index;
    return after.active
      ? addToGroup(index, after.user_id, after.stream_id)
      : removeFromGroup(index, after.user_id, after.stream_id);
  },
);

/** `stream → number of active subscription rows` (deactivated users included). */
const activeRows = derived<Subscriptions, IntMap<number>, SubscriptionChange>(
  (subscriptions) => {
    let out = IntMap.empty<number>();
    for (const [streamId, perChannel] of subscriptions) {
      let n = 0;
      for (const sub of perChannel.values()) if (sub.active) n++;
      if (n > 0) out = out.set(streamId, n);
    }
    return out;
  },
  (index, { before, after }) => {
    if ((before?.active === true) === after.active) return index;
    const n = (index.get(after.stream_id) ?? 0) + (after.active ? 1 : -1);
    return n === 0 ? index.delete(after.stream_id) : index.set(after.stream_id, n);
  },
);

/** The subscription indexes, for `putSubscription` and the tests. */
export const SUBSCRIPTION_INDEXES = { byUser, activeRows } as const;

/** Called by `putSubscription` after it replaced `from` with `to` (`after` instead of `before`). */
export function carrySubscriptionIndexes(
  from: Subscriptions,
  to: Subscriptions,
  before: Subscription | undefined,
  after: Subscription,
): void {
  const change: SubscriptionChange = { before, after };
  byUser.carry(from, to, change);
  activeRows.carry(from, to, change);
}

/** Stream ids of the user's active subscriptions (ascending when iterated). */
export function channelsByUser(state: RealmState, userId: number): IdSet {
  return byUser.get(state.subscriptions).get(userId) ?? EMPTY_IDS;
}

/** Whether two users have an active subscription to a common channel: walks the shorter list. */
export function shareChannel(state: RealmState, a: number, b: number): boolean {
  const sa = channelsByUser(state, a);
  const sb = channelsByUser(state, b);
  const [small, large] = sa.size <= sb.size ? [sa, sb] : [sb, sa];
  for (const streamId of small.keys()) if (large.has(streamId)) return true;
  return false;
}

/**
 * Per (subscriptions, users) pair: stream → active rows held by deactivated users. Built from the
 * deactivated users' own subscriptions (O(their rows)), so a change of users or subscriptions
 * costs that, not a walk of every channel's subscribers.
 */
const inactiveRowsCache = new WeakMap<Subscriptions, WeakMap<IntMap<User>, Map<number, number>>>();

function inactiveRows(state: RealmState): Map<number, number> {
  let perUsers = inactiveRowsCache.get(state.subscriptions);
  if (perUsers === undefined) inactiveRowsCache.set(state.subscriptions, (perUsers = new WeakMap()));
  let out = perUsers.get(state.users);
  if (out === undefined) {
    out = new Map();
    for (const userId of deactivatedUserIds(state).keys())
      for (const streamId of channelsByUser(state, userId).keys())
        out.set(streamId, (out.get(streamId) ?? 0) + 1);
    perUsers.set(state.users, out);
  }
  return out;
}

/**
 * The `subscriber_count` of a channel: its active subscribers who are active users, as
 * `subscriberIds(...).length` but O(log n) — kept by `putSubscription` and `putUser`, never
 * recounted per register.
 */
export function subscriberCount(state: RealmState, streamId: number): number {
  const rows = activeRows.get(state.subscriptions).get(streamId) ?? 0;
  return rows - (inactiveRows(state).get(streamId) ?? 0);
}

/** `subscriberCount` for many channels of one state: the two indexes looked up once. */
export function subscriberCounter(state: RealmState): (streamId: number) => number {
  const rows = activeRows.get(state.subscriptions);
  const inactive = inactiveRows(state);
  return (streamId) => (rows.get(streamId) ?? 0) - (inactive.get(streamId) ?? 0);
}
