import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GroupSettingValue } from '../../src/core/model/group-setting';
import { settingApiValue } from '../../src/core/permissions/groups';
import type { RealmState } from '../../src/core/state';
import { editUserGroup } from '../../src/ops/index';
import { cast, devRealm, testCtx } from '../support/realm';
import { fcParams } from './runs';
import { loose } from '../support/loose';

/**
 * Model-based sequences over user groups (PATCH /user_groups/{id}): renames, descriptions,
 * reactivation and group settings (who manages, who may mention, who may leave), by an owner, an
 * admin, a member and a guest, checked after every step against a simple model: each group's
 * name, description, deactivation and canonical setting values, and a permission rule written from
 * the digest (§5): owners manage every group; others need to be in `can_manage_group`; guests never.
 */
const initial = devRealm();
const S = initial.systemGroups;
const GROUP_IDS = [101, 104] as const;
const SETTINGS = ['can_manage_group', 'can_mention_group', 'can_leave_group'] as const;
type Setting = (typeof SETTINGS)[number];

interface GroupModel {
  name: string;
  description: string;
  deactivated: boolean;
  settings: Record<Setting, GroupSettingValue>;
}
type Model = Map<number, GroupModel>;
interface Real {
  state: RealmState;
}

function modelOf(state: RealmState): Model {
  const out: Model = new Map();
  for (const id of GROUP_IDS) {
    const g = state.groups.get(id)!;
    out.set(id, {
      name: g.name,
      description: g.description,
      deactivated: g.deactivated,
      settings: Object.fromEntries(SETTINGS.map((s) => [s, settingApiValue(state, g[s])])) as Record<
        Setting,
        GroupSettingValue
      >,
    });
  }
  return out;
}

/** The digest's canonical form (§A.5): {[], [X]} is X, {[], []} is nobody; lists as sets. */
function canonical(v: GroupSettingValue): GroupSettingValue {
  if (typeof v === 'number') return v;
  if (v.direct_members.length === 0 && v.direct_subgroups.length === 1) return v.direct_subgroups[0]!;
  if (v.direct_members.length === 0 && v.direct_subgroups.length === 0) return S['role:nobody'];
  return {
    direct_members: [...new Set(v.direct_members)].sort((a, b) => a - b),
    direct_subgroups: [...new Set(v.direct_subgroups)].sort((a, b) => a - b),
  };
}
const same = (a: GroupSettingValue, b: GroupSettingValue) =>
  JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));

/** System groups each cast member belongs to (roles, §A.4). */
const SYSTEM_MEMBERS: Record<number, readonly number[]> = {
  [S['role:owners']]: [cast.desdemona],
  [S['role:administrators']]: [cast.desdemona, cast.iago],
  [S['role:members']]: [cast.desdemona, cast.iago, cast.hamlet, cast.cordelia],
  // Named groups of the fixture: support (othello, and leadership = desdemona, iago); old team.
  103: [cast.othello, cast.desdemona, cast.iago],
  104: [cast.prospero],
};
function holds(value: GroupSettingValue, userId: number): boolean {
  if (typeof value === 'number') return (SYSTEM_MEMBERS[value] ?? []).includes(userId);
  return value.direct_members.includes(userId) || value.direct_subgroups.some((g) => holds(g, userId));
}

/** Which values a setting refuses (§5.10 table, §A.5 validation). */
function refusedValue(model: Model, setting: Setting, v: GroupSettingValue): boolean {
  if (typeof v !== 'number') return false;
  if (v === S['role:internet']) return true;
  if (model.get(v)?.deactivated === true) return true; // 'User group is deactivated.'
  if (v === S['role:everyone'] && setting === 'can_manage_group') return true;
  return false;
}

const VALUES: readonly GroupSettingValue[] = [
  S['role:nobody'],
  S['role:administrators'],
  S['role:members'],
  S['role:everyone'],
  S['role:internet'],
  103,
  104,
  { direct_members: [cast.iago], direct_subgroups: [] },
  { direct_members: [cast.cordelia, cast.hamlet], direct_subgroups: [] },
  { direct_members: [], direct_subgroups: [S['role:administrators']] },
  { direct_members: [], direct_subgroups: [] },
  { direct_members: [cast.cordelia], direct_subgroups: [S['role:owners']] },
];
const NAMES = [
  'renamed',
  'leadership',
  'support',
  '',
  '   ',
  'x'.repeat(101),
  '@here',
  'role:x',
  'channel:y',
  'Hamletcharacters',
  'hamletcharacters',
];
const FIXED_NAMES = new Set(
  [...initial.groups.values()]
    .filter((g) => !(GROUP_IDS as readonly number[]).includes(g.id))
    .map((g) => g.name),
);

type Change =
  | { kind: 'name'; value: string }
  | { kind: 'description'; value: string }
  | { kind: 'reactivate' }
  | { kind: 'setting'; setting: Setting; value: GroupSettingValue; old: 'none' | 'right' | 'wrong' };

