import { IntMap } from '../collections/int-map';
import type { Subscription } from '../model/records';
import type { RealmState } from '../state';
import { derived } from './derived';
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

/** The subscription indexes, for `putSubscription` and the tests. */
export const SUBSCRIPTION_INDEXES = { byUser } as const;

/** Called by `putSubscription` after it replaced `from` with `to` (`after` instead of `before`). */
export function carrySubscriptionIndexes(
  from: Subscriptions,
  to: Subscriptions,
  before: Subscription | undefined,
  after: Subscription,
): void {
  byUser.carry(from, to, { before, after });
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
