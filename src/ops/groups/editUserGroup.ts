import { castDraft, type Draft } from 'immer';
import * as z from 'zod/mini';
import { errors, type ZulipError } from '../../core/errors';
import { to, type AddressedEvent } from '../../core/events';
import type { GroupSettingValue } from '../../core/model/group-setting';
import {
  USER_GROUP_SETTING_NAMES,
  type User,
  type UserGroup,
  type UserGroupSettingName,
} from '../../core/model/records';
import { defineOperation } from '../../core/operation';
import { param, rawParam } from '../../core/params';
import { isGuest } from '../../core/permissions/roles';
import {
  hasPermission,
  hasRealmPermission,
  USER_GROUP_SETTING_RULES,
} from '../../core/permissions/setting-rules';
import {
  checkSettingChange,
  settingChangeRequestSchema,
  type SettingChangeRequest,
} from '../../core/permissions/setting-update';
import { edit, editRecord, failure, success } from '../../core/result';
import type { RealmState } from '../../core/state';
import { putGroup } from '../../core/state-edit';
import { activeUserIds } from '../../core/users/realm-users';
import { groupForApi } from '../../core/register/group-dict';
import { checkUserGroupName } from './group-name';

type Params = { user_group_id: number; deactivated?: boolean; description?: string; name?: string } & {
  [K in UserGroupSettingName]?: SettingChangeRequest;
};

/** Feature level from which bots may call this endpoint (the seed's changelog). */
export const BOTS_MAY_EDIT_GROUPS_FEATURE_LEVEL = 496;

/**
 * PATCH /api/v1/user_groups/{user_group_id} — https://zulip.com/api/update-user-group
 *
 * Differences from Zulip:
 * - No audit-log rows (the realm state keeps none).
 * - Zulip runs the steps (name, description, reactivation, each setting) one after another inside one
 *   transaction; we do the same on a working copy and return the untouched state on any error.
 * - Bots: refused before feature level 496, allowed from it (`state.server.feature_level`).
 *
 * @example
 * ```ts
 * const r = editUserGroup(realm, { userId: 2 }, { user_group_id: 101, description: 'The cast of Hamlet' }, { now });
 * expect(r.status).toBe(200);
 * expect(r.state.groups.get(101)?.description).toBe('The cast of Hamlet');
 * ```
 */
export const editUserGroup = defineOperation({
  name: 'editUserGroup',
  method: 'PATCH',
  path: '/user_groups/{user_group_id}',
  operationId: 'update-user-group',
  pathParams: ['user_group_id'],
  // Zulip's decorators, before any parameter is parsed: guests first, then bots (until FL 496).
  guard: (state, user) => {
    if (isGuest(user)) return errors.notForGuests();
    if (user.is_bot && state.server.feature_level < BOTS_MAY_EDIT_GROUPS_FEATURE_LEVEL)
      return errors.notForBots();
    return undefined;
  },
  // The view's keyword parameters are alphabetical: that order decides which parse error wins.
  params: [
    param('user_group_id', z.int(), { required: true }),
    ...USER_GROUP_SETTING_NAMES.map((name) => param(name, settingChangeRequestSchema)),
    param('deactivated', z.boolean()),
    rawParam('description'),
    rawParam('name'),
  ],
  handler: ({ state, user, params, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    const given = USER_GROUP_SETTING_NAMES.some((s) => params[s] !== undefined);
    if (
      !given &&
      params.name === undefined &&
      params.description === undefined &&
      params.deactivated === undefined
    )
      return failure(state, errors.badRequest('No new data supplied'));

    const group = state.groups.get(params.user_group_id);
    if (group === undefined) return failure(state, errors.badRequest('Invalid user group'));
    if (group.is_system_group || !mayManage(state, user, group))
      return failure(state, errors.insufficientPermission());

    const applied = applyChanges(state, group.id, params);
    if ('code' in applied) return failure(state, applied);
    const audience = activeUserIds(state);
    return success(applied.state, {
      ignored,
      events: applied.events.map((event) => to(audience, event)),
    });
  },
});

/** `can_manage_all_groups` of the realm, else the group's own `can_manage_group` (admins get no implicit right). */
function mayManage(state: RealmState, user: User, group: UserGroup): boolean {
  return (
    hasRealmPermission(state, user, 'can_manage_all_groups') ||
    hasPermission(state, user, USER_GROUP_SETTING_RULES.can_manage_group, group.can_manage_group)
  );
}

type Event = AddressedEvent['event'];

/**
 * Runs Zulip's steps in its order on a working state, each step seeing the previous ones (a
 * reactivated group may then be named in a setting of the same request). The first error wins.
 */
function applyChanges(
  state: RealmState,
  groupId: number,
  params: Params,
): { state: RealmState; events: Event[] } | ZulipError {
  let current = state;
  const events: Event[] = [];
  const group = () => current.groups.get(groupId)!;
  const update = (recipe: (g: Draft<UserGroup>) => void) => {
    const next = editRecord(group(), recipe);
    current = edit(current, (draft) => putGroup(draft, next));
  };
  const updateEvent = (data: Record<string, string | boolean | GroupSettingValue>): Event => ({
    type: 'user_group',
    op: 'update',
    group_id: groupId,
    data,
  });

  if (params.name !== undefined && params.name !== group().name) {
    const refused = checkUserGroupName(current, params.name);
    if (refused) return refused;
    const name = params.name;
    update((g) => {
      g.name = name;
    });
    events.push(updateEvent({ name }));
  }
  if (params.description !== undefined && params.description !== group().description) {
    const description = params.description;
    update((g) => {
      g.description = description;
    });
    events.push(updateEvent({ description }));
  }
  // `deactivated=true` is ignored (deactivation has its own endpoint); false on an active group is a no-op.
  if (params.deactivated === false && group().deactivated) {
    update((g) => {
      g.deactivated = false;
    });
    events.push(updateEvent({ deactivated: false }));
    events.push({
      type: 'user_group',
      op: 'add',
      group: groupForApi(current, group()),
      for_reactivation: true,
    });
  }
  for (const setting of USER_GROUP_SETTING_NAMES) {
    const request = params[setting];
    if (request === undefined) continue;
    const check = checkSettingChange(
      current,
      setting,
      USER_GROUP_SETTING_RULES[setting],
      group()[setting],
      request,
    );
    switch (check.kind) {
      case 'error':
        return check.error;
      case 'unchanged':
        continue;
      case 'change': {
        const value = check.value;
        update((g) => {
          g[setting] = castDraft(value);
        });
        events.push(updateEvent({ [setting]: value }));
        break;
      }
      default: {
        const never: never = check;
        return never;
      }
    }
  }
  return { state: current, events };
}
