/**
 * Register's `realm_users` dicts are cached per user record and variant and shared frozen between
 * answers (users.ts, format.ts): a caller writing to an answer cannot change the next one, and an
 * answer after a change (a profile value, a new custom field, the realm settings) shows it.
 */
import { describe, expect, it } from 'vitest';
import { registerState } from '../../src/core/register/register-state';
import type { RealmState } from '../../src/core/state';
import type { User } from '../../src/core/model/records';
import { isUserAccessRestricted } from '../../src/core/permissions/user-access';
import { registerUserDict } from '../../src/core/users/format';
import { createCustomProfileField } from '../../src/ops/users/createCustomProfileField';
import { updateProfileData } from '../../src/ops/users/updateProfileData';
import { as, cast, devRealm, testCtx } from '../support/realm';

type UserDict = Record<string, unknown> & { user_id: number };
const users = (state: RealmState, viewer: number, clientGravatar = false): UserDict[] =>
  registerState(state, viewer, { event_types: ['realm_user'], client_gravatar: clientGravatar })[
    'realm_users'
  ] as UserDict[];
const hamletOf = (list: UserDict[]): UserDict => list.find((u) => u.user_id === cast.hamlet)!;

describe('register realm_users dicts', () => {
  it('are frozen: writing to one answer throws and leaves the next answer as it was', () => {
    const state = devRealm();
    const first = hamletOf(users(state, cast.iago));
    expect(() => {
      first['full_name'] = 'changed';
    }).toThrow(TypeError);
    expect(() => {
      (first['profile_data'] as Record<string, unknown>)['1'] = { value: 'x' };
    }).toThrow(TypeError);
    expect(JSON.stringify(hamletOf(users(state, cast.iago)))).toBe(JSON.stringify(first));
  });

  it('follow a changed profile value, a new field and the realm settings', () => {
    const state = devRealm();
    const before = hamletOf(users(state, cast.iago));
    const changed = updateProfileData(
      state,
      as('hamlet'),
      { data: [{ id: 1, value: '+1-555-0177' }] },
      testCtx(),
    );
    expect(changed.body.result).toBe('success');
    const after = hamletOf(users(changed.state, cast.iago));
    expect(after['profile_data']).toMatchObject({ '1': { value: '+1-555-0177' } });
    expect(before).not.toEqual(after);
    // The old state still answers as before.
    expect(hamletOf(users(state, cast.iago))).toEqual(before);

    const created = createCustomProfileField(
      state,
      as('iago'),
      { field_type: 1, name: 'Team', hint: '' },
      testCtx(),
    );
    expect(created.body.result).toBe('success');
    const withField = hamletOf(users(created.state, cast.iago));
    expect(withField).toEqual(before);
    expect(withField).not.toBe(before);

    // A realm settings change (the realm record is new) rebuilds every dict: same values here.
    const moved: RealmState = { ...state, realm: { ...state.realm } };
    expect(hamletOf(users(moved, cast.iago))).toEqual(before);
    expect(hamletOf(users(moved, cast.iago))).not.toBe(before);
  });

  it('differ by client_gravatar', () => {
    const state = devRealm();
    const avatars = (clientGravatar: boolean) =>
      users(state, cast.iago, clientGravatar).map((u) => u['avatar_url']);
    expect(avatars(true)).not.toEqual(avatars(false));
    expect(avatars(false)).toEqual(avatars(false));
  });

  it('are, for every viewer and client_gravatar, each user walked with that viewer (the per-role lists shared)', () => {
    const base = devRealm();
    // One user who shows their address to admins only: a member sees it only as themselves.
    const hidden = base.users.get(cast.hamlet)!;
    const state: RealmState = {
      ...base,
      users: base.users.set(cast.hamlet, {
        ...hidden,
        settings: { ...hidden.settings, email_address_visibility: 3 },
      }),
    };
    const walk = (viewer: User, clientGravatar: boolean): string => {
      const active: unknown[] = [];
      const inactive: unknown[] = [];
      state.users.forEachValue((u) =>
        (u.is_active ? active : inactive).push(registerUserDict(state, viewer, u, clientGravatar)),
      );
      return JSON.stringify([active, inactive]);
    };
    let viewers = 0;
    state.users.forEachValue((viewer) => {
      if (isUserAccessRestricted(state, viewer)) return;
      viewers++;
      for (const clientGravatar of [false, true]) {
        const answer = registerState(state, viewer.user_id, {
          event_types: ['realm_user'],
          client_gravatar: clientGravatar,
        });
        expect(JSON.stringify([answer['realm_users'], answer['realm_non_active_users']])).toBe(
          walk(viewer, clientGravatar),
        );
      }
    });
    expect(viewers).toBeGreaterThan(3);
    const ownOf = (viewer: number): unknown => hamletOf(users(state, viewer))['delivery_email'];
    expect(ownOf(cast.hamlet)).not.toBeNull();
    expect(ownOf(cast.othello)).toBeNull();
    // Each answer owns its arrays: writing to one leaves the next as it was.
    const first = users(state, cast.othello);
    const length = first.length;
    first.length = 0;
    expect(users(state, cast.othello)).toHaveLength(length);
  });
});
