import { errors, type ZulipError } from '../../core/errors';
import { codePointLength } from '../../core/params';
import type { RealmState } from '../../core/state';
import { pythonStrip } from '../../core/text/whitespace';

/** Zulip's `NamedUserGroup.MAX_NAME_LENGTH`. */
export const USER_GROUP_NAME_MAX_LENGTH = 100;

/** Prefixes reserved for system groups and mention syntax, in the order Zulip tests them. */
export const RESERVED_GROUP_NAME_PREFIXES = ['@', 'role:', 'user:', 'stream:', 'channel:'] as const;

/**
 * Zulip's checks for a new user-group name, in its order: blank (Python's `strip`), too long (code points), a reserved
 * prefix, then uniqueness in the realm (case-sensitive, deactivated and system groups included).
 */
export function checkUserGroupName(state: RealmState, name: string): ZulipError | undefined {
  if (pythonStrip(name) === '') return errors.badRequest("User group name can't be empty!");
  if (codePointLength(name) > USER_GROUP_NAME_MAX_LENGTH)
    return errors.badRequest(`User group name cannot exceed ${USER_GROUP_NAME_MAX_LENGTH} characters.`);
  const prefix = RESERVED_GROUP_NAME_PREFIXES.find((p) => name.startsWith(p));
  if (prefix !== undefined) return errors.badRequest(`User group name cannot start with '${prefix}'.`);
  if (state.groupsByName.get(name) !== undefined)
    return errors.badRequest(`User group '${name}' already exists.`);
  return undefined;
}
