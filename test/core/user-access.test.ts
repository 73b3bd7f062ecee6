/**
 * Zulip's user-access rule (`can_access_all_users_group`, zerver/lib/users.py), as one module:
 * which users a restricted guest can see, who can see a user, and how deactivated users count.
 * Dev-realm channels used here (polonius left Verona in the restricted realms): Rome (4) = iago, hamlet, prospero, polonius (cordelia unsubscribed);
 * newcomers (10) = shiva, aaron, zoe, polonius; old announcements (8, archived) = desdemona, iago, hamlet.
 * Polonius has a 1:1 direct-message conversation with hamlet.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/context';
import type { User } from '../../src/core/model/records';
import {
  accessibleUserIds,
  allUsersAccessible,
  canAccessUser,
  isUserAccessRestricted,
  peersOf,
  userIdsWhoCanAccess,
} from '../../src/core/permissions/user-access';
import { createRealm } from '../../src/core/snapshot/create';
import type { RealmState } from '../../src/core/state';
import { cast, devRealm, devSnapshot } from '../support/realm';

type Snap = ReturnType<typeof devSnapshot>;
const ALL_IDS = Array.from({ length: 16 }, (_, i) => i + 1);
const ACTIVE_IDS = ALL_IDS.filter((id) => id !== cast.exEmployee);
const NON_GUEST_ACTIVE_IDS = ACTIVE_IDS.filter((id) => id !== cast.polonius);

let nextMessageId = 900;
function realmWith(...changes: Array<(snap: Snap) => void>): RealmState {
  const snap = devSnapshot();
  for (const change of changes) change(snap);
  return createRealm(snap, { random: seededRandom(1) });
}
/** Guests see only whom they share something with; polonius leaves Verona (where everyone is). */
const restrict = (snap: Snap) => {
  snap.realm.can_access_all_users_group = 'role:members';
  snap.subscriptions = snap.subscriptions.filter((s) => !(s.user_id === cast.polonius && s.stream_id === 1));
};
const subscribe = (userId: number, streamId: number) => (snap: Snap) => {
  snap.subscriptions.push({ user_id: userId, stream_id: streamId, color: '#000000' });
};
const directMessage = (sender: number, to: number[]) => (snap: Snap) => {
  const flags: Record<string, never[]> = {};
  for (const id of [sender, ...to]) flags[String(id)] = [];
  snap.messages.push({
    id: nextMessageId++,
    sender_id: sender,
    to,
    content: 'dm',
    timestamp: 1735700000,
    flags,
  });
};
const user = (state: RealmState, id: number): User => state.users.get(id)!;
const accessible = (state: RealmState, viewer: number) =>
  ALL_IDS.filter((id) => canAccessUser(state, user(state, viewer), user(state, id)));

