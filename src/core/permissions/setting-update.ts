import { z } from 'zod';
import { errors, zulipError, type ZulipError } from '../errors';
import { isAnonymousGroup, type GroupSettingValue } from '../model/group-setting';
import { zulipIssue } from '../params';
import type { RealmState } from '../state';
import { canonicalSettingValue, settingApiValue, settingValuesEqual } from './groups';
import type { SettingRule } from './setting-rules';

/** A group-setting value on the wire: an int, or `{direct_members, direct_subgroups}`. */
const anonymousGroupSchema = z
  .object({ direct_members: z.array(z.int()), direct_subgroups: z.array(z.int()) })
  .strict();
export const groupSettingValueSchema: z.ZodType<GroupSettingValue> = z.union([z.int(), anonymousGroupSchema]);

export interface SettingChangeRequest {
  readonly new: GroupSettingValue;
  readonly old?: GroupSettingValue | undefined;
}

/**
 * The `{"new": …, "old"?: …}` change-request object of the PATCH endpoints. A bare value gets Zulip's
 * "does not have the expected format".
 */
export const settingChangeRequestSchema: z.ZodType<SettingChangeRequest> = z.unknown().transform((value, ctx) => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    zulipIssue(ctx, '{var} does not have the expected format');
    return z.NEVER;
  }
  const obj = value as Record<string, unknown>;
  if (!('new' in obj)) {
    zulipIssue(ctx, '{var}["new"] field is missing: Field required');
    return z.NEVER;
  }
  const parsedNew = groupSettingValueSchema.safeParse(obj['new']);
  if (!parsedNew.success) {
    zulipIssue(ctx, '{var}["new"] does not have the expected format');
    return z.NEVER;
  }
  if (obj['old'] === undefined || obj['old'] === null) return { new: parsedNew.data };
  const parsedOld = groupSettingValueSchema.safeParse(obj['old']);
  if (!parsedOld.success) {
    zulipIssue(ctx, '{var}["old"] does not have the expected format');
    return z.NEVER;
  }
  return { new: parsedNew.data, old: parsedOld.data };
});

export type SettingChangeCheck =
  | { readonly kind: 'error'; readonly error: ZulipError }
  | { readonly kind: 'unchanged' }
  | { readonly kind: 'change'; readonly value: GroupSettingValue };

/**
 * Zulip's checks for one group-setting change, in its order: canonicalize, check `old`, skip a
 * no-op, then validate the new value against the setting's rule.
 */
export function checkSettingChange(
  state: RealmState,
  settingName: string,
  rule: SettingRule,
  current: GroupSettingValue,
  request: SettingChangeRequest,
): SettingChangeCheck {
  const currentApi = settingApiValue(state, current);
  const next = canonicalSettingValue(state, request.new);
  if (request.old !== undefined) {
    const old = canonicalSettingValue(state, request.old);
    if (!settingValuesEqual(old, currentApi)) return { kind: 'error', error: errors.expectationMismatch() };
  }
  if (settingValuesEqual(next, currentApi)) return { kind: 'unchanged' };
  const invalid = validateSettingValue(state, settingName, rule, next);
  return invalid ? { kind: 'error', error: invalid } : { kind: 'change', value: next };
}

/** Validates a canonical new value (A.5 of the reference digest). */
export function validateSettingValue(
  state: RealmState,
  settingName: string,
  rule: SettingRule,
  value: GroupSettingValue,
): ZulipError | undefined {
  if (!isAnonymousGroup(value)) {
    const group = state.groups.get(value);
    if (group === undefined) return errors.badRequest('Invalid user group');
    if (group.deactivated) return errors.badRequest('User group is deactivated.');
    if (rule.requireSystemGroup && !group.is_system_group) return systemGroupRequired(settingName);
    if (!group.is_system_group) return undefined;
    const cannot = (name: string) => errors.badRequest(`'${settingName}' setting cannot be set to '${name}' group.`);
    if (group.name === 'role:internet' && !rule.allowInternet) return cannot(group.name);
    if (group.name === 'role:nobody' && !rule.allowNobody) return cannot(group.name);
    if (group.name === 'role:everyone' && !rule.allowEveryone) return cannot(group.name);
    if (group.name === 'role:owners' && !rule.allowOwners) return cannot(group.name);
    if (rule.allowedSystemGroups && !rule.allowedSystemGroups.includes(group.name as never)) return cannot(group.name);
    return undefined;
  }
  if (rule.requireSystemGroup) return systemGroupRequired(settingName);
  for (const id of value.direct_members) {
    if (state.users.get(id)?.is_active !== true) return errors.badRequest(`Invalid user ID: ${id}`);
  }
  for (const id of value.direct_subgroups) {
    const group = state.groups.get(id);
    if (group === undefined) return errors.badRequest(`Invalid user group ID: ${id}`);
    if (group.deactivated) return errors.badRequest('User group is deactivated.');
  }
  return undefined;
}

function systemGroupRequired(settingName: string): ZulipError {
  return zulipError(`'${settingName}' must be a system user group.`, 'SYSTEM_GROUP_REQUIRED', 400, {
    setting_name: settingName,
  });
}
