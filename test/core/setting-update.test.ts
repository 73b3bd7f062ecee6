/**
 * The shared group-setting change checks (`checkSettingChange`, `compareSettingChange`,
 * `validateSettingValue`) and the two operations that use them (editUserGroup, editChannel):
 * Zulip validates an anonymous value's ids in the order the request lists them
 * (`user_ids_to_users` walks the request list), while the stored value is the sorted canonical one.
 */
import { describe, expect, it } from 'vitest';
import type { GroupSettingValue } from '../../src/core/model/group-setting';
import { CHANNEL_SETTING_RULES, USER_GROUP_SETTING_RULES } from '../../src/core/permissions/setting-rules';
import {
  checkSettingChange,
  compareSettingChange,
  validateSettingValue,
} from '../../src/core/permissions/setting-update';
import { editChannel } from '../../src/ops/channels/editChannel';
import { editUserGroup } from '../../src/ops/groups/editUserGroup';
import { expectValidResponse } from '../support/openapi';
import { as, cast, devRealm, testCtx, wire } from '../support/realm';

const state = devRealm();
const VERONA = 1;
const SUPPORT = 103;
const OLD_TEAM = 104; // deactivated
const anon = (direct_members: number[], direct_subgroups: number[] = []): GroupSettingValue => ({
  direct_members,
  direct_subgroups,
});
const badRequest = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });
const rule = CHANNEL_SETTING_RULES.can_add_subscribers_group;
const validate = (value: GroupSettingValue) =>
  validateSettingValue(state, 'can_add_subscribers_group', rule, value)?.msg;

describe('validateSettingValue', () => {
  it('names the first bad member in request order, not the smallest', () => {
    expect(validate(anon([1111, cast.exEmployee]))).toBe('Invalid user ID: 1111');
    expect(validate(anon([cast.hamlet, 20, cast.exEmployee]))).toBe('Invalid user ID: 20');
    expect(validate(anon([cast.exEmployee, 20]))).toBe('Invalid user ID: 14');
    // Already-canonical (sorted) values are accepted as they are.
    expect(validate(anon([14, 20]))).toBe('Invalid user ID: 14');
    expect(validate(anon([cast.hamlet, cast.iago]))).toBeUndefined();
  });

  it('names the first bad subgroup in request order, after every member', () => {
    expect(validate(anon([cast.hamlet], [9999, 8888]))).toBe('Invalid user group ID: 9999');
    expect(validate(anon([1111], [9999]))).toBe('Invalid user ID: 1111');
    expect(validate(anon([cast.hamlet], [OLD_TEAM, 9999]))).toBe('User group is deactivated.');
  });

  it('judges {[], [X]} as the group X', () => {
    expect(validate(anon([], [9999]))).toBe('Invalid user group');
    expect(validate(anon([], [OLD_TEAM]))).toBe('User group is deactivated.');
    expect(validate(anon([], [state.systemGroups['role:everyone']]))).toBe(
      "'can_add_subscribers_group' setting cannot be set to 'role:everyone' group.",
    );
    expect(validate(anon([], []))).toBeUndefined(); // role:nobody
  });
});

describe('checkSettingChange', () => {
  const rules = USER_GROUP_SETTING_RULES.can_mention_group;
  const current = anon([cast.othello]);

  it('checks old before anything else, even when new is a no-op', () => {
    expect(
      checkSettingChange(state, 'can_mention_group', rules, current, { new: current, old: anon([4]) }),
    ).toEqual({
      kind: 'error',
      error: expect.objectContaining({ code: 'EXPECTATION_MISMATCH' }),
    });
    expect(compareSettingChange(state, current, { new: anon([1111]), old: anon([4]) }).kind).toBe('error');
  });

  it('skips a no-op before validating, and compares anonymous values as sets', () => {
    expect(
      checkSettingChange(state, 'can_mention_group', rules, anon([5, 4]), { new: anon([4, 5, 4]) }),
    ).toEqual({
      kind: 'unchanged',
    });
  });

  it('stores the canonical value and validates the requested order', () => {
    expect(checkSettingChange(state, 'can_mention_group', rules, current, { new: anon([9, 4, 9]) })).toEqual({
      kind: 'change',
      value: anon([4, 9]),
    });
    const refused = checkSettingChange(state, 'can_mention_group', rules, current, { new: anon([1111, 14]) });
    expect(refused.kind === 'error' && refused.error.msg).toBe('Invalid user ID: 1111');
  });
});

describe('the operations that change group settings', () => {
  const value = JSON.stringify({ new: anon([1111, cast.exEmployee]) });

  it('editUserGroup names the first bad member in request order', () => {
    const r = wire(state, 'desdemona', 'PATCH', `/user_groups/${SUPPORT}`, { can_mention_group: value });
    expect(r.body).toEqual(badRequest('Invalid user ID: 1111'));
    expectValidResponse('update-user-group', r.status, r.body);
    expect(r.state).toBe(state);
    expect(r.events).toEqual([]);
  });

  it('editChannel names the first bad member in request order', () => {
    const r = wire(state, 'iago', 'PATCH', `/streams/${VERONA}`, { can_add_subscribers_group: value });
    expect(r.body).toEqual(badRequest('Invalid user ID: 1111'));
    expectValidResponse('update-stream', r.status, r.body);
    expect(r.state).toBe(state);
    expect(r.events).toEqual([]);
    const lib = editChannel(
      state,
      as('iago'),
      { stream_id: VERONA, can_add_subscribers_group: { new: anon([cast.hamlet, 20, 14]) } },
      testCtx(),
    );
    expect(lib.body).toEqual(badRequest('Invalid user ID: 20'));
    expect(lib.state).toBe(state);
  });

  it('editUserGroup stores the sorted canonical value', () => {
    const r = editUserGroup(
      state,
      as('desdemona'),
      { user_group_id: SUPPORT, can_mention_group: { new: anon([cast.zoe, cast.hamlet, cast.zoe]) } },
      testCtx(),
    );
    expect(r.status).toBe(200);
    expect(r.state.groups.get(SUPPORT)?.can_mention_group).toEqual(anon([cast.hamlet, cast.zoe]));
  });
});
