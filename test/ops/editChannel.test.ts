import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { editChannel } from '../../src/ops/channels/editChannel';
import type { Actor } from '../../src/core/operation';
import type { Channel, ChannelGroupSettingName } from '../../src/core/model/records';
import { CHANNEL_GROUP_SETTING_NAMES } from '../../src/core/model/records';
import type { OpResult } from '../../src/core/result';
import { edit, editRecord } from '../../src/core/result';
import type { RealmState } from '../../src/core/state';
import { putChannel, putSubscription } from '../../src/core/state-edit';
import { putUser } from '../../src/core/state-edit';
import type { RealmSettings } from '../../src/core/model/realm';
import { renderMarkdown } from '../../src/core/markdown';
import { as, cast, devRealm, testCtx, wire, type CastName } from '../support/realm';
import { expectValidEvent, expectValidResponse } from '../support/openapi';
import { loose } from '../support/loose';

const OP = 'update-stream';
const VERONA = 1;
const SCOTLAND = 3;
const CORE_TEAM = 6;
const SECRETS = 7;
const OLD_ANNOUNCEMENTS = 8;
const GENERAL_CHAT_ONLY = 9;
const G = {
  nobody: 1,
  owners: 2,
  administrators: 3,
  moderators: 4,
  fullmembers: 5,
  members: 6,
  everyone: 7,
  internet: 8,
};
const HAMLETCHARACTERS = 101;
const LEADERSHIP = 102;

/** Every active user: who sees a public channel's metadata in the dev realm (polonius is subscribed to Verona). */
const ALL_ACTIVE = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16];
const ACTIVE_NON_GUESTS = ALL_ACTIVE.filter((id) => id !== cast.polonius);

const call = (state: RealmState, who: CastName, params: Record<string, unknown>): OpResult =>
  check(loose(editChannel)(state, as(who), params, testCtx()));

/** Validates the body and every event against Zulip's schemas. */
function check(r: OpResult): OpResult {
  expectValidResponse(OP, r.status, r.body);
  for (const e of r.events) expectValidEvent(e.event);
  return r;
}

function expectError(r: OpResult, state: RealmState, status: number, body: Record<string, unknown>): void {
  expect(r.status).toBe(status);
  expect(r.body).toEqual({ result: 'error', ...body });
  expect(r.state).toBe(state);
  expect(r.events).toEqual([]);
  expect(r.effects).toEqual([]);
}
const badRequest = (msg: string) => ({ msg, code: 'BAD_REQUEST' });
const ok = { result: 'success', msg: '' };

function withChannel(
  state: RealmState,
  id: number,
  recipe: (c: { -readonly [K in keyof Channel]: Channel[K] }) => void,
): RealmState {
  const next = editRecord(state.channels.get(id)!, recipe);
  return edit(state, (d) => putChannel(d, next));
}
function withRealm(state: RealmState, over: Partial<RealmSettings>): RealmState {
  return edit(state, (d) => {
    d.realm = { ...d.realm, ...over } as typeof d.realm;
  });
}
function withSubscription(state: RealmState, streamId: number, userId: number): RealmState {
  return edit(state, (d) =>
    putSubscription(d, {
      user_id: userId,
      stream_id: streamId,
      active: true,
      color: '#c2c2c2',
      is_muted: false,
      pin_to_top: false,
      desktop_notifications: null,
      audible_notifications: null,
      push_notifications: null,
      email_notifications: null,
      wildcard_mentions_notify: null,
    }),
  );
}
const channel = (r: OpResult, id: number) => r.state.channels.get(id)!;
const notice = (streamId: number, content: string, topic = 'channel events') => ({
  type: 'post_notification_message',
  stream_id: streamId,
  topic,
  content,
});