class Edit implements fc.Command<Model, Real> {
  constructor(
    readonly actorId: number,
    readonly groupId: number,
    readonly changes: readonly Change[],
  ) {}
  check = () => true;
  run(model: Model, real: Real): void {
    const before = real.state;
    const group = model.get(this.groupId)!;
    const params: Record<string, unknown> = { user_group_id: this.groupId };
    for (const c of this.changes) {
      if (c.kind === 'name') params['name'] = c.value;
      else if (c.kind === 'description') params['description'] = c.value;
      else if (c.kind === 'reactivate') params['deactivated'] = false;
      else {
        const current = group.settings[c.setting];
        const old =
          c.old === 'right'
            ? current
            : c.old === 'wrong'
              ? same(current, S['role:moderators'])
                ? S['role:nobody']
                : S['role:moderators']
              : undefined;
        params[c.setting] = old === undefined ? { new: c.value } : { new: c.value, old };
      }
    }
    const r = loose(editUserGroup)(before, { userId: this.actorId }, params, testCtx());

    // The model's answer, in the digest's order.
    const expected = structuredClone(group);
    let ok =
      this.actorId !== cast.polonius &&
      (this.actorId === cast.desdemona || holds(group.settings.can_manage_group, this.actorId));
    // Zulip's order (§5): name, description, reactivation, then the settings in their order.
    const rank = (c: Change) =>
      c.kind === 'name'
        ? 0
        : c.kind === 'description'
          ? 1
          : c.kind === 'reactivate'
            ? 2
            : 3 + ['can_leave_group', 'can_manage_group', 'can_mention_group'].indexOf(c.setting);
    const ordered = [...this.changes].sort((a, b) => rank(a) - rank(b));
    for (const c of ordered) {
      if (!ok) break;
      if (c.kind === 'name') {
        if (c.value === expected.name) continue;
        const taken =
          FIXED_NAMES.has(c.value) || [...model].some(([id, g]) => id !== this.groupId && g.name === c.value);
        if (
          c.value.trim() === '' ||
          [...c.value].length > 100 ||
          /^(@|role:|user:|stream:|channel:)/.test(c.value) ||
          taken
        )
          ok = false;
        else expected.name = c.value;
      } else if (c.kind === 'description') expected.description = c.value;
      else if (c.kind === 'reactivate') expected.deactivated = false;
      else {
        const current = expected.settings[c.setting];
        if (c.old === 'wrong') ok = false;
        else if (same(c.value, current)) continue;
        else if (refusedValue(new Map([...model, [this.groupId, expected]]), c.setting, c.value)) ok = false;
        else expected.settings[c.setting] = canonical(c.value);
      }
    }

    expect(r.body.result, `${this.toString()}: ${JSON.stringify(r.body)}`).toBe(ok ? 'success' : 'error');
    if (ok) model.set(this.groupId, expected);
    else {
      expect(r.state).toBe(before);
      expect(r.events).toEqual([]);
    }
    real.state = r.state;
    expect(modelOf(real.state)).toEqual(model);
  }
  toString = () => `Edit(${this.actorId}, ${this.groupId}, ${JSON.stringify(this.changes)})`;
}

const change: fc.Arbitrary<Change> = fc.oneof(
  fc.constantFrom(...NAMES).map((value): Change => ({ kind: 'name', value })),
  fc
    .constantFrom('New words', '', 'A **bold** group')
    .map((value): Change => ({ kind: 'description', value })),
  fc.constant<Change>({ kind: 'reactivate' }),
  fc
    .tuple(
      fc.constantFrom(...SETTINGS),
      fc.constantFrom(...VALUES),
      fc.constantFrom('none' as const, 'right' as const, 'wrong' as const),
    )
    .map(([setting, value, old]): Change => ({ kind: 'setting', setting, value, old })),
);
const uniqueKinds = (cs: Change[]) => {
  const seen = new Set<string>();
  return cs.filter((c) => {
    const k = c.kind === 'setting' ? c.setting : c.kind;
    return seen.has(k) ? false : (seen.add(k), true);
  });
};

const commands = [
  fc
    .tuple(
      fc.constantFrom(cast.desdemona, cast.desdemona, cast.iago, cast.cordelia, cast.polonius),
      fc.constantFrom(...GROUP_IDS),
      fc.array(change, { minLength: 1, maxLength: 3 }).map(uniqueKinds),
    )
    .map(([a, g, cs]) => new Edit(a, g, cs)),
];

describe('model: user groups', () => {
  it('renames, settings and reactivation follow the model, all or nothing', () => {
    fc.assert(
      fc.property(fc.commands(commands, { maxCommands: 20 }), (cmds) => {
        fc.modelRun(() => ({ model: modelOf(initial), real: { state: initial } }), cmds);
      }),
      fcParams(100),
    );
  });
});
