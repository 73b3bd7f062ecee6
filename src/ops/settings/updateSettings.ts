import { errors, zulipError, type ZulipError } from '../../core/errors';
import { to, type AddressedEvent } from '../../core/events';
import type { Effect } from '../../core/effects';
import type { User } from '../../core/model/records';
import {
  USER_SETTING_DEFAULTS,
  type UserSettingName,
  type UserSettings,
} from '../../core/model/user-settings';
import { defineOperation } from '../../core/operation';
import { declareParams } from '../../core/params';
import { settingValueMembers } from '../../core/permissions/groups';
import { isRealmAdmin } from '../../core/permissions/roles';
import { edit, failure, success, type OpResult } from '../../core/result';
import { putUser } from '../../core/state-edit';
import type { RealmState } from '../../core/state';
import { checkEmailChange, checkFullName, checkPasswordChange } from './account-checks';
import {
  changeTimezone,
  lazyAccessIds,
  markEdited,
  settingEvent,
  settingSideEffects,
  withSetting,
  type ChangeContext,
} from './apply-settings';
import { isAvailableLanguage, isNotificationSound } from './languages';
import {
  SECURITY_SENSITIVE_SETTINGS,
  SETTING_ORDER,
  settingsParams,
  storedValue,
  type TargetUsers,
} from './setting-params';

type Params = Partial<Record<UserSettingName, unknown>> & {
  email?: string;
  full_name?: string;
  new_password?: string;
  old_password?: string;
  target_users?: TargetUsers;
  timezone?: string;
};

/** What the library accepts: any settings (decoded values), the account fields, `target_users`. */
type SettingsInput = Partial<UserSettings> & {
  readonly email?: string;
  readonly full_name?: string;
  readonly new_password?: string;
  readonly old_password?: string;
  readonly target_users?: {
    readonly user_ids?: readonly number[];
    readonly group_ids?: readonly number[];
    readonly skip_if_already_edited: boolean;
  };
  readonly timezone?: string;
};

/** One week: Zulip's limit for the email batching period. */
const MAX_BATCHING_PERIOD = 7 * 24 * 60 * 60;

/**
 * PATCH /api/v1/settings — https://zulip.com/api/update-settings
 *
 * Changes the caller's settings, password, email (by starting a confirmation) and full name, or,
 * with `target_users`, an administrator's bulk change of other users' settings (FL 444).
 *
 * Differs from Zulip:
 * - Zulip commits each step on its own (password, email, name, each setting, time zone), so a late
 *   error leaves earlier steps applied. Here every step is checked first, in Zulip's order, and the
 *   request is applied all or nothing.
 * - The legacy `update_display_settings` / `update_global_notifications` events are not sent:
 *   Zulip sends them only to clients without the `user_settings_object` capability.
 * - Not modelled: LDAP-managed passwords, login and email-change rate limits, disposable or
 *   domain-restricted addresses, queued digest/notification emails and presence.
 * See docs/differences/settings.md.
 *
 * @example
 * ```ts
 * const r = updateSettings(realm, { userId: 4 }, { twenty_four_hour_time: true, timezone: 'Asia/Kolkata' }, { now });
 * expect(r.status).toBe(200);
 * expect(r.events.map((e) => e.event['type'])).toContain('user_settings');
 * ```
 */
