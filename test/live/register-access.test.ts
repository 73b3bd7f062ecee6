import { describe, expect, it } from 'vitest';
import { createRealm } from '../../src/core/snapshot/create';
import { registerState } from '../../src/core/register/register-state';
import { getStreams } from '../../src/ops/live/index';
import { cast, devSnapshot, testCtx } from '../support/realm';

/** The dev realm with guests restricted to the users they share a conversation with. */
function restricted() {
  const snap = devSnapshot();
  (snap['realm'] as Record<string, unknown>)['can_access_all_users_group'] = 'role:members';
  return createRealm(snap);
}

type Dict = Record<string, unknown>;
const ids = (list: unknown) => (list as Dict[]).map((u) => u['user_id'] as number);

describe("register and the read endpoints follow Zulip's user-access rules for guests", () => {
  const realm = restricted();
  const guest = cast.polonius;

  it('a restricted guest without user_list_incomplete gets "Unknown user" for the others', () => {
    const full = registerState(realm, guest, { event_types: ['realm_user'] });
    const users = [...(full['realm_users'] as Dict[]), ...(full['realm_non_active_users'] as Dict[])];
    expect(users).toHaveLength(realm.users.size);
    const unknown = users.filter((u) => u['full_name'] === 'Unknown user');
    expect(unknown.length).toBeGreaterThan(0);
    for (const u of unknown) expect(u).toMatchObject({ delivery_email: null, role: 400, is_admin: false });
  });

  it('with user_list_incomplete the inaccessible users are left out', () => {
    const partial = registerState(realm, guest, {
      event_types: ['realm_user'],
      client_capabilities: { user_list_incomplete: true },
    });
    const seen = [...ids(partial['realm_users']), ...ids(partial['realm_non_active_users'])];
    expect(seen).toContain(guest);
    expect(seen.length).toBeLessThan(realm.users.size);
    // Bots are always accessible.
    for (const u of realm.users.values()) if (u.is_bot) expect(seen).toContain(u.user_id);
  });

  it('a guest sees no default channels and no public channel it is not subscribed to', () => {
    const state = registerState(realm, guest, { event_types: ['default_streams', 'subscription', 'stream'] });
    expect(state['realm_default_streams']).toEqual([]);
    const subscribed = new Set((state['subscriptions'] as Dict[]).map((s) => s['stream_id']));
    for (const s of state['never_subscribed'] as Dict[]) expect(s['is_web_public']).toBe(true);
    const r = getStreams(realm, { userId: guest }, {}, testCtx());
    for (const s of r.body['streams'] as Dict[]) expect(subscribed.has(s['stream_id'])).toBe(true);
  });
});

describe('register user dicts (built as one literal per shape, for speed)', () => {
  it('are formatUser (or the "Unknown user" placeholder) without is_active, byte for byte', async () => {
    const { formatUser } = await import('../../src/core/users/format');
    const { inaccessibleUserRecord } = await import('../../src/core/users/inaccessible-user');
    const { canAccessUser } = await import('../../src/core/permissions/user-access');
    const realm = restricted();
    for (const viewerId of [cast.iago, cast.hamlet, cast.polonius])
      for (const clientGravatar of [true, false]) {
        const me = realm.users.get(viewerId)!;
        const got = registerState(realm, viewerId, {
          event_types: ['realm_user'],
          client_gravatar: clientGravatar,
        });
        const listed = [...(got['realm_users'] as Dict[]), ...(got['realm_non_active_users'] as Dict[])];
        const expected = [...realm.users.values()]
          .map((u): Dict => {
            const d: Dict = canAccessUser(realm, me, u)
              ? { ...formatUser(realm, me, u, { clientGravatar, includeCustomProfileFields: true }) }
              : { ...inaccessibleUserRecord(realm, u.user_id) };
            return d;
          })
          .sort((a, b) => Number(b['is_active']) - Number(a['is_active']));
        for (const d of expected) delete d['is_active'];
        expect(JSON.stringify(listed)).toBe(JSON.stringify(expected));
      }
  });
});