describe('user access', () => {
  const restricted = realmWith(restrict);

  it('restricts only guests, and only when the realm limits guests to role:members', () => {
    expect(allUsersAccessible(devRealm())).toBe(true);
    expect(allUsersAccessible(restricted)).toBe(false);
    expect(isUserAccessRestricted(restricted, user(restricted, cast.polonius))).toBe(true);
    expect(isUserAccessRestricted(devRealm(), user(devRealm(), cast.polonius))).toBe(false);
    for (const id of NON_GUEST_ACTIVE_IDS)
      expect(isUserAccessRestricted(restricted, user(restricted, id))).toBe(false);
    expect(isUserAccessRestricted(restricted, null)).toBe(false);
    // Spectators and non-guests see everyone.
    for (const id of ALL_IDS) {
      expect(canAccessUser(restricted, null, user(restricted, id))).toBe(true);
      expect(canAccessUser(restricted, user(restricted, cast.hamlet), user(restricted, id))).toBe(true);
    }
    expect(accessibleUserIds(restricted, null)).toEqual(ALL_IDS);
    expect(accessibleUserIds(restricted, user(restricted, cast.hamlet))).toEqual(ALL_IDS);
  });

  it('lets a restricted guest see themselves, bots, channel co-subscribers and direct-message partners', () => {
    // Rome: iago, hamlet, prospero; newcomers: shiva, aaron, zoe; every bot; not cordelia (left Rome).
    const expected = [2, 3, 4, 7, 8, 9, 10, 11, 12, 13, 16];
    expect(accessible(restricted, cast.polonius)).toEqual(expected);
    expect(accessibleUserIds(restricted, user(restricted, cast.polonius))).toEqual(expected);
    // A direct message is enough on its own.
    const withDm = realmWith(restrict, directMessage(cast.cordelia, [cast.polonius]));
    expect(canAccessUser(withDm, user(withDm, cast.polonius), user(withDm, cast.cordelia))).toBe(true);
    // So is a group direct message.
    const withGroupDm = realmWith(restrict, directMessage(cast.polonius, [cast.othello, cast.desdemona]));
    expect(accessible(withGroupDm, cast.polonius)).toEqual(expect.arrayContaining([1, 6]));
  });

  it('counts a subscription to an archived channel (Zulip does not look at the channel)', () => {
    const s = realmWith(restrict, subscribe(cast.polonius, 8));
    expect(canAccessUser(s, user(s, cast.polonius), user(s, cast.desdemona))).toBe(true);
  });

  it('never reaches a deactivated user through a shared channel', () => {
    const s = realmWith(restrict, subscribe(cast.exEmployee, 4));
    const polonius = user(s, cast.polonius);
    const exEmployee = user(s, cast.exEmployee);
    expect(canAccessUser(s, polonius, exEmployee)).toBe(false);
    expect(accessibleUserIds(s, polonius)).not.toContain(cast.exEmployee);
    expect(peersOf(s, cast.polonius).has(cast.exEmployee)).toBe(false);
  });

  it('lists deactivated direct-message partners in GET /users, but check_can_access_user refuses them', () => {
    const s = realmWith(restrict, directMessage(cast.polonius, [cast.exEmployee]));
    const polonius = user(s, cast.polonius);
    // get_accessible_user_ids(include_deactivated_users=True): direct-message partners stay listed.
    expect(accessibleUserIds(s, polonius)).toContain(cast.exEmployee);
    // check_can_access_user requires the target's subscription to be of an active user.
    expect(canAccessUser(s, polonius, user(s, cast.exEmployee))).toBe(false);
    // peersOf is about active users only.
    expect(peersOf(s, cast.polonius).has(cast.exEmployee)).toBe(false);
  });

  it('sends events about a user to every active user who can access them', () => {
    // Unrestricted realm, or a bot: every active user.
    expect(userIdsWhoCanAccess(devRealm(), user(devRealm(), cast.desdemona))).toEqual(ACTIVE_IDS);
    expect(userIdsWhoCanAccess(restricted, user(restricted, cast.welcomeBot))).toEqual(ACTIVE_IDS);
    // Restricted: non-guests, plus guests sharing a channel or a conversation with the user.
    expect(userIdsWhoCanAccess(restricted, user(restricted, cast.hamlet))).toEqual(ACTIVE_IDS);
    expect(userIdsWhoCanAccess(restricted, user(restricted, cast.desdemona))).toEqual(NON_GUEST_ACTIVE_IDS);
    // The guest themselves is always included.
    expect(userIdsWhoCanAccess(restricted, user(restricted, cast.polonius))).toEqual(ACTIVE_IDS);
  });

  it('sends events about a deactivated user to guests sharing a channel with them, never to the user', () => {
    // get_subscribers_of_target_user_subscriptions looks at the target's subscriptions whether or not
    // the target is active; a deactivated target has no event queue, so it is left out.
    const s = realmWith(restrict, subscribe(cast.exEmployee, 4));
    expect(userIdsWhoCanAccess(s, user(s, cast.exEmployee))).toEqual(ACTIVE_IDS);
    expect(userIdsWhoCanAccess(restricted, user(restricted, cast.exEmployee))).toEqual(NON_GUEST_ACTIVE_IDS);
  });

  it('agrees with itself on every viewer and active target (property)', () => {
    const pair = fc.tuple(fc.constantFrom(...ALL_IDS), fc.constantFrom(...ALL_IDS));
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.array(pair, { maxLength: 4 }),
        fc.array(fc.tuple(fc.constantFrom(...ALL_IDS), fc.integer({ min: 1, max: 10 })), { maxLength: 4 }),
        (isRestricted, dms, subs) => {
          const s = realmWith(
            ...(isRestricted ? [restrict] : []),
            ...dms.filter(([a, b]) => a !== b).map(([a, b]) => directMessage(a, [b])),
            ...subs.map(([u, c]) => (snap: Snap) => {
              const list = snap['subscriptions'] as Array<Record<string, unknown>>;
              if (!list.some((x) => x['user_id'] === u && x['stream_id'] === c)) subscribe(u, c)(snap);
            }),
          );
          for (const v of s.users.values()) {
            const listed = new Set(accessibleUserIds(s, v));
            for (const t of s.users.values()) {
              const can = canAccessUser(s, v, t);
              if (t.is_active) expect(listed.has(t.user_id)).toBe(can);
              else if (can) expect(listed.has(t.user_id)).toBe(true);
              if (t.is_active) expect(userIdsWhoCanAccess(s, t).includes(v.user_id)).toBe(v.is_active && can);
            }
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});