describe('editChannel', () => {
  const state = devRealm();

  describe('access', () => {
    it('answers Invalid channel ID for an unknown channel (scenario: unknown stream id)', () => {
      const r = check(wire(state, 'iago', 'PATCH', '/streams/999999999', { description: 'x' }));
      expectError(r, state, 400, badRequest('Invalid channel ID'));
    });

    it('refuses a member without the administer right on an accessible channel', () => {
      expectError(
        call(state, 'hamlet', { stream_id: VERONA, description: 'x' }),
        state,
        400,
        badRequest('You do not have permission to administer this channel.'),
      );
    });

    it('hides an unsubscribed private channel from a member', () => {
      expectError(
        call(state, 'hamlet', { stream_id: SECRETS, new_name: 'private_stream_2' }),
        state,
        400,
        badRequest('Invalid channel ID'),
      );
    });

    it('refuses a subscribed guest even when listed in can_administer_channel_group', () => {
      const s = withChannel(state, VERONA, (c) => {
        c.can_administer_channel_group = { direct_members: [cast.polonius], direct_subgroups: [] };
      });
      expectError(
        call(s, 'polonius', { stream_id: VERONA, description: 'x' }),
        s,
        400,
        badRequest('You do not have permission to administer this channel.'),
      );
    });

    it('lets a channel administrator named in an anonymous group rename (scenario)', () => {
      const s = withChannel(state, VERONA, (c) => {
        c.can_administer_channel_group = { direct_members: [cast.prospero], direct_subgroups: [] };
      });
      const r = call(s, 'prospero', { stream_id: VERONA, new_name: 'Renamed stream' });
      expect(r.body).toEqual(ok);
      expect(channel(r, VERONA).name).toBe('Renamed stream');
      expect(r.state.channelsByName.get('renamed stream')).toBe(VERONA);
      expect(r.state.channelsByName.get('verona')).toBeUndefined();
      expect(r.events).toEqual([
        {
          event: {
            type: 'stream',
            op: 'update',
            property: 'name',
            value: 'Renamed stream',
            stream_id: VERONA,
            name: 'Verona',
          },
          users: ALL_ACTIVE,
        },
      ]);
      expect(r.effects).toEqual([
        notice(VERONA, '@_**Prospero from The Tempest|7** renamed channel **Verona** to **Renamed stream**.'),
      ]);
    });

    it('lets a member of a group inside can_administer_channel_group edit (recursive membership)', () => {
      // Scotland's administrators: hamlet directly; give it to leadership's supergroup "support" (othello + leadership).
      const s = withChannel(state, SCOTLAND, (c) => {
        c.can_administer_channel_group = 103;
      });
      expect(call(s, 'desdemona', { stream_id: SCOTLAND, folder_id: null }).status).toBe(200);
      expect(call(s, 'othello', { stream_id: SCOTLAND, folder_id: null }).status).toBe(200);
      expect(call(s, 'hamlet', { stream_id: SCOTLAND, folder_id: null }).status).toBe(400);
    });

    it('refuses anonymous callers on the wire', () => {
      const r = check(wire(state, null, 'PATCH', `/streams/${VERONA}`, { description: 'x' }));
      expect(r.status).toBe(401);
      expect(r.state).toBe(state);
    });

    it('lets an administrator edit an archived channel', () => {
      const r = call(state, 'iago', { stream_id: OLD_ANNOUNCEMENTS, folder_id: 1 });
      expect(r.body).toEqual(ok);
      expect(channel(r, OLD_ANNOUNCEMENTS).folder_id).toBe(1);
    });
  });

  describe('parameters', () => {
    it('reports a bare integer for a group setting as the wrong format (scenario)', () => {
      const r = check(wire(state, 'iago', 'PATCH', `/streams/${VERONA}`, { can_send_message_group: '5' }));
      expectError(r, state, 400, badRequest('can_send_message_group does not have the expected format'));
    });

    it('reports a topics_policy that is not an enum name (scenario)', () => {
      const r = check(wire(state, 'iago', 'PATCH', `/streams/${VERONA}`, { topics_policy: '2' }));
      expectError(r, state, 400, badRequest('Invalid topics_policy'));
    });

    it('reports a missing "new" key', () => {
      const r = check(
        wire(state, 'iago', 'PATCH', `/streams/${VERONA}`, { can_send_message_group: '{"old": 7}' }),
      );
      expectError(
        r,
        state,
        400,
        badRequest('can_send_message_group["new"] field is missing: Field required'),
      );
    });

    it('reports the alphabetically first invalid parameter', () => {
      const r = check(
        wire(state, 'iago', 'PATCH', `/streams/${VERONA}`, {
          is_private: 'yes',
          can_subscribe_group: '3',
          description: 'x',
        }),
      );
      expectError(r, state, 400, badRequest('can_subscribe_group does not have the expected format'));
    });

    it('reports non-JSON and non-boolean values', () => {
      expectError(
        check(wire(state, 'iago', 'PATCH', `/streams/${VERONA}`, { is_private: 'yes' })),
        state,
        400,
        badRequest('is_private is not valid JSON'),
      );
      expectError(
        check(wire(state, 'iago', 'PATCH', `/streams/${VERONA}`, { is_private: '1' })),
        state,
        400,
        badRequest('is_private is not a boolean'),
      );
      expectError(check(wire(state, null, 'PATCH', `/streams/${VERONA}`, {})), state, 401, {
        msg: 'Not logged in: API authentication or user session required',
        code: 'UNAUTHORIZED',
      });
    });

    it('reads an unquoted unlimited retention as invalid JSON', () => {
      const r = check(
        wire(state, 'desdemona', 'PATCH', `/streams/${VERONA}`, { message_retention_days: 'unlimited' }),
      );
      expectError(r, state, 400, badRequest('message_retention_days is not valid JSON'));
    });

    it('checks the description length before looking the channel up', () => {
      const long = 'x'.repeat(1025);
      expectError(
        call(state, 'hamlet', { stream_id: 999, description: long }),
        state,
        400,
        badRequest('description is too long (limit: 1024 characters)'),
      );
      expect(call(state, 'iago', { stream_id: VERONA, description: 'x'.repeat(1024) }).status).toBe(200);
    });

    it('lists unknown parameters as ignored on success', () => {
      const r = check(
        wire(state, 'iago', 'PATCH', `/streams/${VERONA}`, { folder_id: '1', zzz: '1', aaa: 'x' }),
      );
      expect(r.body).toEqual({ ...ok, ignored_parameters_unsupported: ['aaa', 'zzz'] });
    });

    it('answers success with no change and no events for an empty request', () => {
      const r = call(state, 'iago', { stream_id: VERONA });
      expect(r.body).toEqual(ok);
      expect(r.state).toBe(state);
      expect(r.events).toEqual([]);
    });
  });

  describe('new_name', () => {
    it('refuses the current name (scenario)', () => {
      expectError(
        call(state, 'iago', { stream_id: VERONA, new_name: 'Verona' }),
        state,
        400,
        badRequest('Channel already has that name.'),
      );
    });

    it('refuses a name in use with 409 (scenario)', () => {
      const r = check(wire(state, 'iago', 'PATCH', `/streams/${VERONA}`, { new_name: 'Denmark' }));
      expectError(r, state, 409, {
        msg: "Channel 'Denmark' already exists",
        code: 'CHANNEL_ALREADY_EXISTS',
        channel_name: 'Denmark',
      });
    });

    it('compares names case-insensitively, archived channels included', () => {
      expectError(call(state, 'iago', { stream_id: VERONA, new_name: 'dENMARK' }), state, 409, {
        msg: "Channel 'dENMARK' already exists",
        code: 'CHANNEL_ALREADY_EXISTS',
        channel_name: 'dENMARK',
      });
      expectError(call(state, 'iago', { stream_id: VERONA, new_name: 'Old Announcements' }), state, 409, {
        msg: "Channel 'Old Announcements' already exists",
        code: 'CHANNEL_ALREADY_EXISTS',
        channel_name: 'Old Announcements',
      });
    });

    it('allows a case-only rename (scenario)', () => {
      const r = check(wire(state, 'iago', 'PATCH', `/streams/${VERONA}`, { new_name: 'vERONA' }));
      expect(r.body).toEqual(ok);
      expect(channel(r, VERONA).name).toBe('vERONA');
      expect(r.state.channelsByName.get('verona')).toBe(VERONA);
      expect(r.events.map((e) => e.event)).toEqual([
        {
          type: 'stream',
          op: 'update',
          property: 'name',
          value: 'vERONA',
          stream_id: VERONA,
          name: 'Verona',
        },
      ]);
    });

    it('strips the name and refuses an empty one (scenario)', () => {
      expectError(
        call(state, 'iago', { stream_id: VERONA, new_name: '   ' }),
        state,
        400,
        badRequest("Channel name can't be empty."),
      );
      const r = call(state, 'iago', { stream_id: VERONA, new_name: '  Padua ' });
      expect(channel(r, VERONA).name).toBe('Padua');
    });

    it('refuses a name longer than the server limit', () => {
      expectError(
        call(state, 'iago', { stream_id: VERONA, new_name: 'n'.repeat(61) }),
        state,
        400,
        badRequest('Channel name too long (limit: 60 characters).'),
      );
      expect(call(state, 'iago', { stream_id: VERONA, new_name: 'n'.repeat(60) }).status).toBe(200);
      const small = edit(state, (d) => {
        d.server = { ...d.server, max_stream_name_length: 5 };
      });
      expectError(
        call(small, 'iago', { stream_id: VERONA, new_name: 'Padua!' }),
        small,
        400,
        badRequest('Channel name too long (limit: 5 characters).'),
      );
    });

    it('refuses an unprintable character with its position', () => {
      expectError(
        call(state, 'iago', { stream_id: VERONA, new_name: 'ab\u0007c' }),
        state,
        400,
        badRequest('Invalid character in channel name, at position 3.'),
      );
    });
  });

  describe('description', () => {
    it('replaces newlines with spaces and renders Markdown (scenario)', () => {
      const r = check(
        wire(state, 'iago', 'PATCH', `/streams/${VERONA}`, { description: 'a\nmulti\nline\ndescription' }),
      );
      expect(r.body).toEqual(ok);
      expect(channel(r, VERONA).description).toBe('a multi line description');
      expect(r.events).toEqual([
        {
          event: {
            type: 'stream',
            op: 'update',
            property: 'description',
            value: 'a multi line description',
            rendered_description: '<p>a multi line description</p>',
            stream_id: VERONA,
            name: 'Verona',
          },
          users: ALL_ACTIVE,
        },
      ]);
      expect(r.effects).toEqual([
        notice(
          VERONA,
          '@_**Iago|2** changed the description for this channel.\n\n* **Old description:**\n```` quote\nA city in Italy\n````\n* **New description:**\n```` quote\na multi line description\n````',
        ),
      ]);
    });

    it('writes and announces even an unchanged or empty description', () => {
      const same = call(state, 'iago', { stream_id: VERONA, description: 'A city in Italy' });
      expect(same.events).toHaveLength(1);
      expect(same.effects).toHaveLength(1);
      const empty = call(state, 'iago', { stream_id: VERONA, description: '' });
      expect(empty.events[0]!.event).toMatchObject({ value: '', rendered_description: '' });
      expect((empty.effects[0] as { content: string }).content).toContain(
        '```` quote\n*No description.*\n````',
      );
    });

    it('sends the update of a private channel to its metadata users only', () => {
      const r = call(state, 'desdemona', { stream_id: CORE_TEAM, description: '**core** `team` <b>' });
      expect(r.events).toEqual([
        {
          event: {
            type: 'stream',
            op: 'update',
            property: 'description',
            value: '**core** `team` <b>',
            rendered_description: '<p><strong>core</strong> <code>team</code> &lt;b&gt;</p>',
            stream_id: CORE_TEAM,
            name: 'core team',
          },
          users: [1, 2, 4, 11],
        },
      ]);
    });
  });

  describe('privacy', () => {
    it('refuses protected history on a public channel (scenario)', () => {
      const r = check(
        wire(state, 'iago', 'PATCH', `/streams/${VERONA}`, { history_public_to_subscribers: 'false' }),
      );
      expectError(r, state, 400, badRequest('Invalid parameters'));
    });

    it('refuses a private web-public channel', () => {
      expectError(
        call(state, 'desdemona', { stream_id: 4, is_private: true, history_public_to_subscribers: true }),
        state,
        400,
        badRequest('Invalid parameters'),
      );
    });

    it('refuses making a default channel private (scenario)', () => {
      expectError(
        call(state, 'iago', { stream_id: VERONA, is_private: true }),
        state,
        400,
        badRequest('A default channel cannot be private.'),
      );
    });

    it('makes a private channel public (scenario)', () => {
      const r = check(wire(state, 'desdemona', 'PATCH', `/streams/${SECRETS}`, { is_private: 'false' }));
      expect(r.body).toEqual(ok);
      expect(channel(r, SECRETS)).toMatchObject({
        invite_only: false,
        history_public_to_subscribers: true,
        is_web_public: false,
      });
      // Before: subscribers desdemona and cordelia, admins desdemona and iago; nobody else could see it.
      const gained = [3, 4, 6, 7, 8, 9, 11, 12, 13, 15, 16];
      expect(r.events.map((e) => e.users)).toEqual([gained, gained, [1, 2, 5]]);
      expect(r.events[0]!.event).toMatchObject({ type: 'stream', op: 'create', for_unarchiving: false });
      expect((r.events[0]!.event as unknown as { streams: unknown[] }).streams).toEqual([
        expect.objectContaining({
          stream_id: SECRETS,
          name: 'secrets',
          invite_only: false,
          history_public_to_subscribers: true,
          subscriber_count: 2,
        }),
      ]);
      expect(r.events[1]!.event).toEqual({
        type: 'subscription',
        op: 'peer_add',
        stream_ids: [SECRETS],
        user_ids: [1, 5],
      });
      expect(r.events[2]!.event).toEqual({
        type: 'stream',
        op: 'update',
        property: 'invite_only',
        value: false,
        history_public_to_subscribers: true,
        is_web_public: false,
        stream_id: SECRETS,
        name: 'secrets',
      });
      expect(r.effects).toEqual([
        notice(
          SECRETS,
          '@_**Desdemona|1** changed the [access permissions](/help/channel-permissions) for this channel from **Private, protected history** to **Public**.',
        ),
      ]);
    });

    it('makes a public channel private with protected history by default, telling who can still see it', () => {
      const r = call(state, 'iago', { stream_id: SCOTLAND, is_private: true });
      expect(channel(r, SCOTLAND)).toMatchObject({ invite_only: true, history_public_to_subscribers: false });
      // Subscribers 2,4,5,6,9, admins 1,2; hamlet also administers it.
      expect(r.events).toEqual([
        {
          event: {
            type: 'stream',
            op: 'update',
            property: 'invite_only',
            value: true,
            history_public_to_subscribers: false,
            is_web_public: false,
            stream_id: SCOTLAND,
            name: 'Scotland',
          },
          users: [1, 2, 4, 5, 6, 9],
        },
      ]);
      expect(r.effects).toEqual([
        notice(
          SCOTLAND,
          '@_**Iago|2** changed the [access permissions](/help/channel-permissions) for this channel from **Public** to **Private, protected history**.',
        ),
      ]);
      const shared = call(state, 'iago', {
        stream_id: SCOTLAND,
        is_private: true,
        history_public_to_subscribers: true,
      });
      expect(channel(shared, SCOTLAND)).toMatchObject({
        invite_only: true,
        history_public_to_subscribers: true,
      });
    });

    it('announces even an unchanged privacy', () => {
      const r = call(state, 'iago', { stream_id: SCOTLAND, is_private: false });
      expect(r.state.channels.get(SCOTLAND)).toEqual(state.channels.get(SCOTLAND));
      expect(r.events).toHaveLength(1);
      expect(r.effects).toEqual([
        notice(
          SCOTLAND,
          '@_**Iago|2** changed the [access permissions](/help/channel-permissions) for this channel from **Public** to **Public**.',
        ),
      ]);
    });

    it('changes the history of a private channel', () => {
      const r = call(state, 'desdemona', { stream_id: SECRETS, history_public_to_subscribers: true });
      expect(channel(r, SECRETS)).toMatchObject({ invite_only: true, history_public_to_subscribers: true });
      expect(r.events.map((e) => e.users)).toEqual([[1, 2, 5]]);
      expect((r.effects[0] as { content: string }).content).toContain(
        'from **Private, protected history** to **Private, shared history**.',
      );
    });

    it('requires content access to change privacy, even for an administrator', () => {
      expectError(
        call(state, 'iago', { stream_id: SECRETS, is_private: false }),
        state,
        400,
        badRequest('Channel content access is required.'),
      );
    });

    it('requires the realm permission to create public channels (scenario)', () => {
      const s = withRealm(state, { can_create_public_channel_group: G.nobody });
      expectError(
        call(s, 'desdemona', { stream_id: SECRETS, is_private: false }),
        s,
        400,
        badRequest('Insufficient permission'),
      );
    });

    it('requires the realm permission to create private channels', () => {
      const s = withRealm(state, { can_create_private_channel_group: G.owners });
      expectError(
        call(s, 'iago', { stream_id: SCOTLAND, is_private: true }),
        s,
        400,
        badRequest('Insufficient permission'),
      );
      expect(call(s, 'desdemona', { stream_id: SCOTLAND, is_private: true }).status).toBe(200);
    });

    it('refuses web-public channels when spectator access is off (scenario)', () => {
      const s = withRealm(state, { enable_spectator_access: false });
      expectError(
        call(s, 'desdemona', { stream_id: VERONA, is_web_public: true }),
        s,
        400,
        badRequest('Web-public channels are not enabled.'),
      );
      const off = edit(state, (d) => {
        d.server = { ...d.server, web_public_streams_enabled: false };
      });
      expectError(
        call(off, 'desdemona', { stream_id: VERONA, is_web_public: true }),
        off,
        400,
        badRequest('Web-public channels are not enabled.'),
      );
    });

    it('needs can_create_web_public_channel_group to make a channel web-public', () => {
      expectError(
        call(state, 'iago', { stream_id: VERONA, is_web_public: true }),
        state,
        400,
        badRequest('Insufficient permission'),
      );
      const r = call(state, 'desdemona', { stream_id: VERONA, is_web_public: true });
      expect(channel(r, VERONA).is_web_public).toBe(true);
      expect(r.events).toEqual([
        {
          event: {
            type: 'stream',
            op: 'update',
            property: 'invite_only',
            value: false,
            history_public_to_subscribers: true,
            is_web_public: true,
            stream_id: VERONA,
            name: 'Verona',
          },
          users: ALL_ACTIVE,
        },
      ]);
      expect((r.effects[0] as { content: string }).content).toContain('from **Public** to **Web-public**.');
      // Turning it off needs no realm permission.
      expect(channel(call(state, 'iago', { stream_id: 4, is_web_public: false }), 4).is_web_public).toBe(
        false,
      );
    });

    it('refuses protected history when can_create_topic_group is not everyone, on every request (scenario)', () => {
      const s = withChannel(state, SECRETS, (c) => {
        c.can_create_topic_group = G.moderators;
      });
      const r = call(s, 'iago', { stream_id: SECRETS, description: 'x' });
      expectError(r, s, 400, {
        msg: 'Unsupported parameter combination: history_public_to_subscribers, can_create_topic_group',
        code: 'BAD_REQUEST',
        parameters: 'history_public_to_subscribers, can_create_topic_group',
      });
    });

    it('refuses setting can_create_topic_group away from everyone while history is protected', () => {
      const r = call(state, 'desdemona', {
        stream_id: SECRETS,
        can_create_topic_group: { new: G.moderators },
      });
      expectError(r, state, 400, {
        msg: 'Unsupported parameter combination: history_public_to_subscribers, can_create_topic_group',
        code: 'BAD_REQUEST',
        parameters: 'history_public_to_subscribers, can_create_topic_group',
      });
      // Protecting the history in the same request is also refused (Zulip would have committed the history first).
      const shared = withChannel(state, SECRETS, (c) => {
        c.history_public_to_subscribers = true;
      });
      const r2 = call(shared, 'desdemona', {
        stream_id: SECRETS,
        history_public_to_subscribers: false,
        can_create_topic_group: { new: G.moderators },
      });
      expect(r2.status).toBe(400);
      expect(r2.state).toBe(shared);
    });
  });

  describe('is_default_stream', () => {
    it('is for organization administrators only (scenario)', () => {
      const s = withChannel(state, VERONA, (c) => {
        c.can_administer_channel_group = G.members;
      });
      expectError(
        call(s, 'hamlet', { stream_id: VERONA, is_default_stream: true }),
        s,
        400,
        badRequest('You do not have permission to change default channels.'),
      );
    });

    it('adds a default channel and tells every non-guest', () => {
      const r = check(wire(state, 'iago', 'PATCH', `/streams/${SCOTLAND}`, { is_default_stream: 'true' }));
      expect(r.body).toEqual(ok);
      expect([...r.state.defaultChannelIds.keys()]).toEqual([1, 2, 3]);
      expect(r.events).toEqual([
        { event: { type: 'default_streams', default_streams: [1, 2, 3] }, users: ACTIVE_NON_GUESTS },
      ]);
      expect(r.effects).toEqual([]);
    });

    it('sends nothing when the channel already is default, but always sends on removal', () => {
      const again = call(state, 'iago', { stream_id: VERONA, is_default_stream: true });
      expect(again.events).toEqual([]);
      expect(again.state).toBe(state);
      const removed = call(state, 'iago', { stream_id: SCOTLAND, is_default_stream: false });
      expect(removed.events).toEqual([
        { event: { type: 'default_streams', default_streams: [1, 2] }, users: ACTIVE_NON_GUESTS },
      ]);
      const r = call(state, 'iago', { stream_id: VERONA, is_default_stream: false });
      expect([...r.state.defaultChannelIds.keys()]).toEqual([2]);
    });

    it('refuses a private default channel', () => {
      expectError(
        call(state, 'iago', { stream_id: CORE_TEAM, is_default_stream: true }),
        state,
        400,
        badRequest('A default channel cannot be private.'),
      );
    });
  });

  describe('message_retention_days', () => {
    it('is for organization owners only (scenario)', () => {
      expectError(
        check(wire(state, 'iago', 'PATCH', `/streams/${VERONA}`, { message_retention_days: '2' })),
        state,
        400,
        {
          msg: 'Must be an organization owner',
          code: 'UNAUTHORIZED_PRINCIPAL',
        },
      );
    });

    it('refuses a bad string (scenario) and zero (scenario), owner check first', () => {
      const r = check(
        wire(state, 'desdemona', 'PATCH', `/streams/${VERONA}`, { message_retention_days: '"invalid"' }),
      );
      expectError(r, state, 400, {
        msg: "Bad value for 'message_retention_days': invalid",
        code: 'REQUEST_VARIABLE_INVALID',
        var_name: 'message_retention_days',
        bad_value: 'invalid',
      });
      const zero = check(
        wire(state, 'desdemona', 'PATCH', `/streams/${VERONA}`, { message_retention_days: '0' }),
      );
      expectError(zero, state, 400, {
        msg: "Bad value for 'message_retention_days': 0",
        code: 'REQUEST_VARIABLE_INVALID',
        var_name: 'message_retention_days',
        bad_value: 0,
      });
      expect(call(state, 'desdemona', { stream_id: VERONA, message_retention_days: -5 }).body).toMatchObject({
        bad_value: -5,
      });
      expect(
        call(state, 'iago', { stream_id: VERONA, message_retention_days: 'invalid' }).body,
      ).toMatchObject({ code: 'UNAUTHORIZED_PRINCIPAL' });
    });

    it('stores days, unlimited and the realm default, with an event and a notice', () => {
      const r = check(
        wire(state, 'desdemona', 'PATCH', `/streams/${VERONA}`, { message_retention_days: '30' }),
      );
      expect(channel(r, VERONA).message_retention_days).toBe(30);
      expect(r.events).toEqual([
        {
          event: {
            type: 'stream',
            op: 'update',
            property: 'message_retention_days',
            value: 30,
            stream_id: VERONA,
            name: 'Verona',
          },
          users: ALL_ACTIVE,
        },
      ]);
      // The realm keeps messages forever, so the old (realm default) period reads "Forever".
      expect(r.effects).toEqual([
        notice(
          VERONA,
          '@_**Desdemona|1** has changed the [message retention period](/help/message-retention-policy) for this channel:\n' +
            '* **Old retention period**: Forever\n* **New retention period**: 30 days\n\n' +
            'Messages in this channel will now be automatically deleted 30 days after they are sent.',
        ),
      ]);
      const unlimited = call(r.state, 'desdemona', {
        stream_id: VERONA,
        message_retention_days: 'unlimited',
      });
      expect(channel(unlimited, VERONA).message_retention_days).toBe(-1);
      expect(unlimited.effects).toEqual([
        notice(
          VERONA,
          '@_**Desdemona|1** has changed the [message retention period](/help/message-retention-policy) for this channel:\n' +
            '* **Old retention period**: 30 days\n* **New retention period**: Forever\n\n' +
            'Messages in this channel will now be retained forever.',
        ),
      ]);
      const back = check(
        wire(unlimited.state, 'desdemona', 'PATCH', `/streams/${VERONA}`, {
          message_retention_days: '"realm_default"',
        }),
      );
      expect(channel(back, VERONA).message_retention_days).toBeNull();
      expect(back.events[0]!.event).toMatchObject({ property: 'message_retention_days', value: null });
    });
  });

  describe('is_archived', () => {
    it('refuses unarchiving an active channel (scenario)', () => {
      expectError(
        call(state, 'iago', { stream_id: VERONA, is_archived: false }),
        state,
        400,
        badRequest('Channel is not currently deactivated'),
      );
    });

    it('ignores is_archived=true (scenario)', () => {
      const r = check(wire(state, 'iago', 'PATCH', `/streams/${VERONA}`, { is_archived: 'true' }));
      expect(r.body).toEqual(ok);
      expect(r.state).toBe(state);
      expect(r.events).toEqual([]);
    });

    it('unarchives an archived channel', () => {
      const r = call(state, 'iago', { stream_id: OLD_ANNOUNCEMENTS, is_archived: false });
      expect(r.body).toEqual(ok);
      expect(channel(r, OLD_ANNOUNCEMENTS).is_archived).toBe(false);
      expect(r.events.map((e) => e.users)).toEqual([
        ALL_ACTIVE.filter((id) => id !== cast.polonius),
        ACTIVE_NON_GUESTS,
      ]);
      expect(r.events[0]!.event).toEqual({
        type: 'stream',
        op: 'update',
        property: 'is_archived',
        value: false,
        stream_id: OLD_ANNOUNCEMENTS,
        name: 'old announcements',
      });
      expect(r.events[1]!.event).toMatchObject({ type: 'stream', op: 'create', for_unarchiving: true });
      expect(r.effects).toEqual([
        notice(OLD_ANNOUNCEMENTS, 'Channel #**old announcements** has been unarchived.'),
      ]);
    });

    it('refuses unarchiving a private channel without subscribers', () => {
      const empty = withChannel(
        edit(state, (d) => {
          d.subscriptions = d.subscriptions.delete(OLD_ANNOUNCEMENTS);
        }),
        OLD_ANNOUNCEMENTS,
        (c) => {
          c.invite_only = true;
          c.history_public_to_subscribers = true;
        },
      );
      expectError(
        call(empty, 'iago', { stream_id: OLD_ANNOUNCEMENTS, is_archived: false }),
        empty,
        400,
        badRequest('Channel is private and have no subscribers'),
      );
      const odd = withChannel(state, OLD_ANNOUNCEMENTS, (c) => {
        c.invite_only = true;
        c.is_web_public = true;
      });
      // A private web-public channel fails Zulip's first consistency check before anything else.
      expectError(
        call(odd, 'iago', { stream_id: OLD_ANNOUNCEMENTS, is_archived: false }),
        odd,
        400,
        badRequest('Invalid parameters'),
      );
      const priv = withChannel(state, OLD_ANNOUNCEMENTS, (c) => {
        c.invite_only = true;
      });
      const r = call(priv, 'iago', { stream_id: OLD_ANNOUNCEMENTS, is_archived: false });
      expect(channel(r, OLD_ANNOUNCEMENTS)).toMatchObject({ is_archived: false, invite_only: true });
      expect(r.events.map((e) => e.users)).toEqual([
        [1, 2, 4],
        [1, 2, 4],
      ]);
    });
  });

  describe('topics_policy', () => {
    it('refuses empty_topic_only while named topics exist (scenario)', () => {
      const r = check(
        wire(state, 'desdemona', 'PATCH', `/streams/${VERONA}`, { topics_policy: 'empty_topic_only' }),
      );
      expectError(r, state, 400, {
        msg: 'To enable this configuration, all messages in this channel must be in the general chat topic. Consider renaming or deleting other topics.',
        code: 'BAD_REQUEST',
        empty_topic_display_name: 'general chat',
      });
    });

    it('needs the realm permission, even for a channel administrator (scenario)', () => {
      const s = withRealm(
        withChannel(state, VERONA, (c) => {
          c.can_administer_channel_group = G.members;
        }),
        { can_set_topics_policy_group: G.nobody },
      );
      expectError(
        call(s, 'shiva', { stream_id: VERONA, topics_policy: 'allow_empty_topic' }),
        s,
        400,
        badRequest('Insufficient permission'),
      );
      // Going back to inherit needs no permission; administrators always may.
      expect(call(s, 'shiva', { stream_id: VERONA, topics_policy: 'inherit' }).status).toBe(200);
      expect(call(s, 'iago', { stream_id: VERONA, topics_policy: 'allow_empty_topic' }).status).toBe(200);
    });

    it('applies a new policy with an event and a notice', () => {
      const r = check(
        wire(state, 'iago', 'PATCH', `/streams/${VERONA}`, { topics_policy: 'disable_empty_topic' }),
      );
      expect(channel(r, VERONA).topics_policy).toBe('disable_empty_topic');
      expect(r.events).toEqual([
        {
          event: {
            type: 'stream',
            op: 'update',
            property: 'topics_policy',
            value: 'disable_empty_topic',
            stream_id: VERONA,
            name: 'Verona',
          },
          users: ALL_ACTIVE,
        },
      ]);
      expect(r.effects).toEqual([
        notice(
          VERONA,
          '@_**Iago|2** changed the "Allow posting to the *general chat* topic?" setting from **Automatic** to **No *general chat* topic**.',
        ),
      ]);
    });

    it('is a no-op for the current policy, and posts to the empty topic once only it is allowed', () => {
      const same = call(state, 'iago', { stream_id: GENERAL_CHAT_ONLY, topics_policy: 'empty_topic_only' });
      expect(same.state).toBe(state);
      expect(same.events).toEqual([]);
      const r = call(state, 'iago', { stream_id: GENERAL_CHAT_ONLY, topics_policy: 'allow_empty_topic' });
      expect(r.effects).toEqual([
        notice(
          GENERAL_CHAT_ONLY,
          '@_**Iago|2** changed the "Allow posting to the *general chat* topic?" setting from **Only *general chat* topic allowed** to ***general chat* topic allowed**.',
        ),
      ]);
      const desc = call(state, 'iago', { stream_id: GENERAL_CHAT_ONLY, description: 'd' });
      expect((desc.effects[0] as { topic: string }).topic).toBe('');
    });

    it('allows empty_topic_only when every message is in the empty topic', () => {
      const s = withChannel(state, GENERAL_CHAT_ONLY, (c) => {
        c.topics_policy = 'inherit';
      });
      const r = call(s, 'iago', { stream_id: GENERAL_CHAT_ONLY, topics_policy: 'empty_topic_only' });
      expect(r.status).toBe(200);
      expect((r.effects[0] as { topic: string }).topic).toBe('');
    });
  });

  describe('folder_id', () => {
    it('clears the folder with null (scenario)', () => {
      const r = check(wire(state, 'desdemona', 'PATCH', `/streams/${VERONA}`, { folder_id: 'null' }));
      expect(r.body).toEqual(ok);
      expect(channel(r, VERONA).folder_id).toBeNull();
      expect(r.events).toEqual([
        {
          event: {
            type: 'stream',
            op: 'update',
            property: 'folder_id',
            value: null,
            stream_id: VERONA,
            name: 'Verona',
          },
          users: ALL_ACTIVE,
        },
      ]);
      expect(r.effects).toEqual([]);
    });

    it('moves to another folder, an archived one included, and refuses unknown folders', () => {
      expect(channel(call(state, 'iago', { stream_id: VERONA, folder_id: 1 }), VERONA).folder_id).toBe(1);
      expect(channel(call(state, 'iago', { stream_id: VERONA, folder_id: 3 }), VERONA).folder_id).toBe(3);
      expectError(
        call(state, 'iago', { stream_id: VERONA, folder_id: 99 }),
        state,
        400,
        badRequest('Invalid channel folder ID'),
      );
    });
  });

  describe('group settings', () => {
    it('refuses an old value that does not match (scenario)', () => {
      const s = withChannel(state, VERONA, (c) => {
        c.can_send_message_group = HAMLETCHARACTERS;
      });
      const r = check(
        wire(s, 'iago', 'PATCH', `/streams/${VERONA}`, {
          can_send_message_group: JSON.stringify({
            new: { direct_members: [cast.hamlet], direct_subgroups: [G.moderators] },
            old: G.moderators,
          }),
        }),
      );
      expectError(r, s, 400, {
        msg: "'old' value does not match the expected value.",
        code: 'EXPECTATION_MISMATCH',
        field_name: 'old',
      });
    });

    it('checks old even when new is the current value', () => {
      expectError(
        call(state, 'iago', {
          stream_id: VERONA,
          can_send_message_group: { new: G.everyone, old: G.members },
        }),
        state,
        400,
        {
          msg: "'old' value does not match the expected value.",
          code: 'EXPECTATION_MISMATCH',
          field_name: 'old',
        },
      );
    });

    it('stores an empty anonymous group as role:nobody (scenario)', () => {
      const r = check(
        wire(state, 'iago', 'PATCH', `/streams/${VERONA}`, {
          can_send_message_group: JSON.stringify({ new: { direct_members: [], direct_subgroups: [] } }),
        }),
      );
      expect(r.body).toEqual(ok);
      expect(channel(r, VERONA).can_send_message_group).toBe(G.nobody);
      expect(r.events).toEqual([
        {
          event: {
            type: 'stream',
            op: 'update',
            property: 'can_send_message_group',
            value: G.nobody,
            stream_id: VERONA,
            name: 'Verona',
          },
          users: ALL_ACTIVE,
        },
      ]);
      expect(r.effects).toEqual([
        notice(
          VERONA,
          '@_**Iago|2** changed the [posting permissions](/help/channel-posting-policy) for this channel:\n\n* **Old**: @_*role:everyone*\n* **New**: @_*role:nobody*\n',
        ),
      ]);
    });

    it('never allows role:internet (scenario)', () => {
      const r = check(
        wire(state, 'iago', 'PATCH', `/streams/${VERONA}`, {
          can_send_message_group: JSON.stringify({ new: G.internet }),
        }),
      );
      expectError(
        r,
        state,
        400,
        badRequest("'can_send_message_group' setting cannot be set to 'role:internet' group."),
      );
    });

    it('refuses role:everyone where guests may not hold the permission', () => {
      expectError(
        call(state, 'iago', { stream_id: VERONA, can_subscribe_group: { new: G.everyone } }),
        state,
        400,
        badRequest("'can_subscribe_group' setting cannot be set to 'role:everyone' group."),
      );
    });

    it('refuses unknown groups and users', () => {
      expectError(
        call(state, 'iago', { stream_id: VERONA, can_resolve_topics_group: { new: 999 } }),
        state,
        400,
        badRequest('Invalid user group'),
      );
      expectError(
        call(state, 'iago', {
          stream_id: VERONA,
          can_resolve_topics_group: { new: { direct_members: [4, 14], direct_subgroups: [] } },
        }),
        state,
        400,
        badRequest('Invalid user ID: 14'),
      );
      expectError(
        call(state, 'iago', {
          stream_id: VERONA,
          can_resolve_topics_group: { new: { direct_members: [4], direct_subgroups: [998] } },
        }),
        state,
        400,
        badRequest('Invalid user group ID: 998'),
      );
    });

    it('sends the legacy stream_post_policy events when the posting policy changes', () => {
      const r = call(state, 'iago', { stream_id: VERONA, can_send_message_group: { new: G.administrators } });
      expect(r.events.map((e) => [e.event, e.users])).toEqual([
        [
          {
            type: 'stream',
            op: 'update',
            property: 'can_send_message_group',
            value: G.administrators,
            stream_id: VERONA,
            name: 'Verona',
          },
          ALL_ACTIVE,
        ],
        [
          {
            type: 'stream',
            op: 'update',
            property: 'stream_post_policy',
            value: 2,
            stream_id: VERONA,
            name: 'Verona',
          },
          ALL_ACTIVE,
        ],
        [
          {
            type: 'stream',
            op: 'update',
            property: 'is_announcement_only',
            value: true,
            stream_id: VERONA,
            name: 'Verona',
          },
          ALL_ACTIVE,
        ],
      ]);
      const anon = call(state, 'iago', {
        stream_id: VERONA,
        can_send_message_group: {
          new: { direct_members: [cast.othello, cast.hamlet], direct_subgroups: [LEADERSHIP, G.moderators] },
        },
      });
      expect(channel(anon, VERONA).can_send_message_group).toEqual({
        direct_members: [4, 6],
        direct_subgroups: [G.moderators, LEADERSHIP],
      });
      // everyone → an anonymous group keeps the legacy policy "everyone": no legacy events.
      expect(
        anon.events.map((e) => e.event.type === 'stream' && 'property' in e.event && e.event.property),
      ).toEqual(['can_send_message_group']);
      expect(anon.effects).toEqual([
        notice(
          VERONA,
          '@_**Iago|2** changed the [posting permissions](/help/channel-posting-policy) for this channel:\n\n' +
            '* **Old**: @_*role:everyone*\n' +
            '* **New**: @_*role:moderators*, @_*leadership*, @_**King Hamlet|4**, @_**Othello, the Moor of Venice|6**\n',
        ),
      ]);
    });

    it('treats an unchanged value as a no-op (set comparison)', () => {
      const s = withChannel(state, VERONA, (c) => {
        c.can_resolve_topics_group = { direct_members: [4, 6], direct_subgroups: [LEADERSHIP] };
      });
      const r = call(s, 'iago', {
        stream_id: VERONA,
        can_resolve_topics_group: {
          new: { direct_members: [6, 4], direct_subgroups: [LEADERSHIP] },
          old: { direct_members: [6, 4], direct_subgroups: [LEADERSHIP] },
        },
      });
      expect(r.body).toEqual(ok);
      expect(r.state).toBe(s);
      expect(r.events).toEqual([]);
    });

    it('gives metadata access: create and peer_add to users gaining it, delete to users losing it', () => {
      const r = call(state, 'desdemona', {
        stream_id: SECRETS,
        can_subscribe_group: { new: HAMLETCHARACTERS },
      });
      // Before: subscribers 1,5 and admins 1,2. Hamlet gains access (cordelia already had it).
      expect(r.events.map((e) => [e.event.type, 'op' in e.event ? e.event.op : '', e.users])).toEqual([
        ['stream', 'update', [1, 2, 5]],
        ['stream', 'create', [4]],
        ['subscription', 'peer_add', [4]],
      ]);
      expect(r.events[0]!.event).toEqual({
        type: 'stream',
        op: 'update',
        property: 'can_subscribe_group',
        value: HAMLETCHARACTERS,
        stream_id: SECRETS,
        name: 'secrets',
      });
      expect(r.events[2]!.event).toEqual({
        type: 'subscription',
        op: 'peer_add',
        stream_ids: [SECRETS],
        user_ids: [1, 5],
      });
      const back = call(r.state, 'desdemona', { stream_id: SECRETS, can_subscribe_group: { new: G.nobody } });
      expect(back.events).toEqual([
        {
          event: {
            type: 'stream',
            op: 'update',
            property: 'can_subscribe_group',
            value: G.nobody,
            stream_id: SECRETS,
            name: 'secrets',
          },
          users: [1, 2, 5],
        },
        {
          event: {
            type: 'stream',
            op: 'delete',
            streams: [{ stream_id: SECRETS }],
            stream_ids: [SECRETS],
            for_archiving: false,
          },
          users: [4],
        },
      ]);
    });

    it('requires content access for the settings that grant it, even for administrators', () => {
      expectError(
        call(state, 'iago', { stream_id: SECRETS, can_add_subscribers_group: { new: G.members } }),
        state,
        400,
        badRequest('Channel content access is required.'),
      );
      // Other settings only need the right to administer.
      expect(
        call(state, 'iago', { stream_id: SECRETS, can_remove_subscribers_group: { new: G.moderators } })
          .status,
      ).toBe(200);
    });

    it('needs can_set_delete_message_policy_group for the delete settings, even as a no-op (scenario)', () => {
      const s = withChannel(state, VERONA, (c) => {
        c.can_administer_channel_group = G.members;
      });
      expectError(
        call(s, 'hamlet', { stream_id: VERONA, can_delete_any_message_group: { new: G.owners } }),
        s,
        400,
        badRequest('Insufficient permission'),
      );
      expectError(
        call(s, 'hamlet', { stream_id: VERONA, can_delete_own_message_group: { new: G.nobody } }),
        s,
        400,
        badRequest('Insufficient permission'),
      );
      expect(
        call(s, 'shiva', { stream_id: VERONA, can_delete_own_message_group: { new: G.members } }).status,
      ).toBe(200);
    });

    it('applies every group setting with its own event', () => {
      for (const name of CHANNEL_GROUP_SETTING_NAMES) {
        const r = call(state, 'desdemona', { stream_id: VERONA, [name]: { new: HAMLETCHARACTERS } });
        expect(r.body).toEqual(ok);
        expect(channel(r, VERONA)[name]).toBe(HAMLETCHARACTERS);
        expect(r.events[0]!.event).toMatchObject({
          type: 'stream',
          op: 'update',
          property: name,
          value: HAMLETCHARACTERS,
        });
      }
    });
  });

  describe('all or nothing', () => {
    it('leaves the description unchanged when the rename fails (scenario, deliberate difference)', () => {
      // Zulip commits the description (with its event and notice) before failing on the name.
      const r = call(state, 'iago', { stream_id: VERONA, description: 'New text', new_name: 'Verona' });
      expectError(r, state, 400, badRequest('Channel already has that name.'));
    });

    it('applies several changes in Zulip order, events in that order', () => {
      const r = call(state, 'desdemona', {
        stream_id: VERONA,
        can_send_message_group: { new: G.members },
        description: 'New',
        folder_id: null,
        new_name: 'Padua',
        topics_policy: 'allow_empty_topic',
        message_retention_days: 10,
      });
      expect(r.body).toEqual(ok);
      expect(r.events.map((e) => (e.event as { property: string }).property)).toEqual([
        'topics_policy',
        'message_retention_days',
        'description',
        'name',
        'folder_id',
        'can_send_message_group',
      ]);
      expect(r.events.map((e) => (e.event as { name: string }).name)).toEqual([
        'Verona',
        'Verona',
        'Verona',
        'Verona',
        'Padua',
        'Padua',
      ]);
      expect(r.effects).toHaveLength(5);
    });
  });

  describe('properties', () => {
    const actors: Actor[] = [...Object.values(cast).map((userId) => ({ userId })), { anonymous: true }];
    const settingName = fc.constantFrom<ChannelGroupSettingName>(...CHANNEL_GROUP_SETTING_NAMES);
    const groupValue = fc.oneof(
      fc.constantFrom(1, 2, 3, 4, 5, 6, 7, 8, 101, 102, 103, 999),
      fc.record({
        direct_members: fc.array(fc.integer({ min: 0, max: 20 })),
        direct_subgroups: fc.array(fc.integer({ min: 0, max: 110 })),
      }),
    );
    const shapedParams = fc.record(
      {
        stream_id: fc.oneof(fc.integer({ min: 0, max: 12 }), fc.anything()),
        description: fc.oneof(fc.string(), fc.anything()),
        new_name: fc.oneof(fc.constantFrom('Verona', 'Denmark', 'x', ' ', 'NEW'), fc.anything()),
        is_private: fc.oneof(fc.boolean(), fc.anything()),
        is_web_public: fc.boolean(),
        history_public_to_subscribers: fc.boolean(),
        is_default_stream: fc.boolean(),
        is_archived: fc.boolean(),
        message_retention_days: fc.oneof(
          fc.integer({ min: -2, max: 5 }),
          fc.constantFrom('unlimited', 'realm_default', 'x'),
          fc.anything(),
        ),
        folder_id: fc.oneof(fc.constantFrom(null, 1, 2, 3, 9), fc.anything()),
        topics_policy: fc.oneof(
          fc.constantFrom('inherit', 'allow_empty_topic', 'disable_empty_topic', 'empty_topic_only', 'x'),
          fc.anything(),
        ),
      },
      { requiredKeys: [] },
    );
    const withSetting = fc
      .tuple(
        shapedParams,
        fc.option(fc.tuple(settingName, groupValue, fc.option(groupValue, { nil: undefined }))),
      )
      .map(([p, s]) =>
        s === null ? p : { ...p, [s[0]]: s[2] === undefined ? { new: s[1] } : { new: s[1], old: s[2] } },
      );

    it('never throws; errors keep the state and send nothing', () => {
      fc.assert(
        fc.property(fc.constantFrom(...actors), fc.oneof(withSetting, fc.anything()), (actor, params) => {
          const r = loose(editChannel)(state, actor, params, testCtx());
          if (r.status !== 200) {
            expect(r.state).toBe(state);
            expect(r.events).toEqual([]);
            expect(r.effects).toEqual([]);
          }
          for (const e of r.events) expect(e.users.length).toBeGreaterThan(0);
        }),
        { numRuns: 200 },
      );
    });

    it('never lets an actor outside every allowed group (and not an organization administrator) change anything', () => {
      // Verona's administrators are nobody; Scotland's are {hamlet}; core team's are {desdemona}.
      const outsiders: Array<[CastName, number]> = [
        ['hamlet', VERONA],
        ['shiva', VERONA],
        ['polonius', VERONA],
        ['aaron', VERONA],
        ['cordelia', SCOTLAND],
        ['othello', SCOTLAND],
        ['polonius', SCOTLAND],
        ['hamlet', CORE_TEAM],
        ['defaultBot', CORE_TEAM],
      ];
      fc.assert(
        fc.property(fc.constantFrom(...outsiders), withSetting, ([who, streamId], params) => {
          const r = loose(editChannel)(state, as(who), { ...params, stream_id: streamId }, testCtx());
          expect(r.status).not.toBe(200);
          expect(r.state).toBe(state);
          expect(r.events).toEqual([]);
        }),
        { numRuns: 200 },
      );
    });

    it('renders Markdown without raw HTML from the input', () => {
      fc.assert(
        fc.property(fc.string(), (text) => {
          const html = renderMarkdown(text);
          expect(html.replace(/<\/?(p|strong|em|code|br)>|<a href="[^"<>]*">|<\/a>/g, '')).not.toMatch(
            /[<>]/,
          );
        }),
        { numRuns: 200 },
      );
    });
  });

  it('keeps users deactivated after the snapshot out of the recipients', () => {
    const hamlet = state.users.get(cast.hamlet)!;
    const s = edit(state, (d) => putUser(d, { ...hamlet, is_active: false }));
    const r = call(withSubscription(s, VERONA, cast.hamlet), 'iago', { stream_id: VERONA, folder_id: null });
    expect(r.events[0]!.users).not.toContain(cast.hamlet);
  });
});
