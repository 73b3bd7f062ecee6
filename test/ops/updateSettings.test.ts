import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/context';
import { defaultPasswordHasher } from '../../src/core/passwords';
import { md5Hex } from '../../src/core/md5';
import {
  USER_SETTING_DEFAULTS,
  USER_SETTING_NAMES,
  type UserSettingName,
} from '../../src/core/model/user-settings';
import type { OpResult } from '../../src/core/result';
import { createRealm } from '../../src/core/snapshot/create';
import type { RealmState } from '../../src/core/state';
import { canonicalizeTimezone, isKnownTimezone } from '../../src/core/users/timezones';
import { updateSettings } from '../../src/ops/settings/updateSettings';
import { expectValidEvent, expectValidResponse } from '../support/openapi';
import { expectRefused } from '../support/expect-result';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { as, cast, devRealm, devSnapshot, testCtx, wire, type CastName } from '../support/realm';
import { loose } from '../support/loose';

const OP = 'update-settings';
const state = devRealm();
const SUCCESS = { result: 'success', msg: '' };

function ok(r: OpResult, body: object = SUCCESS): void {
  expect(r.body).toEqual(body);
  expect(r.status).toBe(200);
  expectValidResponse(OP, 200, r.body);
  for (const e of r.events) expectValidEvent(e.event);
}

function refused(r: OpResult, before: RealmState, msg: string, code?: string, extra?: object): void {
  expectRefused(OP, r, before, msg, code, extra);
}

const patch = (s: RealmState, who: CastName, params: Record<string, string>) =>
  wire(s, who, 'PATCH', '/settings', params, testCtx());

/** The dev realm with edits to its snapshot. */
function realmWith(edit: (snap: ReturnType<typeof devSnapshot>) => void): RealmState {
  const snap = devSnapshot();
  edit(snap);
  return createRealm(snap, { random: seededRandom(1) });
}

const userOf = (s: RealmState, name: CastName) => s.users.get(cast[name])!;
const settingEvent = (property: string, value: unknown, users: number[], extra: object = {}) => ({
  event: { type: 'user_settings', op: 'update', property, value, ...extra },
  users,
});
/** Every active user (bots included): who can access anyone in a realm without restrictions. */
const everyoneActive = (s: RealmState) =>
  [...s.users.values()].filter((u) => u.is_active).map((u) => u.user_id);

