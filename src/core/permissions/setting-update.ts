import * as z from 'zod/mini';
import { errors, zulipError, type ZulipError } from '../errors';
import { isAnonymousGroup, type GroupSettingValue } from '../model/group-setting';
import { accepts, isPlainObject, zulipIssue } from '../params';
import type { RealmState } from '../state';
import { canonicalSettingValue, settingApiValue, settingValuesEqual } from './groups';
import type { SettingRule } from './setting-rules';

/** A group-setting value on the wire: an int, or `{direct_members, direct_subgroups}`. */
const anonymousGroupSchema = z.strictObject({
  direct_members: z.array(z.int()),
  direct_subgroups: z.array(z.int()),
});
export const groupSettingValueSchema: z.ZodMiniType<GroupSettingValue> = z.union([
  z.int(),
  anonymousGroupSchema,
]);

export interface SettingChangeRequest {
  readonly new: GroupSettingValue;
  readonly old?: GroupSettingValue | undefined;
}

/**
 * The `{"new": …, "old"?: …}` change-request object of the PATCH endpoints. A bare value gets Zulip's
 * "does not have the expected format".
 */
export const settingChangeRequestSchema = accepts<SettingChangeRequest>()(
  z.pipe(
    z.unknown(),
    z.transform((value, ctx) => {
      if (!isPlainObject(value)) {
        zulipIssue(ctx, '{var} does not have the expected format');
        return z.NEVER;
      }
      if (!('new' in value)) {
        zulipIssue(ctx, '{var}["new"] field is missing: Field required');
        return z.NEVER;
      }
      const parsedNew = groupSettingValueSchema.safeParse(value['new']);
      if (!parsedNew.success) {
        zulipIssue(ctx, '{var}["new"] does not have the expected format');
        return z.NEVER;
      }
      if (value['old'] === undefined || value['old'] === null) return { new: parsedNew.data };
      const parsedOld = groupSettingValueSchema.safeParse(value['old']);
      if (!parsedOld.success) {
        zulipIssue(ctx, '{var}["old"] does not have the expected format');
        return z.NEVER;
      }
      return { new: parsedNew.data, old: parsedOld.data };
    }),
  ),
);

export type SettingChangeCheck =
  | { readonly kind: 'error'; readonly error: ZulipError }
  | { readonly kind: 'unchanged' }
  | { readonly kind: 'change'; readonly value: GroupSettingValue };

/**
 * Zulip's checks for one group-setting change, in its order: canonicalize, check `old`, skip a
 * no-op, then validate the new value against the setting's rule. A `change` carries the canonical
 * value to store.
 */
export function checkSettingChange(
  state: RealmState,
  settingName: string,
  rule: SettingRule,
  current: GroupSettingValue,
  request: SettingChangeRequest,
): SettingChangeCheck {
  const compared = compareSettingChange(state, current, request);
  if (compared.kind !== 'change') return compared;
  const invalid = validateSettingValue(state, settingName, rule, request.new);
  return invalid ? { kind: 'error', error: invalid } : compared;
}

/**
 * The steps before validation, for callers that check more in between (editChannel): canonicalize
 * `new`, compare `old` with the current API value (EXPECTATION_MISMATCH even when `new` is a no-op),
 * then `unchanged` when `new` equals the current value.
 */
export function compareSettingChange(
  state: RealmState,
  current: GroupSettingValue,
  request: SettingChangeRequest,
): SettingChangeCheck {
  const currentApi = settingApiValue(state, current);
  if (request.old !== undefined && !settingValuesEqual(canonicalSettingValue(state, request.old), currentApi))
    return { kind: 'error', error: errors.expectationMismatch() };
  const next = canonicalSettingValue(state, request.new);
  if (settingValuesEqual(next, currentApi)) return { kind: 'unchanged' };
  return { kind: 'change', value: next };
}

/**
 * Validates a requested new value (A.5 of the reference digest). The value is judged in its canonical
 * form (`{[], [X]}` is the group X), but an anonymous group's ids are checked in the order the request
 * lists them, so the error names the first bad id as Zulip does (`Invalid user ID: 1111` for
 * `[1111, 6]`). A value that is already canonical is accepted too.
 */
export function validateSettingValue(
  state: RealmState,
  settingName: string,
  rule: SettingRule,
  requested: GroupSettingValue,
): ZulipError | undefined {
  const value = canonicalSettingValue(state, requested);
  if (!isAnonymousGroup(value)) return validateGroupId(state, settingName, rule, value);
  if (rule.requireSystemGroup) return systemGroupRequired(settingName);
  // The canonical value is an object only when the requested one is; its lists are sorted and deduplicated.
  const inRequestOrder = isAnonymousGroup(requested) ? requested : value;
  for (const id of inRequestOrder.direct_members) {
    if (state.users.get(id)?.is_active !== true) return errors.badRequest(`Invalid user ID: ${id}`);
  }
  for (const id of inRequestOrder.direct_subgroups) {
    const group = state.groups.get(id);
    if (group === undefined) return errors.badRequest(`Invalid user group ID: ${id}`);
    if (group.deactivated) return errors.badRequest('User group is deactivated.');
  }
  return undefined;
}

/** A group id: a live named group of the realm, then the setting's own constraints on system groups. */
function validateGroupId(
  state: RealmState,
  settingName: string,
  rule: SettingRule,
  id: number,
): ZulipError | undefined {
  const group = state.groups.get(id);
  if (group === undefined) return errors.badRequest('Invalid user group');
  if (group.deactivated) return errors.badRequest('User group is deactivated.');
  if (rule.requireSystemGroup && !group.is_system_group) return systemGroupRequired(settingName);
  if (!group.is_system_group) return undefined;
  const cannot = (name: string) =>
    errors.badRequest(`'${settingName}' setting cannot be set to '${name}' group.`);
  if (group.name === 'role:internet' && !rule.allowInternet) return cannot(group.name);
  if (group.name === 'role:nobody' && !rule.allowNobody) return cannot(group.name);
  if (group.name === 'role:everyone' && !rule.allowEveryone) return cannot(group.name);
  if (group.name === 'role:owners' && !rule.allowOwners) return cannot(group.name);
  if (rule.allowedSystemGroups && !rule.allowedSystemGroups.includes(group.name as never))
    return cannot(group.name);
  return undefined;
}

function systemGroupRequired(settingName: string): ZulipError {
  return zulipError(`'${settingName}' must be a system user group.`, 'SYSTEM_GROUP_REQUIRED', 400, {
    setting_name: settingName,
  });
}
