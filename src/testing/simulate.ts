import type { RealmState } from '../core/state';
import {
  HEAVY_USER_ID as HEAVY,
  simulateRealm as simulate,
  type SimulateOptions,
} from '../simulate/simulate';

export type { SimulateOptions, Preset } from '../simulate/simulate';

/**
 * A realistic organization, generated deterministically from a seed: roles, groups, channels whose
 * sizes and traffic follow long tails, subscriptions, topics, direct messages, mentions, stars and
 * per-user unread messages. Presets: `small` (40 users, 1,500 messages), `medium` (1,000 users,
 * 100,000 messages), `large` (10,000 users, 1,000,000 messages); any count can be overridden.
 *
 * @example
 * ```ts
 * const org = simulateRealm({ preset: 'small', seed: 7, messages: 300 });
 * expect(org.messages.count).toBe(300);
 * const me = actAs(org, HEAVY_USER_ID, { now: org.now ?? 0 });
 * const r = me.run('updateMessageFlagsForNarrow', {
 *   anchor: 'oldest', num_before: 0, num_after: 5000, narrow: [], op: 'add', flag: 'read',
 * });
 * expect(r.body).toMatchObject({ result: 'success', found_newest: true });
 * ```
 */
export const simulateRealm: (options?: SimulateOptions) => RealmState = simulate;

/**
 * The user who, in a simulated realm (unless `heavyUser: false`), is subscribed to every channel
 * and has read nothing: the worst case for unread and flag operations.
 *
 * @example
 * ```ts
 * const org = simulateRealm({ preset: 'small', messages: 200 });
 * expect(org.users.get(HEAVY_USER_ID)?.is_active).toBe(true);
 * ```
 */
export const HEAVY_USER_ID: number = HEAVY;