describe('updateSettings', () => {
  describe('own settings', () => {
    it('changes a boolean setting and notifies only the user (scenario: boolean setting changes)', () => {
      const r = patch(state, 'hamlet', { twenty_four_hour_time: 'true' });
      ok(r);
      expect(userOf(r.state, 'hamlet').settings.twenty_four_hour_time).toBe(true);
      expect(userOf(r.state, 'hamlet').settings_edited_by_user).toEqual([
        'color_scheme',
        'twenty_four_hour_time',
        'web_home_view',
      ]);
      expect(r.events).toEqual([settingEvent('twenty_four_hour_time', true, [cast.hamlet])]);
      expect(r.effects).toEqual([]);
      expect(userOf(state, 'hamlet').settings.twenty_four_hour_time).toBe(false);
    });

    it('takes decoded values through the library call', () => {
      const r = updateSettings(
        state,
        as('hamlet'),
        { twenty_four_hour_time: true, color_scheme: 3 },
        testCtx(),
      );
      ok(r);
      expect(userOf(r.state, 'hamlet').settings.color_scheme).toBe(3);
      expect(r.events).toEqual([
        settingEvent('color_scheme', 3, [cast.hamlet]),
        settingEvent('twenty_four_hour_time', true, [cast.hamlet]),
      ]);
    });

    it('lets a guest change their own settings', () => {
      const r = patch(state, 'polonius', { enter_sends: 'true' });
      ok(r);
      expect(r.events).toEqual([settingEvent('enter_sends', true, [cast.polonius])]);
    });

    it('applies changed settings in Zulip order and skips unchanged ones', () => {
      const r = patch(state, 'hamlet', {
        wildcard_mentions_notify: 'false',
        color_scheme: '2',
        enter_sends: 'true',
      });
      ok(r);
      // color_scheme is already 2: no event, and not listed as ignored.
      expect(r.events).toEqual([
        settingEvent('enter_sends', true, [cast.hamlet]),
        settingEvent('wildcard_mentions_notify', false, [cast.hamlet]),
      ]);
    });

    it('answers success without a change when nothing differs', () => {
      const r = patch(state, 'hamlet', { color_scheme: '2', timezone: 'Europe/Copenhagen' });
      ok(r);
      expect(r.state).toBe(state);
      expect(r.events).toEqual([]);
    });

    it('changes every setting, each with its own event (every parameter)', () => {
      const alternative = (name: UserSettingName): [string, unknown] => {
        const special: Partial<Record<UserSettingName, [string, unknown]>> = {
          default_language: ['de', 'de'],
          emojiset: ['twitter', 'twitter'],
          notification_sound: ['ding', 'ding'],
          web_home_view: ['all_messages', 'all_messages'],
          web_animate_image_previews: ['always', 'always'],
          resolved_topic_notice_auto_read_policy: ['never', 'never'],
          email_notifications_batching_period_seconds: ['3600', 3600],
          web_font_size_px: ['20', 20],
          web_line_height_percent: ['150', 150],
          web_channel_default_view: ['3', 3],
        };
        const given = special[name];
        if (given) return given;
        const d = USER_SETTING_DEFAULTS[name];
        if (typeof d === 'boolean') return [String(!d), !d];
        if (typeof d === 'number') return [String(d === 1 ? 2 : 1), d === 1 ? 2 : 1];
        throw new Error(name);
      };
      for (const name of USER_SETTING_NAMES) {
        const [text, value] = alternative(name);
        const r = patch(state, 'cordelia', { [name]: text });
        ok(r);
        expect(userOf(r.state, 'cordelia').settings[name]).toBe(value);
        expect(userOf(r.state, 'cordelia').settings_edited_by_user).toEqual([name]);
        const extra = name === 'default_language' ? { language_name: 'Deutsch' } : {};
        expect(r.events[0]).toEqual(settingEvent(name, value, [cast.cordelia], extra));
      }
    });

    it('does not send the legacy display and notification events', () => {
      const r = patch(state, 'hamlet', {
        high_contrast_mode: 'true',
        enable_sounds: 'false',
        default_language: 'fr',
      });
      ok(r);
      expect(r.events.map((e) => e.event.type)).toEqual(['user_settings', 'user_settings', 'user_settings']);
      expect(r.events[0]).toEqual(
        settingEvent('default_language', 'fr', [cast.hamlet], { language_name: 'français' }),
      );
    });
  });

  describe('who may call', () => {
    it('refuses bots before parsing (scenario: bots are rejected before parsing)', () => {
      refused(
        patch(state, 'defaultBot', { enter_sends: 'not-json' }),
        state,
        'This endpoint does not accept bot requests.',
      );
      refused(
        updateSettings(state, as('defaultBot'), { enter_sends: true }, testCtx()),
        state,
        'This endpoint does not accept bot requests.',
      );
    });

    it('refuses spectators', () => {
      const r = updateSettings(state, { anonymous: true }, { enter_sends: true }, testCtx());
      expect(r.status).toBe(401);
      expect(r.state).toBe(state);
      expectValidResponse(OP, 401, r.body);
    });
  });

  describe('parameter parsing', () => {
    it('requires valid JSON for JSON parameters (scenario: JSON bool must be valid JSON)', () => {
      refused(
        patch(state, 'hamlet', { twenty_four_hour_time: 'yes' }),
        state,
        'twenty_four_hour_time is not valid JSON',
      );
    });

    it('is strict about types', () => {
      refused(
        patch(state, 'hamlet', { twenty_four_hour_time: '1' }),
        state,
        'twenty_four_hour_time is not a boolean',
      );
      refused(patch(state, 'hamlet', { color_scheme: 'true' }), state, 'color_scheme is not an integer');
      refused(
        patch(state, 'hamlet', { web_font_size_px: '"16"' }),
        state,
        'web_font_size_px is not an integer',
      );
      refused(
        loose(updateSettings)(state, as('hamlet'), { full_name: 5 }, testCtx()),
        state,
        'full_name is not a string',
      );
    });

    it('reports the first invalid parameter in declaration order', () => {
      refused(
        patch(state, 'hamlet', { wildcard_mentions_notify: 'x', color_scheme: '10' }),
        state,
        'Invalid color_scheme: Value error, Not in the list of possible values',
      );
      // high_contrast_mode is declared before hide_ai_features.
      refused(
        patch(state, 'hamlet', { hide_ai_features: 'x', high_contrast_mode: 'y' }),
        state,
        'high_contrast_mode is not valid JSON',
      );
    });

    it('refuses values outside the lists (scenarios: emojiset, web_home_view, color_scheme outside list)', () => {
      const msg = (p: string) => `Invalid ${p}: Value error, Not in the list of possible values`;
      refused(patch(state, 'hamlet', { emojiset: 'apple' }), state, msg('emojiset'));
      refused(patch(state, 'hamlet', { emojiset: 'google-blob' }), state, msg('emojiset'));
      refused(patch(state, 'hamlet', { web_home_view: 'invalid_view' }), state, msg('web_home_view'));
      refused(patch(state, 'hamlet', { color_scheme: '10' }), state, msg('color_scheme'));
      refused(
        patch(state, 'hamlet', { web_animate_image_previews: 'sometimes' }),
        state,
        msg('web_animate_image_previews'),
      );
      const lists: Record<string, number[]> = {
        automatically_follow_topics_policy: [1, 2, 3, 4],
        automatically_unmute_topics_in_muted_streams_policy: [1, 2, 3, 4],
        color_scheme: [1, 2, 3],
        demote_inactive_streams: [1, 2, 3],
        desktop_icon_count_display: [1, 2, 3, 4],
        email_address_visibility: [1, 2, 3, 4, 5],
        realm_name_in_email_notifications_policy: [1, 2, 3],
        user_list_style: [1, 2, 3],
        web_channel_default_view: [1, 2, 3, 4],
        web_mark_read_on_scroll_policy: [1, 2, 3],
        web_stream_unreads_count_display_policy: [1, 2, 3],
      };
      for (const [name, allowed] of Object.entries(lists)) {
        refused(patch(state, 'hamlet', { [name]: '0' }), state, msg(name));
        refused(patch(state, 'hamlet', { [name]: String(allowed.length + 1) }), state, msg(name));
        for (const v of allowed) expect(patch(state, 'hamlet', { [name]: String(v) }).status).toBe(200);
      }
    });

    it('accepts web_channel_default_view 3 (list of topics)', () => {
      const r = patch(state, 'hamlet', { web_channel_default_view: '3' });
      ok(r);
      expect(r.events).toEqual([settingEvent('web_channel_default_view', 3, [cast.hamlet])]);
    });

    it('stores the legacy home view recent_topics as recent', () => {
      const r = patch(state, 'hamlet', { web_home_view: 'recent_topics' });
      ok(r);
      expect(userOf(r.state, 'hamlet').settings.web_home_view).toBe('recent');
      expect(r.events).toEqual([settingEvent('web_home_view', 'recent', [cast.hamlet])]);
      const again = patch(r.state, 'hamlet', { web_home_view: 'recent' });
      ok(again);
      expect(again.state).toBe(r.state);
    });

    it('takes plain-string parameters raw (scenario: notification_sound is a raw string)', () => {
      refused(
        patch(state, 'hamlet', { notification_sound: '"invalid_sound"' }),
        state,
        `Invalid notification sound '"invalid_sound"'`,
      );
      refused(
        patch(state, 'hamlet', { emojiset: '"google"' }),
        state,
        'Invalid emojiset: Value error, Not in the list of possible values',
      );
    });
  });

  describe('values checked by the view', () => {
    it('refuses an unknown language (scenario: default_language unknown)', () => {
      refused(patch(state, 'hamlet', { default_language: 'pt-br' }), state, 'Invalid default_language');
      const r = patch(state, 'hamlet', { default_language: 'pt_BR' });
      ok(r);
      expect(r.events).toEqual([
        settingEvent('default_language', 'pt_BR', [cast.hamlet], { language_name: 'Português Brasileiro' }),
      ]);
    });

    it('accepts bundled sounds and none', () => {
      for (const sound of ['ding', 'deep tom', 'none'])
        ok(patch(state, 'hamlet', { notification_sound: sound }));
      refused(
        patch(state, 'hamlet', { notification_sound: 'Ding' }),
        state,
        "Invalid notification sound 'Ding'",
      );
    });

    it('bounds the email batching period to one week (scenarios: must be positive, max one week)', () => {
      refused(
        patch(state, 'hamlet', { email_notifications_batching_period_seconds: '-1' }),
        state,
        'Invalid email batching period: -1 seconds',
      );
      refused(
        patch(state, 'hamlet', { email_notifications_batching_period_seconds: '0' }),
        state,
        'Invalid email batching period: 0 seconds',
      );
      refused(
        patch(state, 'hamlet', { email_notifications_batching_period_seconds: '604810' }),
        state,
        'Invalid email batching period: 604810 seconds',
      );
      ok(patch(state, 'hamlet', { email_notifications_batching_period_seconds: '604800' }));
    });

    it('checks language, then sound, then batching period', () => {
      const all = {
        default_language: 'xx',
        notification_sound: 'nope',
        email_notifications_batching_period_seconds: '0',
      };
      refused(patch(state, 'hamlet', all), state, 'Invalid default_language');
      refused(
        patch(state, 'hamlet', { ...all, default_language: 'de' }),
        state,
        "Invalid notification sound 'nope'",
      );
    });

    it('always rewrites the enum-by-name setting (scenario: enum-by-name stored as number, event uses name)', () => {
      const r = patch(state, 'hamlet', { resolved_topic_notice_auto_read_policy: 'always' });
      ok(r);
      expect(userOf(r.state, 'hamlet').settings.resolved_topic_notice_auto_read_policy).toBe('always');
      expect(r.events).toEqual([
        settingEvent('resolved_topic_notice_auto_read_policy', 'always', [cast.hamlet]),
      ]);
      const again = patch(r.state, 'hamlet', { resolved_topic_notice_auto_read_policy: 'always' });
      ok(again);
      expect(again.state).not.toBe(r.state);
      expect(again.events).toEqual([
        settingEvent('resolved_topic_notice_auto_read_policy', 'always', [cast.hamlet]),
      ]);
      refused(
        patch(state, 'hamlet', { resolved_topic_notice_auto_read_policy: '1' }),
        state,
        'Invalid resolved_topic_notice_auto_read_policy',
      );
    });
  });

  describe('timezone', () => {
    it('refuses an unknown zone (scenario: unknown timezone)', () => {
      refused(
        patch(state, 'hamlet', { timezone: 'invalid_US/Mountain' }),
        state,
        'Invalid timezone: Value error, Not a recognized time zone',
      );
      refused(
        patch(state, 'hamlet', { timezone: '' }),
        state,
        'Invalid timezone: Value error, Not a recognized time zone',
      );
    });

    it('stores the canonical zone, sends the raw one to the user and the canonical one to everyone', () => {
      const r = patch(state, 'hamlet', { timezone: 'America/Montreal' });
      ok(r);
      expect(userOf(r.state, 'hamlet').timezone).toBe('America/Toronto');
      expect(r.events).toEqual([
        settingEvent('timezone', 'America/Montreal', [cast.hamlet]),
        {
          event: {
            type: 'realm_user',
            op: 'update',
            person: { email: 'hamlet@zulip.com', user_id: cast.hamlet, timezone: 'America/Toronto' },
          },
          users: everyoneActive(state),
        },
      ]);
    });

    it('canonicalizes links and knows backward names', () => {
      expect(canonicalizeTimezone('US/Mountain')).toBe('America/Denver');
      expect(canonicalizeTimezone('Asia/Calcutta')).toBe('Asia/Kolkata');
      expect(canonicalizeTimezone('Europe/Paris')).toBe('Europe/Paris');
      expect(isKnownTimezone('UTC')).toBe(true);
      expect(isKnownTimezone('Mars/Olympus')).toBe(false);
    });

    it('is applied last, after the other settings', () => {
      const r = patch(state, 'hamlet', { timezone: 'UTC', enter_sends: 'true' });
      ok(r);
      expect(r.events.map((e) => (e.event as { property?: string }).property ?? e.event.type)).toEqual([
        'enter_sends',
        'timezone',
        'realm_user',
      ]);
    });
  });

  describe('full_name', () => {
    const long = 'x'.repeat(101);
    it('refuses bad names (scenarios: too long, invalid characters, |digits)', () => {
      refused(patch(state, 'hamlet', { full_name: long }), state, 'Name too long!');
      refused(patch(state, 'hamlet', { full_name: 'Opheli*' }), state, 'Invalid characters in name!');
      refused(patch(state, 'hamlet', { full_name: 'Bad\u0007Name' }), state, 'Invalid characters in name!');
      refused(patch(state, 'hamlet', { full_name: 'Hamlet|15' }), state, 'Invalid format!');
      refused(patch(state, 'hamlet', { full_name: '   ' }), state, 'Name must not be empty!');
      ok(patch(state, 'hamlet', { full_name: `  ${'x'.repeat(100)}  ` }));
    });

    it('strips the name and notifies everyone who can access the user (scenario: full name change)', () => {
      const r = patch(state, 'hamlet', { full_name: '  Foo Bar  ' });
      ok(r);
      expect(userOf(r.state, 'hamlet').full_name).toBe('Foo Bar');
      expect(r.events).toEqual([
        {
          event: { type: 'realm_user', op: 'update', person: { user_id: cast.hamlet, full_name: 'Foo Bar' } },
          users: everyoneActive(state),
        },
      ]);
    });

    it('notifies only users who can access the renamed user when guests are restricted', () => {
      const restricted = realmWith((s) =>
        Object.assign(s.realm as object, { can_access_all_users_group: 'role:members' }),
      );
      // The imported user shares no channel or conversation with the guest polonius.
      const r = updateSettings(restricted, as('imported'), { full_name: 'Imported Person' }, testCtx());
      ok(r);
      expect(r.events).toEqual([
        {
          event: {
            type: 'realm_user',
            op: 'update',
            person: { user_id: cast.imported, full_name: 'Imported Person' },
          },
          users: everyoneActive(restricted).filter((id) => id !== cast.polonius),
        },
      ]);
    });

    it('is a no-op when the stripped name is the current one (Zulip: do_change_full_name)', () => {
      // The view compares the raw value (' King Hamlet ' differs), check_change_full_name strips
      // it, and zerver/actions/user_settings.py do_change_full_name returns early when the old
      // name equals the new one: no save, no audit row, no realm_user event.
      const r = patch(state, 'hamlet', { full_name: ' King Hamlet ' });
      ok(r);
      expect(r.state).toBe(state);
      expect(r.events).toEqual([]);
    });

    it('is checked before settings, and nothing is applied on error (scenario: partial application)', () => {
      refused(
        patch(state, 'hamlet', { full_name: '', enter_sends: 'true' }),
        state,
        'Name must not be empty!',
      );
      // Zulip would keep the password change; this engine applies all or nothing.
      refused(
        patch(state, 'hamlet', {
          old_password: 'hamlet-password',
          new_password: 'a-much-better-one',
          full_name: '',
        }),
        state,
        'Name must not be empty!',
      );
    });

    it('silently ignores a member when name changes are disabled, not an administrator', () => {
      const locked = realmWith((s) => Object.assign(s.realm as object, { name_changes_disabled: true }));
      const r = patch(locked, 'hamlet', { full_name: 'New Name' });
      ok(r);
      expect(r.state).toBe(locked);
      // Even an invalid name is not checked.
      ok(patch(locked, 'hamlet', { full_name: 'Bad*' }));
      const admin = patch(locked, 'iago', { full_name: 'Iago II' });
      ok(admin);
      expect(userOf(admin.state, 'iago').full_name).toBe('Iago II');
    });

    it('requires unique names, compared after NFKC and case folding, for administrators too', () => {
      const unique = realmWith((s) => Object.assign(s.realm as object, { require_unique_names: true }));
      refused(
        patch(unique, 'hamlet', { full_name: 'CORDELIA, LEAR’S DAUGHTER'.replace('’', "'") }),
        unique,
        'Unique names required in this organization.',
      );
      refused(
        patch(unique, 'iago', { full_name: 'ｚｏｅ' }),
        unique,
        'Unique names required in this organization.',
      );
      // A deactivated user's name is taken too.
      refused(
        patch(unique, 'hamlet', { full_name: 'former employee' }),
        unique,
        'Unique names required in this organization.',
      );
      ok(patch(unique, 'hamlet', { full_name: 'Prince Hamlet' }));
    });
  });

  describe('password', () => {
    it('refuses a wrong old password (scenario: wrong old password)', () => {
      refused(
        patch(state, 'hamlet', { old_password: 'bad_password', new_password: 'ignored' }),
        state,
        'Wrong password!',
      );
    });

    it('refuses a missing old password, and any when password authentication is off', () => {
      refused(patch(state, 'hamlet', { new_password: 'a-much-better-one' }), state, 'Wrong password!');
      const off = realmWith((s) => Object.assign(s.realm as object, { password_auth_enabled: false }));
      refused(
        patch(off, 'hamlet', { old_password: 'hamlet-password', new_password: 'a-much-better-one' }),
        off,
        'Wrong password!',
      );
      // cordelia has no usable password.
      refused(
        patch(state, 'cordelia', { old_password: '', new_password: 'a-much-better-one' }),
        state,
        'Wrong password!',
      );
    });

    it('refuses a weak new password', () => {
      for (const weak of ['', 'abc', 'aaaaaaaa', '123456', 'fedcba']) {
        refused(
          patch(state, 'hamlet', { old_password: 'hamlet-password', new_password: weak }),
          state,
          'New password is too weak!',
        );
      }
    });

    it('changes the password through the pluggable hasher, with no event', () => {
      const r = patch(state, 'hamlet', {
        old_password: 'hamlet-password',
        new_password: 'a-much-better-one',
      });
      ok(r);
      const hash = userOf(r.state, 'hamlet').password_hash!;
      expect(defaultPasswordHasher.verify('a-much-better-one', hash)).toBe(true);
      expect(defaultPasswordHasher.verify('hamlet-password', hash)).toBe(false);
      expect(r.events).toEqual([]);
    });

    it('ignores old_password alone without reporting it', () => {
      const r = patch(state, 'hamlet', { old_password: 'whatever' });
      ok(r);
      expect(r.state).toBe(state);
    });
  });

  describe('email', () => {
    it('starts a confirmation and leaves the address unchanged', () => {
      const r = patch(state, 'hamlet', { email: '  hamlet-new@zulip.com ' });
      ok(r);
      expect(r.state.pendingEmailChanges.get(cast.hamlet)).toEqual({
        user_id: cast.hamlet,
        new_email: 'hamlet-new@zulip.com',
        requested_at: 1795219200,
      });
      expect(userOf(r.state, 'hamlet').delivery_email).toBe('hamlet@zulip.com');
      expect(r.events).toEqual([]);
      expect(r.effects).toEqual([
        {
          type: 'send_email_change_confirmation',
          user_id: cast.hamlet,
          old_email: 'hamlet@zulip.com',
          new_email: 'hamlet-new@zulip.com',
          realm_name: 'Zulip Dev',
        },
      ]);
      const again = patch(r.state, 'hamlet', { email: 'hamlet-other@zulip.com' });
      ok(again);
      expect(again.state.pendingEmailChanges.get(cast.hamlet)?.new_email).toBe('hamlet-other@zulip.com');
    });

    it('lets an administrator start a change when changes are disabled (scenario: admin may start email change)', () => {
      const locked = realmWith((s) => Object.assign(s.realm as object, { email_changes_disabled: true }));
      const r = patch(locked, 'iago', { email: 'iago-new@zulip.com' });
      ok(r);
      expect(r.state.pendingEmailChanges.get(cast.iago)?.new_email).toBe('iago-new@zulip.com');
      expect(userOf(r.state, 'iago').delivery_email).toBe('iago@zulip.com');
      expect(r.effects).toHaveLength(1);
      refused(
        patch(locked, 'hamlet', { email: 'hamlet-new@zulip.com' }),
        locked,
        'Email address changes are disabled in this organization.',
      );
      // The disabled check comes before the address check.
      refused(
        patch(locked, 'hamlet', { email: 'hamlet-new' }),
        locked,
        'Email address changes are disabled in this organization.',
      );
    });

    it('refuses invalid and taken addresses (scenario: invalid new email)', () => {
      refused(patch(state, 'hamlet', { email: 'hamlet-new' }), state, 'Invalid address.');
      refused(patch(state, 'hamlet', { email: '' }), state, 'Invalid address.');
      refused(patch(state, 'hamlet', { email: 'a@b' }), state, 'Invalid address.');
      refused(patch(state, 'hamlet', { email: 'Cordelia@Zulip.com' }), state, 'Already has an account.');
      refused(patch(state, 'hamlet', { email: 'HAMLET@zulip.com' }), state, 'Already has an account.');
      refused(
        patch(state, 'hamlet', { email: 'ex-employee@zulip.com' }),
        state,
        'Account has been deactivated.',
      );
    });

    it('is a silent no-op for the current address (scenario: same email is a no-op)', () => {
      const r = patch(state, 'hamlet', { email: 'hamlet@zulip.com' });
      ok(r, { result: 'success', msg: '' });
      expect(r.state).toBe(state);
      expect(r.effects).toEqual([]);
    });

    it('is checked after the password and before the name', () => {
      refused(patch(state, 'hamlet', { new_password: 'x', email: 'bad' }), state, 'Wrong password!');
      refused(patch(state, 'hamlet', { email: 'bad', full_name: '' }), state, 'Invalid address.');
    });
  });

  describe('side effects', () => {
    it('deletes the user drafts when synchronization is turned off (scenario: disabling draft sync deletes drafts)', () => {
      const r = patch(state, 'hamlet', { enable_drafts_synchronization: 'false' });
      ok(r);
      expect([...r.state.drafts.values()].map((d) => d.id)).toEqual([3]);
      expect(r.events).toEqual([settingEvent('enable_drafts_synchronization', false, [cast.hamlet])]);
    });

    it('tells human administrators about export consent', () => {
      const r = patch(state, 'hamlet', { allow_private_data_export: 'true' });
      ok(r);
      expect(r.events).toEqual([
        settingEvent('allow_private_data_export', true, [cast.hamlet]),
        {
          event: { type: 'realm_export_consent', user_id: cast.hamlet, consented: true },
          users: [cast.desdemona, cast.iago],
        },
      ]);
    });

    it('switches the public email and delivery-email access with email_address_visibility', () => {
      const r = patch(state, 'hamlet', { email_address_visibility: '3' });
      ok(r);
      const hamlet = userOf(r.state, 'hamlet');
      expect(hamlet.email).toBe('user4@localhost');
      expect(r.state.usersByEmail.get('user4@localhost')).toBe(cast.hamlet);
      expect(r.state.usersByEmail.get('hamlet@zulip.com')).toBeUndefined();
      const lost = [...state.users.values()]
        .filter((u) => u.is_active && u.user_id !== cast.hamlet && u.role !== 100 && u.role !== 200)
        .map((u) => u.user_id);
      expect(r.events.slice(0, 3)).toEqual([
        settingEvent('email_address_visibility', 3, [cast.hamlet]),
        {
          event: { type: 'realm_user', op: 'update', person: { user_id: cast.hamlet, delivery_email: null } },
          users: lost,
        },
        {
          event: {
            type: 'realm_user',
            op: 'update',
            person: { user_id: cast.hamlet, new_email: 'user4@localhost' },
          },
          users: everyoneActive(state),
        },
      ]);
      const gravatar = `https://secure.gravatar.com/avatar/${md5Hex('hamlet@zulip.com')}?d=identicon`;
      expect(r.events[3]).toEqual({
        event: {
          type: 'realm_user',
          op: 'update',
          person: {
            avatar_source: 'G',
            avatar_url: `${gravatar}&version=1`,
            avatar_url_medium: `${gravatar}&s=500&version=1`,
            avatar_version: 1,
            user_id: cast.hamlet,
          },
        },
        users: everyoneActive(state),
      });
      expect(r.events).toHaveLength(4);

      // From 3 to 2 the public address stays fake; members gain access.
      const back = patch(r.state, 'hamlet', { email_address_visibility: '2' });
      ok(back);
      expect(userOf(back.state, 'hamlet').email).toBe('user4@localhost');
      const members = lost.filter((id) => r.state.users.get(id)!.role !== 600);
      expect(back.events).toEqual([
        settingEvent('email_address_visibility', 2, [cast.hamlet]),
        {
          event: {
            type: 'realm_user',
            op: 'update',
            person: { user_id: cast.hamlet, delivery_email: 'hamlet@zulip.com' },
          },
          users: members,
        },
      ]);
    });
  });

  describe('ignored_parameters_unsupported', () => {
    it('lists unknown parameters, sorted (scenario: unknown parameter reported)', () => {
      ok(patch(state, 'hamlet', { invalid_setting: 'value' }), {
        ...SUCCESS,
        ignored_parameters_unsupported: ['invalid_setting'],
      });
      ok(patch(state, 'hamlet', { zz: '1', aa: '2', enter_sends: 'false' }), {
        ...SUCCESS,
        ignored_parameters_unsupported: ['aa', 'zz'],
      });
    });
  });

  describe('target_users', () => {
    const bulk = (s: RealmState, who: CastName, target: object, params: Record<string, string>) =>
      patch(s, who, { target_users: JSON.stringify(target), ...params });
    const hamletOnly = { user_ids: [cast.hamlet], skip_if_already_edited: false };

    it('is for administrators only', () => {
      refused(
        bulk(state, 'shiva', hamletOnly, { enter_sends: 'true' }),
        state,
        'Must be an organization administrator',
        'UNAUTHORIZED_PRINCIPAL',
      );
      refused(
        bulk(state, 'hamlet', hamletOnly, { enter_sends: 'true' }),
        state,
        'Must be an organization administrator',
        'UNAUTHORIZED_PRINCIPAL',
      );
      ok(bulk(state, 'desdemona', hamletOnly, { enter_sends: 'true' }));
    });

    it('cannot set email, password or timezone (scenario: target_users cannot set email/password/timezone)', () => {
      for (const p of [{ timezone: 'UTC' }, { email: 'x@zulip.com' }, { new_password: 'secret-enough' }]) {
        refused(bulk(state, 'iago', hamletOnly, p), state, 'Cannot change this setting for other users.');
      }
    });

    it('cannot set security-sensitive settings (scenario: target_users cannot set security-sensitive settings)', () => {
      for (const name of [
        'presence_enabled',
        'allow_private_data_export',
        'enable_login_emails',
        'send_read_receipts',
      ]) {
        refused(
          bulk(state, 'iago', hamletOnly, { [name]: 'false' }),
          state,
          'Cannot change this setting for other users.',
        );
      }
      refused(
        bulk(state, 'iago', hamletOnly, { email_address_visibility: '2' }),
        state,
        'Cannot change this setting for other users.',
      );
    });

    it('validates its shape (scenario: target_users skip flag required)', () => {
      refused(
        patch(state, 'iago', {
          target_users: JSON.stringify({ user_ids: [cast.hamlet] }),
          enter_sends: 'true',
        }),
        state,
        'target_users["skip_if_already_edited"] field is missing: Field required',
      );
      refused(
        bulk(state, 'iago', { skip_if_already_edited: true }, {}),
        state,
        'Either user_ids or group_ids must be provided.',
      );
      refused(
        bulk(state, 'iago', { user_ids: ['x'], skip_if_already_edited: true }, {}),
        state,
        'target_users["user_ids"][0] is not an integer',
      );
      refused(
        bulk(state, 'iago', { group_ids: 5, skip_if_already_edited: true }, {}),
        state,
        'target_users["group_ids"] is not a list',
      );
      refused(
        bulk(state, 'iago', { user_ids: [4], skip_if_already_edited: 'no' }, {}),
        state,
        'target_users["skip_if_already_edited"] is not a boolean',
      );
      refused(
        patch(state, 'iago', { target_users: '5' }),
        state,
        'target_users does not have the expected format',
      );
      refused(patch(state, 'iago', { target_users: 'nope' }), state, 'target_users is not valid JSON');
    });

    it('refuses unknown users and groups', () => {
      refused(
        bulk(state, 'iago', { user_ids: [999], skip_if_already_edited: false }, { enter_sends: 'true' }),
        state,
        'Invalid user ID: 999',
      );
      refused(
        bulk(state, 'iago', { group_ids: [999], skip_if_already_edited: false }, { enter_sends: 'true' }),
        state,
        'Invalid user group ID: 999',
      );
    });

    // Scenario "bulk edit by group honoring self-edits", adapted: group G = {hamlet, cordelia, default-bot};
    // hamlet has not edited color_scheme, cordelia has.
    const withGroup = realmWith((s) => {
      const users = s.users as Array<Record<string, unknown>>;
      const hamlet = users.find((u) => u['user_id'] === cast.hamlet)!;
      hamlet['settings'] = {};
      hamlet['settings_edited_by_user'] = [];
      Object.assign(
        users.find((u) => u['user_id'] === cast.cordelia)!,
        { settings: { color_scheme: 3 }, settings_edited_by_user: ['color_scheme'] },
      );
      (s['user_groups'] as object[]).push({
        id: 106,
        name: 'G',
        description: '',
        members: [cast.hamlet, cast.cordelia, cast.defaultBot],
        creator_id: cast.iago,
      });
    });

    it('changes group members who did not edit the setting themselves (scenario: bulk edit by group honoring self-edits)', () => {
      const r = bulk(
        withGroup,
        'iago',
        { group_ids: [106], skip_if_already_edited: true },
        { color_scheme: '2' },
      );
      ok(r);
      expect(userOf(r.state, 'hamlet').settings.color_scheme).toBe(2);
      expect(userOf(r.state, 'hamlet').settings_edited_by_user).toEqual([]);
      expect(r.state.users.get(cast.cordelia)).toBe(withGroup.users.get(cast.cordelia));
      expect(r.state.users.get(cast.defaultBot)).toBe(withGroup.users.get(cast.defaultBot));
      expect(r.state.users.get(cast.iago)).toBe(withGroup.users.get(cast.iago));
      expect(r.events).toEqual([settingEvent('color_scheme', 2, [cast.hamlet])]);
    });

    it('overrides self-edits without skip_if_already_edited', () => {
      const r = bulk(
        withGroup,
        'iago',
        { group_ids: [106], skip_if_already_edited: false },
        { color_scheme: '2', enter_sends: 'true' },
      );
      ok(r);
      expect(userOf(r.state, 'cordelia').settings.color_scheme).toBe(2);
      expect(r.events).toEqual([
        settingEvent('color_scheme', 2, [cast.hamlet, cast.cordelia]),
        settingEvent('enter_sends', true, [cast.hamlet, cast.cordelia]),
      ]);
    });

    it('includes deactivated users named directly, leaves bots out, and counts an administrator targeting themselves as a self-edit', () => {
      const r = bulk(
        state,
        'iago',
        { user_ids: [cast.exEmployee, cast.defaultBot, cast.iago], skip_if_already_edited: false },
        { enter_sends: 'true' },
      );
      ok(r);
      expect(r.events).toEqual([settingEvent('enter_sends', true, [cast.iago, cast.exEmployee])]);
      expect(userOf(r.state, 'exEmployee').settings.enter_sends).toBe(true);
      expect(userOf(r.state, 'exEmployee').settings_edited_by_user).toEqual([]);
      expect(userOf(r.state, 'iago').settings_edited_by_user).toEqual(['enter_sends']);
    });

    it('resolves system groups recursively to active members', () => {
      const r = bulk(
        state,
        'iago',
        { group_ids: [state.systemGroups['role:administrators']], skip_if_already_edited: false },
        { starred_message_counts: 'false' },
      );
      ok(r);
      expect(r.events).toEqual([settingEvent('starred_message_counts', false, [cast.desdemona, cast.iago])]);
    });

    it('skips the language, sound and batching checks, and reads full_name without using it', () => {
      const r = bulk(state, 'iago', hamletOnly, {
        default_language: 'xx',
        full_name: 'Ignored',
        notification_sound: 'nope',
        email_notifications_batching_period_seconds: '0',
        old_password: 'x',
        extra: '1',
      });
      ok(r, { ...SUCCESS, ignored_parameters_unsupported: ['extra'] });
      expect(userOf(r.state, 'hamlet').full_name).toBe('King Hamlet');
      expect(r.events).toEqual([
        settingEvent('default_language', 'xx', [cast.hamlet], { language_name: 'Unknown' }),
        settingEvent('email_notifications_batching_period_seconds', 0, [cast.hamlet]),
        settingEvent('notification_sound', 'nope', [cast.hamlet]),
      ]);
    });

    it('deletes drafts of targets who lose synchronization', () => {
      const r = bulk(
        state,
        'iago',
        { user_ids: [cast.hamlet, cast.cordelia], skip_if_already_edited: true },
        { enable_drafts_synchronization: 'false' },
      );
      ok(r);
      expect(r.state.drafts.size).toBe(0);
    });

    it('takes decoded values through the library call', () => {
      const r = updateSettings(
        state,
        as('iago'),
        { target_users: { user_ids: [cast.hamlet], skip_if_already_edited: false }, enter_sends: true },
        testCtx(),
      );
      ok(r);
      expect(r.events).toEqual([settingEvent('enter_sends', true, [cast.hamlet])]);
    });
  });

  describe('laws', () => {
    const names = [
      ...USER_SETTING_NAMES,
      'email',
      'full_name',
      'old_password',
      'new_password',
      'timezone',
      'target_users',
    ];
    const shaped = [
      fc.boolean(),
      fc.integer({ min: -2, max: 6 }),
      fc.constantFrom(
        'de',
        'pt-br',
        'recent',
        'always',
        'UTC',
        'America/Montreal',
        '',
        ' x ',
        'hamlet@zulip.com',
        'a@b.co',
      ),
      fc.record(
        { user_ids: fc.array(fc.integer({ min: 0, max: 20 })), skip_if_already_edited: fc.boolean() },
        { requiredKeys: [] },
      ),
    ];
    it('never throws, and fails without changing anything (library)', () => {
      checkLibraryLaws(updateSettings, state, arbParams(names, shaped), 150);
    });
    it('never throws, and fails without changing anything (wire)', () => {
      const texts = [
        fc.constantFrom(
          'true',
          '2',
          '"x"',
          'recent_topics',
          'ding',
          '{"user_ids":[4],"skip_if_already_edited":false}',
          '{"group_ids":[101],"skip_if_already_edited":true}',
        ),
      ];
      checkWireLaws(updateSettings, state, arbWireParams(names, texts), 100);
    });
  });
});
