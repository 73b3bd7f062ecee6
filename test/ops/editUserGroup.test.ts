import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/context';
import { isAnonymousGroup, type GroupSettingValue } from '../../src/core/model/group-setting';
import { USER_GROUP_SETTING_NAMES } from '../../src/core/model/records';
import { reachableGroups } from '../../src/core/permissions/groups';
import type { OpResult } from '../../src/core/result';
import { createRealm } from '../../src/core/snapshot/create';
import type { RealmState } from '../../src/core/state';
import { editUserGroup } from '../../src/ops/groups/editUserGroup';
import { expectValidEvent, expectValidResponse } from '../support/openapi';
import { expectRefused } from '../support/expect-result';
import { ACTORS, arbParams, expectLawful } from '../support/op-laws';
import { as, cast, devRealm, devSnapshot, testCtx, wire, type CastName } from '../support/realm';
import { loose } from '../support/loose';

const OP = 'update-user-group';
const state = devRealm();
/** Every active account of the dev realm, bots included (ex-employee 14 is deactivated). */
const ACTIVE = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16];
const G = {
  nobody: 1,
  owners: 2,
  admins: 3,
  moderators: 4,
  fullmembers: 5,
  members: 6,
  everyone: 7,
  internet: 8,
} as const;
const HAMLETCHARACTERS = 101;
const LEADERSHIP = 102;
const SUPPORT = 103;
const OLD_TEAM = 104;
const BOT_WRANGLERS = 105;
const MARKETING = 106;

type Snapshot = ReturnType<typeof devSnapshot>;
function realmWith(change: (snap: Snapshot) => void): RealmState {
  const snap = devSnapshot();
  change(snap);
  return createRealm(snap, { random: seededRandom(1) });
}
function groupsOf(snap: Snapshot): Array<Record<string, unknown>> {
  return snap['user_groups'] as Array<Record<string, unknown>>;
}

/**
 * The scenarios' realm: 'support' created by hamlet (who alone manages it), 'marketing' and
 * 'leadership' exist; `extra` edits it further.
 */
function scenarioRealm(extra: (snap: Snapshot) => void = () => {}): RealmState {
  return realmWith((snap) => {
    const groups = groupsOf(snap);
    const support = groups.find((g) => g['id'] === SUPPORT)!;
    support['creator_id'] = cast.hamlet;
    support['can_manage_group'] = { direct_members: [cast.hamlet], direct_subgroups: [] };
    groups.push({
      id: MARKETING,
      name: 'marketing',
      description: 'Marketing',
      members: [cast.cordelia],
      creator_id: 2,
    });
    extra(snap);
  });
}

function ok(r: OpResult): OpResult {
  expect(r.body).toMatchObject({ result: 'success', msg: '' });
  expect(r.status).toBe(200);
  expectValidResponse(OP, 200, r.body);
  for (const e of r.events) expectValidEvent(e.event);
  expect(r.effects).toEqual([]);
  return r;
}

function refused(r: OpResult, before: RealmState, msg: string, code?: string, extra?: object): void {
  expectRefused(OP, r, before, msg, code, extra);
}

const edit = (s: RealmState, who: CastName, params: Record<string, unknown>) =>
  loose(editUserGroup)(s, as(who), params, testCtx());
const patch = (s: RealmState, who: CastName, id: number, params: Record<string, string>) =>
  wire(s, who, 'PATCH', `/user_groups/${id}`, params);
const update = (group_id: number, data: Record<string, unknown>) => ({
  event: { type: 'user_group', op: 'update', group_id, data },
  users: ACTIVE,
});