export const updateSettings = defineOperation({
  name: 'updateSettings',
  method: 'PATCH',
  path: '/settings',
  operationId: 'update-settings',
  // `@human_users_only` runs before the parameters are parsed.
  guard: (_state, user) => (user.is_bot ? errors.notForBots() : undefined),
  params: declareParams<SettingsInput, Params>(settingsParams(USER_SETTING_DEFAULTS)),
  handler: ({ state, user, params, ctx, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    // Zulip collects every given setting, in declaration order, before branching.
    const requested = SETTING_ORDER.filter((name) => params[name] !== undefined).map(
      (name) => [name, storedValue(name, params[name])] as const,
    );
    if (params.target_users !== undefined)
      return bulkEdit(state, user, params, params.target_users, requested, ignored);

    const invalid = checkSettingValues(params);
    if (invalid) return failure(state, invalid);
    const password = checkPasswordChange(state, user, params.old_password, params.new_password, ctx);
    if (isError(password)) return failure(state, password);
    const email = checkEmailChange(state, user, params.email);
    if (isError(email)) return failure(state, email);
    const fullName = checkFullName(state, user, params.full_name);
    if (isError(fullName)) return failure(state, fullName);

    const changes = requested.filter(([name, value]) => differs(user.settings, name, value));
    const timezone =
      params.timezone !== undefined && params.timezone !== user.timezone ? params.timezone : undefined;
    if (!password && !email && !fullName && changes.length === 0 && timezone === undefined) {
      return success(state, { ignored });
    }

    const cc: ChangeContext = { before: state, accessIds: lazyAccessIds(state, user), events: [] };
    const effects: Effect[] = [];
    const next = edit(state, (draft) => {
      let current = user;
      if (password) current = Object.freeze({ ...current, password_hash: password.hash });
      if (email) {
        // A new request replaces the user's earlier pending change (Zulip revokes older links).
        const pending = Object.freeze({
          user_id: user.user_id,
          new_email: email.newEmail,
          requested_at: Math.floor(ctx.now),
        });
        draft.pendingEmailChanges = draft.pendingEmailChanges.set(user.user_id, pending);
        effects.push({
          type: 'send_email_change_confirmation',
          user_id: user.user_id,
          old_email: user.delivery_email,
          new_email: email.newEmail,
          realm_name: state.realm.name,
        });
      }
      if (fullName) {
        current = Object.freeze({ ...current, full_name: fullName.name });
        cc.events.push(
          to(cc.accessIds(), {
            type: 'realm_user',
            op: 'update',
            person: { user_id: user.user_id, full_name: fullName.name },
          }),
        );
      }
      for (const [name, value] of changes) {
        const old = current.settings[name];
        current = markEdited(withSetting(current, name, value as UserSettings[typeof name]), name);
        cc.events.push(to([user.user_id], settingEvent(name, value)));
        current = settingSideEffects(draft, cc, current, name, old);
      }
      if (timezone !== undefined) current = changeTimezone(cc, current, timezone);
      putUser(draft, current);
    });
    return success(next, { ignored, events: cc.events, effects });
  },
});

function isError<T extends object>(value: T | ZulipError | undefined): value is ZulipError {
  return value !== undefined && 'code' in value && 'status' in value;
}

/**
 * Whether a requested value differs from the stored one. Zulip compares the stored integer of
 * `resolved_topic_notice_auto_read_policy` with the parsed enum member, which never compare equal:
 * that setting is always rewritten and re-announced.
 */
function differs(settings: UserSettings, name: UserSettingName, value: unknown): boolean {
  return name === 'resolved_topic_notice_auto_read_policy' || settings[name] !== value;
}

/** `check_settings_values`: language, then sound, then batching period (own settings only). */
function checkSettingValues(params: Params): ZulipError | undefined {
  const language = params.default_language;
  if (typeof language === 'string' && !isAvailableLanguage(language))
    return zulipError('Invalid default_language');
  const sound = params.notification_sound;
  if (typeof sound === 'string' && !isNotificationSound(sound))
    return zulipError(`Invalid notification sound '${sound}'`);
  const period = params.email_notifications_batching_period_seconds;
  if (typeof period === 'number' && (period <= 0 || period > MAX_BATCHING_PERIOD)) {
    return zulipError(`Invalid email batching period: ${period} seconds`);
  }
  return undefined;
}

/**
 * The administrator's bulk edit. It answers before the own-settings checks run, so the language,
 * sound and batching period are not validated and `full_name` / `old_password` are read but unused.
 */
function bulkEdit(
  state: RealmState,
  admin: User,
  params: Params,
  target: TargetUsers,
  requested: ReadonlyArray<readonly [UserSettingName, unknown]>,
  ignored: readonly string[],
): OpResult {
  if (!isRealmAdmin(admin)) return failure(state, errors.mustBeAdmin());
  const cannot = zulipError('Cannot change this setting for other users.');
  if (params.email !== undefined || params.new_password !== undefined || params.timezone !== undefined)
    return failure(state, cannot);
  if (requested.some(([name]) => SECURITY_SENSITIVE_SETTINGS.has(name))) return failure(state, cannot);

  const targets = resolveTargets(state, target);
  if (!Array.isArray(targets)) return failure(state, targets);

  const events: AddressedEvent[] = [];
  const cc: ChangeContext = { before: state, accessIds: () => [], events };
  const users = new Map(targets.map((u) => [u.user_id, u]));
  const next = edit(state, (draft) => {
    for (const [name, value] of requested) {
      // Zulip skips users with an audit row of their own change (acting user = modified user).
      const eligible = [...users.values()].filter(
        (u) =>
          !(target.skip_if_already_edited && u.settings_edited_by_user.includes(name)) &&
          differs(u.settings, name, value),
      );
      if (eligible.length === 0) continue;
      events.push(
        to(
          eligible.map((u) => u.user_id),
          settingEvent(name, value),
        ),
      );
      for (const user of eligible) {
        let changed = withSetting(user, name, value as UserSettings[typeof name]);
        // The administrator's own row counts as a self-edit, as Zulip's audit log would record it.
        if (user.user_id === admin.user_id) changed = markEdited(changed, name);
        users.set(user.user_id, settingSideEffects(draft, cc, changed, name, user.settings[name]));
      }
    }
    for (const user of users.values()) if (user !== state.users.get(user.user_id)) putUser(draft, user);
  });
  return success(next, { ignored, events });
}

/**
 * `user_ids` plus the recursive active members of `group_ids`; deactivated users named directly
 * are included, bots are left out silently. Unknown ids fail with the first one in request order.
 */
function resolveTargets(state: RealmState, target: TargetUsers): User[] | ZulipError {
  const ids = new Set<number>();
  for (const groupId of target.group_ids) {
    if (!state.groups.has(groupId)) return zulipError(`Invalid user group ID: ${groupId}`);
  }
  for (const groupId of target.group_ids) for (const id of settingValueMembers(state, groupId)) ids.add(id);
  for (const id of target.user_ids) {
    if (!state.users.has(id)) return zulipError(`Invalid user ID: ${id}`);
    ids.add(id);
  }
  const users: User[] = [];
  for (const id of [...ids].sort((a, b) => a - b)) {
    const user = state.users.get(id);
    if (user !== undefined && !user.is_bot) users.push(user);
  }
  return users;
}
