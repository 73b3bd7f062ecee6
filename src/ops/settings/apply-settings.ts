import type { Draft } from 'immer';
import { to, type AddressedEvent } from '../../core/events';
import type { User } from '../../core/model/records';
import type { UserSettingName, UserSettings } from '../../core/model/user-settings';
import { userIdsWhoCanAccess } from '../../core/permissions/user-access';
import type { RealmState } from '../../core/state';
import { avatarUrl, canSeeDeliveryEmail, fakeEmailDomain, mediumAvatarUrl } from '../../core/users/format';
import { humanAdminIds } from '../../core/users/realm-users';
import { canonicalizeTimezone } from '../../core/users/timezones';
import { languageName } from './languages';

/**
 * Zulip's `do_change_user_setting` for the engine's state: store the value, remember who changed
 * it, and collect the events and side effects, in Zulip's order (the `user_settings` event first).
 * Functions here run inside `edit()`; the events they return are sent after the change, as Zulip's
 * `send_event_on_commit` does.
 */

export interface ChangeContext {
  /** The state before the request: who can see whom does not depend on settings. */
  readonly before: RealmState;
  /** Active users who can access the changed user (recipients of `realm_user` updates), computed once when needed. */
  readonly accessIds: () => readonly number[];
  readonly events: AddressedEvent[];
}

/** A setting's value in events: the stored value, with the language's name for `default_language`. */
export function settingEvent(name: UserSettingName | 'timezone', value: unknown): AddressedEvent['event'] {
  const base = { type: 'user_settings' as const, op: 'update' as const, property: name, value };
  return name === 'default_language' && typeof value === 'string'
    ? { ...base, language_name: languageName(value) }
    : base;
}

/** Records a user's own change in `settings_edited_by_user` (what `skip_if_already_edited` reads). */
export function markEdited(user: User, name: string): User {
  if (user.settings_edited_by_user.includes(name)) return user;
  return Object.freeze({
    ...user,
    settings_edited_by_user: Object.freeze([...user.settings_edited_by_user, name].sort()),
  });
}

export function withSetting(user: User, name: UserSettingName, value: UserSettings[UserSettingName]): User {
  return Object.freeze({ ...user, settings: Object.freeze({ ...user.settings, [name]: value }) });
}

/**
 * Side effects of one changed setting for one user (the `user_settings` event is sent by the
 * caller). Returns the user record, which changes only for `email_address_visibility`.
 */
export function settingSideEffects(
  draft: Draft<RealmState>,
  cc: ChangeContext,
  user: User,
  name: UserSettingName,
  oldValue: unknown,
): User {
  const value = user.settings[name];
  switch (name) {
    case 'enable_drafts_synchronization':
      // Turning synchronization off deletes the server's drafts; Zulip sends no drafts events.
      if (value === false) {
        for (const d of cc.before.drafts.values())
          if (d.user_id === user.user_id) draft.drafts = draft.drafts.delete(d.id);
      }
      return user;
    case 'allow_private_data_export':
      cc.events.push(
        to(humanAdminIds(cc.before), {
          type: 'realm_export_consent',
          user_id: user.user_id,
          consented: value === true,
        }),
      );
      return user;
    case 'email_address_visibility':
      return emailVisibilityChanged(cc, user, Number(oldValue), Number(value));
    default:
      return user;
  }
}

/**
 * Zulip's `send_delivery_email_update_events`, then, when "everyone" (1) is the old or the new
 * value, the switch of the public `email` between the real and the fake address, announced with
 * `new_email` and avatar updates (clients with `client_gravatar` need the URL again).
 */
function emailVisibilityChanged(cc: ChangeContext, user: User, oldValue: number, value: number): User {
  const gained: number[] = [];
  const lost: number[] = [];
  const previous = withSetting(user, 'email_address_visibility', oldValue);
  for (const viewer of cc.before.users.values()) {
    if (!viewer.is_active || viewer.user_id === user.user_id) continue;
    const before = canSeeDeliveryEmail(viewer, previous);
    const after = canSeeDeliveryEmail(viewer, user);
    if (before !== after) (after ? gained : lost).push(viewer.user_id);
  }
  if (gained.length > 0) {
    cc.events.push(
      to(gained, {
        type: 'realm_user',
        op: 'update',
        person: { user_id: user.user_id, delivery_email: user.delivery_email },
      }),
    );
  }
  if (lost.length > 0) {
    cc.events.push(
      to(lost, { type: 'realm_user', op: 'update', person: { user_id: user.user_id, delivery_email: null } }),
    );
  }
  if (oldValue !== 1 && value !== 1) return user;
  const email = value === 1 ? user.delivery_email : `user${user.user_id}@${fakeEmailDomain(cc.before)}`;
  const next = Object.freeze({ ...user, email });
  cc.events.push(
    to(cc.accessIds(), {
      type: 'realm_user',
      op: 'update',
      person: { user_id: user.user_id, new_email: next.email },
    }),
  );
  const url = avatarUrl(cc.before, next, false) ?? '';
  cc.events.push(
    to(cc.accessIds(), {
      type: 'realm_user',
      op: 'update',
      person: {
        avatar_source: next.avatar_source,
        avatar_url: url,
        avatar_url_medium: mediumAvatarUrl(url),
        avatar_version: next.avatar_version,
        user_id: next.user_id,
      },
    }),
  );
  return next;
}

/**
 * The time zone step: the canonical zone is stored, the `user_settings` event carries the raw
 * string the client sent, and `realm_user` carries the canonical one.
 */
export function changeTimezone(cc: ChangeContext, user: User, raw: string): User {
  const canonical = canonicalizeTimezone(raw);
  cc.events.push(to([user.user_id], settingEvent('timezone', raw)));
  cc.events.push(
    to(cc.accessIds(), {
      type: 'realm_user',
      op: 'update',
      person: { email: user.email, user_id: user.user_id, timezone: canonical },
    }),
  );
  return markEdited(Object.freeze({ ...user, timezone: canonical }), 'timezone');
}

/** A once-computed list of who can access `user`. */
export function lazyAccessIds(state: RealmState, user: User): () => readonly number[] {
  let ids: readonly number[] | undefined;
  return () => (ids ??= userIdsWhoCanAccess(state, user));
}