describe('editUserGroup', () => {
  describe('who may call', () => {
    it('refuses a guest before parsing parameters (scenario: guest rejected before parsing)', () => {
      const s = scenarioRealm();
      refused(patch(s, 'polonius', SUPPORT, { name: 'help' }), s, 'Not allowed for guest users');
      refused(
        patch(s, 'polonius', SUPPORT, { can_mention_group: 'not json' }),
        s,
        'Not allowed for guest users',
      );
      refused(edit(s, 'polonius', { user_group_id: 'x' }), s, 'Not allowed for guest users');
    });

    it('lets a bot that manages the group edit it from feature level 496', () => {
      const r = ok(patch(state, 'defaultBot', BOT_WRANGLERS, { description: 'Bots and their keepers' }));
      expect(r.state.groups.get(BOT_WRANGLERS)!.description).toBe('Bots and their keepers');
      expect(r.events).toEqual([update(BOT_WRANGLERS, { description: 'Bots and their keepers' })]);
    });

    it('refuses bots before feature level 496, before parsing', () => {
      const old = realmWith((snap) => {
        snap['server'] = { ...(snap['server'] as object), feature_level: 495 };
      });
      const msg = 'This endpoint does not accept bot requests.';
      refused(patch(old, 'defaultBot', BOT_WRANGLERS, { description: 'x' }), old, msg);
      refused(patch(old, 'defaultBot', BOT_WRANGLERS, { can_join_group: '{' }), old, msg);
      // Humans are unaffected by the switch.
      ok(patch(old, 'hamlet', BOT_WRANGLERS, { description: 'x' }));
    });

    it('refuses a bot that does not manage the group', () => {
      refused(
        patch(state, 'outgoingBot', BOT_WRANGLERS, { description: 'x' }),
        state,
        'Insufficient permission',
      );
    });

    it('gives administrators no implicit right (can_manage_all_groups is role:owners)', () => {
      refused(
        edit(state, 'iago', { user_group_id: BOT_WRANGLERS, description: 'x' }),
        state,
        'Insufficient permission',
      );
      refused(
        edit(state, 'shiva', { user_group_id: BOT_WRANGLERS, description: 'x' }),
        state,
        'Insufficient permission',
      );
      refused(
        edit(state, 'cordelia', { user_group_id: BOT_WRANGLERS, description: 'x' }),
        state,
        'Insufficient permission',
      );
    });

    it('lets an owner edit any group through can_manage_all_groups (scenario: owner via can_manage_all_groups)', () => {
      const s = scenarioRealm();
      const r = ok(patch(s, 'desdemona', SUPPORT, { description: 'x' }));
      expect(r.body).toEqual({ result: 'success', msg: '' });
      expect(r.state.groups.get(SUPPORT)!.description).toBe('x');
    });

    it('lets members of can_manage_group edit, recursively through subgroups', () => {
      const s = realmWith((snap) => {
        groupsOf(snap).find((g) => g['id'] === HAMLETCHARACTERS)!['can_manage_group'] = {
          direct_members: [],
          direct_subgroups: [SUPPORT, LEADERSHIP],
        };
      });
      // othello is a direct member of support; iago is in leadership, a subgroup of support too.
      ok(edit(s, 'othello', { user_group_id: HAMLETCHARACTERS, description: 'x' }));
      ok(edit(s, 'iago', { user_group_id: HAMLETCHARACTERS, description: 'x' }));
      refused(
        edit(s, 'hamlet', { user_group_id: HAMLETCHARACTERS, description: 'x' }),
        s,
        'Insufficient permission',
      );
    });

    it('follows the realm can_manage_all_groups setting', () => {
      const s = realmWith((snap) => {
        (snap['realm'] as Record<string, unknown>)['can_manage_all_groups'] = 'role:members';
      });
      ok(edit(s, 'aaron', { user_group_id: LEADERSHIP, description: 'x' }));
    });

    it('refuses system groups, even to owners (scenario: system groups are immutable)', () => {
      const s = scenarioRealm();
      refused(
        patch(s, 'desdemona', G.fullmembers, { name: 'Full members user group' }),
        s,
        'Insufficient permission',
      );
      for (const id of Object.values(G)) {
        refused(
          edit(state, 'desdemona', { user_group_id: id, description: 'x' }),
          state,
          'Insufficient permission',
        );
      }
    });

    it('refuses an unknown group', () => {
      refused(
        edit(state, 'desdemona', { user_group_id: 999, description: 'x' }),
        state,
        'Invalid user group',
      );
      refused(patch(state, 'desdemona', 999, { description: 'x' }), state, 'Invalid user group');
    });
  });

  describe('parameters', () => {
    it('needs some data, before looking the group up (scenario: no data)', () => {
      const s = scenarioRealm();
      refused(patch(s, 'hamlet', SUPPORT, {}), s, 'No new data supplied');
      refused(patch(s, 'hamlet', 999, { unknown: 'x' }), s, 'No new data supplied');
    });

    it('reports a bare value for a setting as the wrong format', () => {
      refused(
        patch(state, 'desdemona', SUPPORT, { can_mention_group: '7' }),
        state,
        'can_mention_group does not have the expected format',
      );
      refused(
        edit(state, 'desdemona', { user_group_id: SUPPORT, can_mention_group: 7 }),
        state,
        'can_mention_group does not have the expected format',
      );
    });

    it('needs `new` in a change request', () => {
      refused(
        patch(state, 'desdemona', SUPPORT, { can_join_group: '{"old": 1}' }),
        state,
        'can_join_group["new"] field is missing: Field required',
      );
    });

    it('refuses invalid JSON and wrong types', () => {
      refused(
        patch(state, 'desdemona', SUPPORT, { can_leave_group: '{new: 1}' }),
        state,
        'can_leave_group is not valid JSON',
      );
      refused(
        patch(state, 'desdemona', SUPPORT, { deactivated: '1' }),
        state,
        'deactivated is not a boolean',
      );
      refused(
        patch(state, 'desdemona', SUPPORT, { deactivated: 'False' }),
        state,
        'deactivated is not valid JSON',
      );
      refused(edit(state, 'desdemona', { user_group_id: SUPPORT, name: 5 }), state, 'name is not a string');
    });

    it('reports the alphabetically first bad parameter', () => {
      refused(
        patch(state, 'desdemona', SUPPORT, {
          deactivated: '1',
          can_remove_members_group: '1',
          can_add_members_group: '2',
        }),
        state,
        'can_add_members_group does not have the expected format',
      );
    });

    it('lists unknown parameters as ignored, but not the path parameter', () => {
      const r = ok(patch(state, 'desdemona', SUPPORT, { description: 'x', zeta: '1', alpha: '2' }));
      expect(r.body).toEqual({
        result: 'success',
        msg: '',
        ignored_parameters_unsupported: ['alpha', 'zeta'],
      });
    });

    it('answers 404 for a non-numeric group id on the wire', () => {
      const r = wire(state, 'desdemona', 'PATCH', '/user_groups/abc', { description: 'x' });
      expect(r.status).toBe(404);
      expect(r.state).toBe(state);
    });
  });

  describe('name and description', () => {
    it('lets the creator rename and describe, one event each to all active users (scenario: creator may rename and describe)', () => {
      const s = scenarioRealm();
      const r = ok(patch(s, 'hamlet', SUPPORT, { name: 'help', description: 'Troubleshooting team' }));
      expect(r.body).toEqual({ result: 'success', msg: '' });
      const g = r.state.groups.get(SUPPORT)!;
      expect(g).toEqual({ ...s.groups.get(SUPPORT)!, name: 'help', description: 'Troubleshooting team' });
      expect(r.state.groupsByName.get('help')).toBe(SUPPORT);
      expect(r.state.groupsByName.get('support')).toBeUndefined();
      expect(r.events).toEqual([
        update(SUPPORT, { name: 'help' }),
        update(SUPPORT, { description: 'Troubleshooting team' }),
      ]);
      // The old state is untouched.
      expect(s.groups.get(SUPPORT)!.name).toBe('support');
    });

    it('refuses an empty or blank name (scenario: name empty)', () => {
      const s = scenarioRealm();
      refused(patch(s, 'hamlet', SUPPORT, { name: '' }), s, "User group name can't be empty!");
      refused(patch(s, 'hamlet', SUPPORT, { name: '  \t ' }), s, "User group name can't be empty!");
      // Python's strip: U+001F is whitespace, U+FEFF is not.
      refused(patch(s, 'hamlet', SUPPORT, { name: '\u001f \u3000' }), s, "User group name can't be empty!");
      expect(ok(patch(s, 'hamlet', SUPPORT, { name: '\ufeff' })).state.groups.get(SUPPORT)!.name).toBe(
        '\ufeff',
      );
    });

    it('refuses a name over 100 code points (scenario: name too long)', () => {
      const s = scenarioRealm();
      refused(
        patch(s, 'hamlet', SUPPORT, { name: 'a'.repeat(101) }),
        s,
        'User group name cannot exceed 100 characters.',
      );
      ok(patch(s, 'hamlet', SUPPORT, { name: 'a'.repeat(100) }));
      // 100 emoji are 200 UTF-16 units but 100 characters.
      ok(patch(s, 'hamlet', SUPPORT, { name: '😀'.repeat(100) }));
      refused(
        patch(s, 'hamlet', SUPPORT, { name: '😀'.repeat(101) }),
        s,
        'User group name cannot exceed 100 characters.',
      );
    });

    it.each(['@', 'role:', 'user:', 'stream:', 'channel:'])('refuses names starting with %s', (prefix) => {
      refused(
        edit(state, 'desdemona', { user_group_id: SUPPORT, name: `${prefix}team` }),
        state,
        `User group name cannot start with '${prefix}'.`,
      );
    });

    it('refuses a name another group has, deactivated and system groups included, case-sensitively', () => {
      refused(
        edit(state, 'desdemona', { user_group_id: SUPPORT, name: 'leadership' }),
        state,
        "User group 'leadership' already exists.",
      );
      refused(
        edit(state, 'desdemona', { user_group_id: SUPPORT, name: 'old team' }),
        state,
        "User group 'old team' already exists.",
      );
      const r = ok(edit(state, 'desdemona', { user_group_id: SUPPORT, name: 'Leadership' }));
      expect(r.state.groups.get(SUPPORT)!.name).toBe('Leadership');
    });

    it('treats the current name and description as no change: same state, no events', () => {
      const r = ok(
        edit(state, 'desdemona', { user_group_id: SUPPORT, name: 'support', description: 'Support team' }),
      );
      expect(r.state).toBe(state);
      expect(r.events).toEqual([]);
    });

    it('accepts an empty description', () => {
      const r = ok(edit(state, 'desdemona', { user_group_id: SUPPORT, description: '' }));
      expect(r.state.groups.get(SUPPORT)!.description).toBe('');
      expect(r.events).toEqual([update(SUPPORT, { description: '' })]);
    });
  });

  describe('deactivated groups', () => {
    it('can still be renamed (scenario: deactivated group can be edited)', () => {
      const s = scenarioRealm((snap) => {
        groupsOf(snap).find((g) => g['id'] === SUPPORT)!['deactivated'] = true;
      });
      const r = ok(patch(s, 'hamlet', SUPPORT, { name: 'Support team' }));
      expect(r.state.groups.get(SUPPORT)).toEqual({ ...s.groups.get(SUPPORT)!, name: 'Support team' });
      expect(r.events).toEqual([update(SUPPORT, { name: 'Support team' })]);
    });

    it('keeps their own settings editable', () => {
      const r = ok(edit(state, 'iago', { user_group_id: OLD_TEAM, can_mention_group: { new: G.members } }));
      expect(r.state.groups.get(OLD_TEAM)!.can_mention_group).toBe(G.members);
      expect(r.state.groups.get(OLD_TEAM)!.deactivated).toBe(true);
    });

    it('reactivates with deactivated=false: an update event, then an add event for reactivation (scenario: reactivate)', () => {
      const s = scenarioRealm((snap) => {
        groupsOf(snap).find((g) => g['id'] === SUPPORT)!['deactivated'] = true;
        (snap['realm'] as Record<string, unknown>)['can_manage_all_groups'] = 'role:members';
      });
      const r = ok(patch(s, 'othello', SUPPORT, { deactivated: 'false' }));
      expect(r.state.groups.get(SUPPORT)).toEqual({ ...s.groups.get(SUPPORT)!, deactivated: false });
      expect(r.events).toEqual([
        update(SUPPORT, { deactivated: false }),
        {
          event: {
            type: 'user_group',
            op: 'add',
            group: {
              name: 'support',
              creator_id: cast.hamlet,
              date_created: 0,
              members: [cast.othello],
              description: 'Support team',
              id: SUPPORT,
              is_system_group: false,
              direct_subgroup_ids: [LEADERSHIP],
              can_add_members_group: { direct_members: [cast.hamlet], direct_subgroups: [] },
              can_join_group: G.nobody,
              can_leave_group: G.everyone,
              can_manage_group: { direct_members: [cast.hamlet], direct_subgroups: [] },
              can_mention_group: G.members,
              can_remove_members_group: G.nobody,
              deactivated: false,
            },
            for_reactivation: true,
          },
          users: ACTIVE,
        },
      ]);
    });

    it('leaves deactivated members out of the reactivated group', () => {
      const s = realmWith((snap) => {
        groupsOf(snap).find((g) => g['id'] === OLD_TEAM)!['members'] = [7, 14];
      });
      const r = ok(edit(s, 'iago', { user_group_id: OLD_TEAM, deactivated: false }));
      expect(r.events[1]!.event).toMatchObject({ op: 'add', group: { members: [7] } });
    });

    it('ignores deactivated=true, and deactivated=false on an active group', () => {
      for (const [id, deactivated] of [
        [SUPPORT, true],
        [OLD_TEAM, true],
        [SUPPORT, false],
      ] as const) {
        const r = ok(edit(state, 'desdemona', { user_group_id: id, deactivated }));
        expect(r.state).toBe(state);
        expect(r.events).toEqual([]);
      }
    });

    it('cannot be used in a setting until reactivated (scenario: deactivated group as setting value)', () => {
      const s = scenarioRealm((snap) => {
        groupsOf(snap).find((g) => g['id'] === LEADERSHIP)!['deactivated'] = true;
      });
      refused(
        patch(s, 'desdemona', SUPPORT, { can_mention_group: `{"new": ${LEADERSHIP}}` }),
        s,
        'User group is deactivated.',
      );
      refused(
        patch(s, 'desdemona', SUPPORT, {
          can_mention_group: JSON.stringify({ new: { direct_members: [4], direct_subgroups: [LEADERSHIP] } }),
        }),
        s,
        'User group is deactivated.',
      );
    });

    it('may name itself once reactivated in the same request (steps run in order)', () => {
      refused(
        edit(state, 'iago', { user_group_id: OLD_TEAM, can_mention_group: { new: OLD_TEAM } }),
        state,
        'User group is deactivated.',
      );
      const r = ok(
        edit(state, 'iago', {
          user_group_id: OLD_TEAM,
          deactivated: false,
          can_mention_group: { new: OLD_TEAM },
        }),
      );
      expect(r.state.groups.get(OLD_TEAM)).toMatchObject({ deactivated: false, can_mention_group: OLD_TEAM });
      expect(r.events.map((e) => ('op' in e.event ? e.event.op : undefined))).toEqual([
        'update',
        'add',
        'update',
      ]);
      expect(r.events[2]).toEqual(update(OLD_TEAM, { can_mention_group: OLD_TEAM }));
    });
  });

  describe('group settings', () => {
    it('sets a named group and sends the new value', () => {
      const r = ok(patch(state, 'desdemona', SUPPORT, { can_join_group: `{"new": ${HAMLETCHARACTERS}}` }));
      expect(r.state.groups.get(SUPPORT)!.can_join_group).toBe(HAMLETCHARACTERS);
      expect(r.events).toEqual([update(SUPPORT, { can_join_group: HAMLETCHARACTERS })]);
    });

    it('refuses an unknown group (scenario: unknown group in setting)', () => {
      const s = scenarioRealm();
      refused(
        patch(s, 'desdemona', SUPPORT, { can_mention_group: '{"new": 123456}' }),
        s,
        'Invalid user group',
      );
    });

    it('refuses an inactive or unknown member, the first in request order (scenario: invalid member in anonymous value)', () => {
      const s = scenarioRealm();
      const value = (members: number[]) =>
        JSON.stringify({ new: { direct_members: members, direct_subgroups: [G.moderators] } });
      refused(
        patch(s, 'desdemona', SUPPORT, { can_mention_group: value([1111, cast.othello]) }),
        s,
        'Invalid user ID: 1111',
      );
      refused(
        patch(s, 'desdemona', SUPPORT, { can_mention_group: value([20, cast.exEmployee]) }),
        s,
        'Invalid user ID: 20',
      );
      refused(
        patch(s, 'desdemona', SUPPORT, { can_mention_group: value([cast.exEmployee]) }),
        s,
        'Invalid user ID: 14',
      );
    });

    it('refuses an unknown subgroup', () => {
      refused(
        edit(state, 'desdemona', {
          user_group_id: SUPPORT,
          can_join_group: { new: { direct_members: [4], direct_subgroups: [999] } },
        }),
        state,
        'Invalid user group ID: 999',
      );
    });

    it('refuses role:internet for every setting (scenario: internet group not allowed)', () => {
      const s = scenarioRealm();
      refused(
        patch(s, 'desdemona', SUPPORT, { can_mention_group: `{"new": ${G.internet}}` }),
        s,
        "'can_mention_group' setting cannot be set to 'role:internet' group.",
      );
      for (const setting of USER_GROUP_SETTING_NAMES) {
        refused(
          edit(state, 'desdemona', { user_group_id: SUPPORT, [setting]: { new: G.internet } }),
          state,
          `'${setting}' setting cannot be set to 'role:internet' group.`,
        );
      }
    });

    it('refuses role:everyone where the setting does not allow it, and accepts it where it does', () => {
      for (const setting of [
        'can_add_members_group',
        'can_join_group',
        'can_manage_group',
        'can_remove_members_group',
      ]) {
        refused(
          edit(state, 'desdemona', { user_group_id: SUPPORT, [setting]: { new: G.everyone } }),
          state,
          `'${setting}' setting cannot be set to 'role:everyone' group.`,
        );
      }
      ok(edit(state, 'desdemona', { user_group_id: SUPPORT, can_mention_group: { new: G.everyone } }));
      const leave = ok(
        edit(state, 'desdemona', { user_group_id: SUPPORT, can_leave_group: { new: G.members } }),
      );
      ok(edit(leave.state, 'desdemona', { user_group_id: SUPPORT, can_leave_group: { new: G.everyone } }));
    });

    it('refuses role:owners for can_mention_group only', () => {
      refused(
        edit(state, 'desdemona', { user_group_id: SUPPORT, can_mention_group: { new: G.owners } }),
        state,
        "'can_mention_group' setting cannot be set to 'role:owners' group.",
      );
      const r = ok(edit(state, 'desdemona', { user_group_id: SUPPORT, can_manage_group: { new: G.owners } }));
      expect(r.state.groups.get(SUPPORT)!.can_manage_group).toBe(G.owners);
    });

    it('accepts role:nobody for every setting', () => {
      for (const setting of USER_GROUP_SETTING_NAMES.filter(
        (s) => s !== 'can_join_group' && s !== 'can_remove_members_group',
      )) {
        const r = ok(edit(state, 'desdemona', { user_group_id: SUPPORT, [setting]: { new: G.nobody } }));
        expect(r.events).toEqual([update(SUPPORT, { [setting]: G.nobody })]);
      }
    });

    it('does not check system subgroups of an anonymous value', () => {
      const value = { direct_members: [], direct_subgroups: [G.everyone, G.moderators] };
      const r = ok(edit(state, 'desdemona', { user_group_id: SUPPORT, can_manage_group: { new: value } }));
      expect(r.state.groups.get(SUPPORT)!.can_manage_group).toEqual({
        direct_members: [],
        direct_subgroups: [G.moderators, G.everyone],
      });
    });

    it('reads a single subgroup as that group, and nothing as role:nobody', () => {
      const one = ok(
        edit(state, 'desdemona', {
          user_group_id: SUPPORT,
          can_manage_group: { new: { direct_members: [], direct_subgroups: [LEADERSHIP] } },
        }),
      );
      expect(one.state.groups.get(SUPPORT)!.can_manage_group).toBe(LEADERSHIP);
      expect(one.events).toEqual([update(SUPPORT, { can_manage_group: LEADERSHIP })]);
      const none = ok(
        edit(state, 'desdemona', {
          user_group_id: SUPPORT,
          can_add_members_group: { new: { direct_members: [], direct_subgroups: [] } },
        }),
      );
      expect(none.state.groups.get(SUPPORT)!.can_add_members_group).toBe(G.nobody);
      expect(none.events).toEqual([update(SUPPORT, { can_add_members_group: G.nobody })]);
      // A single subgroup is checked as a group id: role:everyone is then refused.
      refused(
        edit(state, 'desdemona', {
          user_group_id: SUPPORT,
          can_manage_group: { new: { direct_members: [], direct_subgroups: [G.everyone] } },
        }),
        state,
        "'can_manage_group' setting cannot be set to 'role:everyone' group.",
      );
    });

    it('stores an anonymous value sorted and deduplicated', () => {
      const r = ok(
        edit(state, 'desdemona', {
          user_group_id: SUPPORT,
          can_remove_members_group: {
            new: { direct_members: [6, 4, 6], direct_subgroups: [LEADERSHIP, HAMLETCHARACTERS] },
          },
        }),
      );
      const value = { direct_members: [4, 6], direct_subgroups: [HAMLETCHARACTERS, LEADERSHIP] };
      expect(r.state.groups.get(SUPPORT)!.can_remove_members_group).toEqual(value);
      expect(r.events).toEqual([update(SUPPORT, { can_remove_members_group: value })]);
    });

    it('refuses a mismatching old value, even when new is the current value (scenario: old mismatch)', () => {
      const s = scenarioRealm((snap) => {
        groupsOf(snap).find((g) => g['id'] === SUPPORT)!['can_mention_group'] = 'role:everyone';
      });
      const mismatch = [
        "'old' value does not match the expected value.",
        'EXPECTATION_MISMATCH',
        { field_name: 'old' },
      ] as const;
      refused(
        patch(s, 'hamlet', SUPPORT, {
          can_mention_group: JSON.stringify({ new: MARKETING, old: G.moderators }),
        }),
        s,
        ...mismatch,
      );
      refused(
        edit(s, 'hamlet', { user_group_id: SUPPORT, can_mention_group: { new: G.everyone, old: G.members } }),
        s,
        ...mismatch,
      );
      // An int never equals an object.
      refused(
        edit(s, 'hamlet', {
          user_group_id: SUPPORT,
          can_mention_group: { new: G.members, old: { direct_members: [4], direct_subgroups: [] } },
        }),
        s,
        ...mismatch,
      );
    });

    it('compares old as sets and updates the value (scenario: old matches with set semantics)', () => {
      const s = scenarioRealm((snap) => {
        groupsOf(snap).find((g) => g['id'] === SUPPORT)!['can_mention_group'] = {
          direct_members: [cast.othello],
          direct_subgroups: [G.moderators],
        };
      });
      const r = ok(
        patch(s, 'hamlet', SUPPORT, {
          can_mention_group: JSON.stringify({
            new: { direct_members: [cast.hamlet], direct_subgroups: [MARKETING] },
            old: { direct_members: [cast.othello, cast.othello], direct_subgroups: [G.moderators] },
          }),
        }),
      );
      const value = { direct_members: [cast.hamlet], direct_subgroups: [MARKETING] };
      expect(r.state.groups.get(SUPPORT)!.can_mention_group).toEqual(value);
      expect(r.events).toEqual([update(SUPPORT, { can_mention_group: value })]);
    });

    it('compares old with the current value without deactivated members', () => {
      const s = realmWith((snap) => {
        groupsOf(snap).find((g) => g['id'] === SUPPORT)!['can_join_group'] = {
          direct_members: [4, 14],
          direct_subgroups: [],
        };
      });
      const r = ok(
        edit(s, 'desdemona', {
          user_group_id: SUPPORT,
          can_join_group: { new: G.nobody, old: { direct_members: [4], direct_subgroups: [] } },
        }),
      );
      expect(r.state.groups.get(SUPPORT)!.can_join_group).toBe(G.nobody);
      // `old` in its canonical form: {[], [X]} is X.
      ok(
        edit(s, 'desdemona', {
          user_group_id: SUPPORT,
          can_leave_group: { new: G.nobody, old: { direct_members: [], direct_subgroups: [G.everyone] } },
        }),
      );
    });

    it('treats a value equal to the current one as no change, without validating it', () => {
      // support.can_mention_group is role:members; the stored anonymous can_manage_group is {[2], []}.
      const r = ok(
        edit(state, 'desdemona', {
          user_group_id: SUPPORT,
          can_mention_group: { new: G.members },
          can_manage_group: { new: { direct_members: [2, 2], direct_subgroups: [] } },
        }),
      );
      expect(r.state).toBe(state);
      expect(r.events).toEqual([]);
    });

    it('sends one event per changed setting, in Zulip order', () => {
      const r = ok(
        edit(state, 'desdemona', {
          user_group_id: SUPPORT,
          can_remove_members_group: { new: G.admins },
          can_add_members_group: { new: G.moderators },
          can_leave_group: { new: G.members },
          name: 'helpdesk',
        }),
      );
      expect(r.events).toEqual([
        update(SUPPORT, { name: 'helpdesk' }),
        update(SUPPORT, { can_add_members_group: G.moderators }),
        update(SUPPORT, { can_leave_group: G.members }),
        update(SUPPORT, { can_remove_members_group: G.admins }),
      ]);
    });

    it('is all or nothing: a late error undoes earlier steps', () => {
      refused(
        edit(state, 'desdemona', {
          user_group_id: SUPPORT,
          name: 'helpdesk',
          description: 'changed',
          can_add_members_group: { new: G.moderators },
          can_remove_members_group: { new: G.internet },
        }),
        state,
        "'can_remove_members_group' setting cannot be set to 'role:internet' group.",
      );
      // The name is checked before the settings.
      refused(
        edit(state, 'desdemona', { user_group_id: SUPPORT, name: '', can_join_group: { new: 999 } }),
        state,
        "User group name can't be empty!",
      );
    });

    it('lets a manager give the group away and lose the right in the same request', () => {
      const r = ok(
        edit(state, 'hamlet', {
          user_group_id: BOT_WRANGLERS,
          can_manage_group: { new: G.owners },
          description: 'x',
        }),
      );
      refused(
        edit(r.state, 'hamlet', { user_group_id: BOT_WRANGLERS, description: 'y' }),
        r.state,
        'Insufficient permission',
      );
    });
  });

  describe('properties', () => {
    const names = [...USER_GROUP_SETTING_NAMES, 'user_group_id', 'name', 'description', 'deactivated'];
    const settingValue = fc.oneof(
      fc.constantFrom(
        ...Object.values(G),
        HAMLETCHARACTERS,
        LEADERSHIP,
        SUPPORT,
        OLD_TEAM,
        BOT_WRANGLERS,
        999,
      ),
      fc.record({
        direct_members: fc.array(fc.constantFrom(1, 2, 4, 10, 11, 14, 99), { maxLength: 3 }),
        direct_subgroups: fc.array(fc.constantFrom(...Object.values(G), 101, 102, 103, 104, 105, 999), {
          maxLength: 3,
        }),
      }),
    );
    const changeRequest = fc.oneof(
      fc.record({ new: settingValue }),
      fc.record({ new: settingValue, old: settingValue }),
      fc.anything(),
    );

    it('never throws; errors keep the state and send nothing (library)', () => {
      const shaped = arbParams(names, [
        changeRequest,
        fc.constantFrom(...Object.values(G), 101, 102, 103, 104, 105, 999),
        fc.boolean(),
        fc.string(),
      ]);
      fc.assert(
        fc.property(fc.constantFrom(...ACTORS), shaped, (actor, p) => {
          expectLawful(editUserGroup, state, loose(editUserGroup)(state, actor, p, testCtx()));
        }),
        { numRuns: 200 },
      );
    });

    it('never throws; errors keep the state and send nothing (wire)', () => {
      const text = fc.oneof(
        fc.string(),
        fc.json(),
        changeRequest.map((v) => JSON.stringify(v) ?? 'null'),
      );
      const params = fc.dictionary(
        fc.constantFrom(...names.filter((n) => n !== 'user_group_id'), 'extra'),
        text,
        { maxKeys: 4 },
      );
      const who = fc.constantFrom<CastName | null>(...(Object.keys(cast) as CastName[]), null);
      fc.assert(
        fc.property(who, fc.constantFrom(101, 102, 104, 105, 3, 999), params, (w, id, p) => {
          expectLawful(editUserGroup, state, patch(state, w as CastName, id, p));
        }),
        { numRuns: 150 },
      );
    });

    it('after any sequence of edits every setting value resolves and reaches no deactivated group', () => {
      const command = fc.record(
        {
          who: fc.constantFrom<CastName>('desdemona', 'iago', 'hamlet', 'defaultBot'),
          id: fc.constantFrom(101, 102, 103, 104, 105, 7),
          setting: fc.constantFrom(...USER_GROUP_SETTING_NAMES),
          request: fc.oneof(
            fc.record({ new: settingValue }),
            fc.record({ new: settingValue, old: settingValue }),
          ),
          deactivated: fc.boolean(),
          name: fc.constantFrom('a', 'b', 'leadership', 'role:x', ''),
        },
        { requiredKeys: ['who', 'id', 'setting', 'request'] },
      );
      fc.assert(
        fc.property(fc.array(command, { maxLength: 10 }), (commands) => {
          let s = state;
          for (const c of commands) {
            const params: Record<string, unknown> = { user_group_id: c.id, [c.setting]: c.request };
            if (c.deactivated !== undefined) params['deactivated'] = c.deactivated;
            if (c.name !== undefined) params['name'] = c.name;
            const r = loose(editUserGroup)(s, as(c.who), params, testCtx());
            expectLawful(editUserGroup, s, r);
            s = r.state;
            expectSettingsResolve(s);
          }
        }),
        { numRuns: 60 },
      );
    });
  });
});

/** Every id in every group-setting value exists, and no value reaches a deactivated group. */
function expectSettingsResolve(s: RealmState): void {
  const values: GroupSettingValue[] = [];
  for (const g of s.groups.values()) for (const name of USER_GROUP_SETTING_NAMES) values.push(g[name]);
  for (const value of values) {
    const roots = isAnonymousGroup(value) ? value.direct_subgroups : [value];
    if (isAnonymousGroup(value)) for (const id of value.direct_members) expect(s.users.has(id)).toBe(true);
    for (const id of reachableGroups(s, roots)) {
      const group = s.groups.get(id);
      expect(group).toBeDefined();
      expect(group!.deactivated).toBe(false);
    }
  }
}
