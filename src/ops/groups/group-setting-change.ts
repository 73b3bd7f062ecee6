import { errors } from '../../core/errors';
import { isAnonymousGroup } from '../../core/model/group-setting';
import { canonicalSettingValue, settingApiValue, settingValuesEqual } from '../../core/permissions/groups';
import type { SettingRule } from '../../core/permissions/setting-rules';
import {
  validateSettingValue,
  type SettingChangeCheck,
  type SettingChangeRequest,
} from '../../core/permissions/setting-update';
import type { RealmState } from '../../core/state';

/**
 * `checkSettingChange` (canonicalize, `old`, no-op, validate) with one refinement: an anonymous value
 * is validated in the order the request lists its ids, so the first bad id Zulip names is the one we
 * name (`Invalid user ID: 1111` for `[1111, 6]`); the stored value is the canonical, sorted one.
 */
export function checkGroupSettingChange(
  state: RealmState,
  settingName: string,
  rule: SettingRule,
  current: Parameters<typeof settingApiValue>[1],
  request: SettingChangeRequest,
): SettingChangeCheck {
  const currentApi = settingApiValue(state, current);
  const next = canonicalSettingValue(state, request.new);
  if (request.old !== undefined && !settingValuesEqual(canonicalSettingValue(state, request.old), currentApi))
    return { kind: 'error', error: errors.expectationMismatch() };
  if (settingValuesEqual(next, currentApi)) return { kind: 'unchanged' };
  const asRequested = isAnonymousGroup(next) && isAnonymousGroup(request.new) ? request.new : next;
  const invalid = validateSettingValue(state, settingName, rule, asRequested);
  return invalid ? { kind: 'error', error: invalid } : { kind: 'change', value: next };
}
