import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/context';
import type { OpResult } from '../../src/core/result';
import { createRealm } from '../../src/core/snapshot/create';
import type { RealmState } from '../../src/core/state';
import { editScheduledMessage } from '../../src/ops/scheduled/editScheduledMessage';
import { expectValidEvent, expectValidResponse } from '../support/openapi';
import { ACTORS, arbParams, expectLawful } from '../support/op-laws';
import { as, cast, devRealm, devSnapshot, testCtx, wire, type CastName } from '../support/realm';
import { loose } from '../support/loose';

const OP = 'update-scheduled-message';
const state = devRealm();
const NOW = 1795219200;
const TOMORROW = NOW + 86400;
/** Hamlet's scheduled messages in the fixture, and Cordelia's. */
const TO_VERONA = 1; // stream Verona, topic "lunch", "Lunch at noon?"
const TO_CORDELIA = 2; // direct to [5], "Happy birthday!"
const FAILED = 3; // stream Denmark, topic "castle", failed
const CORDELIAS = 4;
const CH = {
  verona: 1,
  denmark: 2,
  rome: 4,
  venice: 5,
  coreTeam: 6,
  secrets: 7,
  archived: 8,
  generalOnly: 9,
} as const;

type Snapshot = ReturnType<typeof devSnapshot>;
function realmWith(change: (snap: Snapshot) => void): RealmState {
  const snap = devSnapshot();
  change(snap);
  return createRealm(snap, { random: seededRandom(1) });
}
// Loose rows: the tests write records the engine must refuse or repair.
const rows = (snap: Snapshot, key: 'scheduled_messages' | 'subscriptions' | 'channels') =>
  snap[key] as Array<Record<string, unknown>>;
const realmSettings = (snap: Snapshot) => snap['realm'] as Record<string, unknown>;
/** Adds a scheduled message (id 10) sent by `sender_id`. */
function withScheduled(snap: Snapshot, message: Record<string, unknown>): void {
  rows(snap, 'scheduled_messages').push({
    scheduled_message_id: 10,
    content: 'Hello',
    scheduled_delivery_timestamp: TOMORROW,
    ...message,
  });
}

function ok(r: OpResult): OpResult {
  expect(r.body).toMatchObject({ result: 'success', msg: '' });
  expect(r.status).toBe(200);
  expectValidResponse(OP, 200, r.body);
  for (const e of r.events) expectValidEvent(e.event);
  expect(r.effects).toEqual([]);
  return r;
}

function refused(
  r: OpResult,
  before: RealmState,
  msg: string,
  code = 'BAD_REQUEST',
  extra: object = {},
  status = 400,
): void {
  expect(r.body).toEqual({ result: 'error', msg, code, ...extra });
  expect(r.status).toBe(status);
  expectValidResponse(OP, status, r.body);
  expect(r.state).toBe(before);
  expect(r.events).toEqual([]);
  expect(r.effects).toEqual([]);
}

const edit = (s: RealmState, who: CastName, params: Record<string, unknown>) =>
  loose(editScheduledMessage)(s, as(who), params, testCtx());
const patch = (s: RealmState, who: CastName, id: number, params: Record<string, string>) =>
  wire(s, who, 'PATCH', `/scheduled_messages/${id}`, params);
/** The one event every successful edit sends: the whole message, to its sender. */
const updated = (sender: number, scheduled_message: Record<string, unknown>) => [
  { event: { type: 'scheduled_messages', op: 'update', scheduled_message }, users: [sender] },
];
const veronaLunch = {
  scheduled_message_id: TO_VERONA,
  to: CH.verona,
  type: 'stream',
  content: 'Lunch at noon?',
  rendered_content: '<p>Lunch at noon?</p>',
  topic: 'lunch',
  scheduled_delivery_timestamp: 1893456000,
  failed: false,
};
const notFound = (r: OpResult, before: RealmState) =>
  refused(r, before, 'Scheduled message does not exist', 'BAD_REQUEST', {}, 404);
const future = 'Scheduled delivery time must be in the future.';

describe('editScheduledMessage', () => {
  describe('scenarios', () => {
    it('needs something to change (scenario: nothing to change)', () => {
      refused(patch(state, 'hamlet', TO_VERONA, {}), state, 'Nothing to change');
      refused(patch(state, 'hamlet', 999999, { unknown: '1' }), state, 'Nothing to change');
    });

    it('needs a topic when the type becomes channel (scenario: channel type without topic)', () => {
      refused(
        patch(state, 'hamlet', TO_VERONA, { type: 'channel', to: String(CH.verona) }),
        state,
        'Topic required when updating scheduled message type to channel.',
      );
      refused(
        edit(state, 'hamlet', { scheduled_message_id: TO_CORDELIA, type: 'stream', to: CH.verona }),
        state,
        'Topic required when updating scheduled message type to channel.',
      );
    });

    it('checks the time before looking the message up (scenario: past timestamp)', () => {
      refused(
        patch(state, 'hamlet', 999999, { scheduled_delivery_timestamp: String(NOW - 86400) }),
        state,
        future,
      );
      refused(
        patch(state, 'hamlet', CORDELIAS, { scheduled_delivery_timestamp: String(NOW) }),
        state,
        future,
      );
    });

    it('refuses an unknown type (scenario: invalid type value)', () => {
      refused(
        patch(state, 'hamlet', TO_VERONA, { type: 'email', to: '[1]' }),
        state,
        'Invalid type: Value error, Not in the list of possible values',
      );
    });

    it('refuses a list for a channel message (scenario: list recipient for a stream message)', () => {
      refused(patch(state, 'hamlet', TO_VERONA, { to: '[1,2]' }), state, 'Invalid data type for channel ID');
      refused(patch(state, 'hamlet', TO_VERONA, { to: '[1]' }), state, 'Invalid data type for channel ID');
    });

    it('ignores a topic on a direct message (scenario: topic edit on a direct scheduled message is ignored)', () => {
      const r = ok(patch(state, 'hamlet', TO_CORDELIA, { topic: 'Direct message topic' }));
      expect(r.body).toEqual({ result: 'success', msg: '' });
      expect(r.state.scheduledMessages.get(TO_CORDELIA)).toEqual(state.scheduledMessages.get(TO_CORDELIA));
      expect(r.events).toEqual(
        updated(cast.hamlet, {
          scheduled_message_id: TO_CORDELIA,
          to: [cast.cordelia],
          type: 'private',
          content: 'Happy birthday!',
          rendered_content: '<p>Happy birthday!</p>',
          scheduled_delivery_timestamp: 1893459600,
          failed: false,
        }),
      );
    });

    it('edits content and time, keeping the topic (scenario: edit content and time)', () => {
      const at = NOW + 3 * 86400;
      const r = ok(
        patch(state, 'hamlet', TO_VERONA, {
          content: 'Edited test message',
          scheduled_delivery_timestamp: String(at),
        }),
      );
      expect(r.state.scheduledMessages.get(TO_VERONA)).toEqual({
        ...state.scheduledMessages.get(TO_VERONA)!,
        content: 'Edited test message',
        scheduled_delivery_timestamp: at,
      });
      expect(r.events).toEqual(
        updated(cast.hamlet, {
          ...veronaLunch,
          content: 'Edited test message',
          rendered_content: '<p>Edited test message</p>',
          scheduled_delivery_timestamp: at,
        }),
      );
      expect(state.scheduledMessages.get(TO_VERONA)!.content).toBe('Lunch at noon?');
    });

    it('needs a new time for a failed message (scenario: failed message needs new time)', () => {
      refused(patch(state, 'hamlet', FAILED, { topic: 'Failed to send' }), state, future);
      refused(patch(state, 'hamlet', FAILED, { content: 'again' }), state, future);
    });

    it('clears the failure when rescheduled (scenario: rescheduling clears failure)', () => {
      const r = ok(patch(state, 'hamlet', FAILED, { scheduled_delivery_timestamp: String(NOW + 3600) }));
      expect(r.state.scheduledMessages.get(FAILED)).toEqual({
        ...state.scheduledMessages.get(FAILED)!,
        failed: false,
        scheduled_delivery_timestamp: NOW + 3600,
      });
      expect(r.events).toEqual(
        updated(cast.hamlet, {
          scheduled_message_id: FAILED,
          to: CH.denmark,
          type: 'stream',
          content: 'This one failed',
          rendered_content: '<p>This one failed</p>',
          topic: 'castle',
          scheduled_delivery_timestamp: NOW + 3600,
          failed: false,
        }),
      );
    });
  });

  describe('which message', () => {
    it("answers 404 for another user's message and for an unknown id", () => {
      notFound(patch(state, 'hamlet', CORDELIAS, { content: 'mine now' }), state);
      notFound(patch(state, 'hamlet', 999999, { content: 'x' }), state);
      notFound(edit(state, 'iago', { scheduled_message_id: TO_VERONA, content: 'x' }), state);
      ok(edit(state, 'cordelia', { scheduled_message_id: CORDELIAS, content: 'x' }));
    });

    it('refuses a message already sent', () => {
      const s = realmWith((snap) =>
        withScheduled(snap, { sender_id: 4, type: 'stream', to: 1, topic: 't', delivered: true }),
      );
      refused(
        edit(s, 'hamlet', { scheduled_message_id: 10, content: 'x' }),
        s,
        'Scheduled message was already sent',
      );
    });

    it('requires the time to be strictly in the future (ctx.now)', () => {
      refused(
        edit(state, 'hamlet', { scheduled_delivery_timestamp: NOW, scheduled_message_id: TO_VERONA }),
        state,
        future,
      );
      const r = ok(
        editScheduledMessage(
          state,
          as('hamlet'),
          { scheduled_message_id: TO_VERONA, scheduled_delivery_timestamp: NOW + 1 },
          testCtx(),
        ),
      );
      expect(r.state.scheduledMessages.get(TO_VERONA)!.scheduled_delivery_timestamp).toBe(NOW + 1);
      refused(
        editScheduledMessage(
          state,
          as('hamlet'),
          { scheduled_message_id: TO_VERONA, scheduled_delivery_timestamp: NOW + 1 },
          testCtx({ now: NOW + 1 }),
        ),
        state,
        future,
      );
    });
  });

  describe('parameters', () => {
    it('needs `to` with a type change', () => {
      refused(
        patch(state, 'hamlet', TO_VERONA, { type: 'direct' }),
        state,
        'Recipient required when updating type of scheduled message.',
      );
      // Checked before the topic rule.
      refused(
        patch(state, 'hamlet', TO_VERONA, { type: 'channel' }),
        state,
        'Recipient required when updating type of scheduled message.',
      );
    });

    it('reports a `to` of the wrong shape against its first branch', () => {
      refused(patch(state, 'hamlet', TO_VERONA, { to: '["a"]' }), state, 'to["int"] is not an integer');
      refused(patch(state, 'hamlet', TO_VERONA, { to: '"5"' }), state, 'to["int"] is not an integer');
      refused(patch(state, 'hamlet', TO_VERONA, { to: 'Verona' }), state, 'to is not valid JSON');
      refused(
        edit(state, 'hamlet', { scheduled_message_id: TO_VERONA, to: 1.5 }),
        state,
        'to["int"] is not an integer',
      );
    });

    it('parses the timestamp as a JSON integer', () => {
      refused(
        patch(state, 'hamlet', TO_VERONA, { scheduled_delivery_timestamp: 'soon' }),
        state,
        'scheduled_delivery_timestamp is not valid JSON',
      );
      refused(
        patch(state, 'hamlet', TO_VERONA, { scheduled_delivery_timestamp: '1.5' }),
        state,
        'scheduled_delivery_timestamp is not an integer',
      );
    });

    it('accepts `subject` for `topic`, but not both', () => {
      const r = ok(patch(state, 'hamlet', TO_VERONA, { subject: 'dinner' }));
      expect(r.state.scheduledMessages.get(TO_VERONA)!.topic).toBe('dinner');
      refused(
        patch(state, 'hamlet', TO_VERONA, { topic: 'a', subject: 'b' }),
        state,
        "Can't decide between 'topic' and 'subject' arguments",
        'REQUEST_CONFUSING_VAR',
        { var_name1: 'topic', var_name2: 'subject' },
      );
    });

    it('lists unknown parameters as ignored', () => {
      const r = ok(patch(state, 'hamlet', TO_VERONA, { content: 'x', read_by_sender: 'true' }));
      expect(r.body).toEqual({
        result: 'success',
        msg: '',
        ignored_parameters_unsupported: ['read_by_sender'],
      });
    });
  });

  describe('type changes', () => {
    it.each(['direct', 'private'])('makes a channel message direct with type=%s', (type) => {
      const r = ok(patch(state, 'hamlet', TO_VERONA, { type, to: '[6, 5, 6, 4]', topic: 'ignored' }));
      expect(r.state.scheduledMessages.get(TO_VERONA)).toEqual({
        ...state.scheduledMessages.get(TO_VERONA)!,
        type: 'private',
        to: [5, 6],
        topic: '',
      });
      expect(r.events).toEqual(
        updated(cast.hamlet, {
          scheduled_message_id: TO_VERONA,
          to: [5, 6],
          type: 'private',
          content: 'Lunch at noon?',
          rendered_content: '<p>Lunch at noon?</p>',
          scheduled_delivery_timestamp: 1893456000,
          failed: false,
        }),
      );
    });

    it.each(['channel', 'stream'])('makes a direct message a channel message with type=%s', (type) => {
      const r = ok(
        patch(state, 'hamlet', TO_CORDELIA, { type, to: String(CH.denmark), topic: '  birthdays  ' }),
      );
      expect(r.state.scheduledMessages.get(TO_CORDELIA)).toMatchObject({
        type: 'stream',
        to: CH.denmark,
        topic: 'birthdays',
      });
      expect(r.events[0]!.event).toMatchObject({
        scheduled_message: { to: CH.denmark, type: 'stream', topic: 'birthdays' },
      });
    });

    it('keeps a message to oneself addressed to oneself', () => {
      const r = ok(
        edit(state, 'hamlet', { scheduled_message_id: TO_VERONA, type: 'direct', to: [cast.hamlet] }),
      );
      expect(r.state.scheduledMessages.get(TO_VERONA)!.to).toEqual([cast.hamlet]);
    });

    it('refuses an integer for direct recipients', () => {
      refused(patch(state, 'hamlet', TO_CORDELIA, { to: '5' }), state, 'Invalid data type for recipients');
      refused(
        patch(state, 'hamlet', TO_VERONA, { type: 'direct', to: '5' }),
        state,
        'Invalid data type for recipients',
      );
    });

    it('moves a channel message to another channel, keeping its topic', () => {
      const r = ok(patch(state, 'hamlet', TO_VERONA, { to: String(CH.denmark) }));
      expect(r.state.scheduledMessages.get(TO_VERONA)).toMatchObject({
        type: 'stream',
        to: CH.denmark,
        topic: 'lunch',
      });
    });
  });

  describe('direct recipients', () => {
    it('needs recipients that exist and are active', () => {
      refused(patch(state, 'hamlet', TO_CORDELIA, { to: '[]' }), state, 'Message must have recipients');
      refused(patch(state, 'hamlet', TO_CORDELIA, { to: '[99, 5]' }), state, 'Invalid user ID 99');
      refused(
        patch(state, 'hamlet', TO_CORDELIA, { to: '[5, 14]' }),
        state,
        "'ex-employee@zulip.com' is no longer using Zulip.",
      );
    });

    it('re-checks the existing recipients when only the content changes', () => {
      const s = realmWith((snap) => withScheduled(snap, { sender_id: 4, type: 'private', to: [14] }));
      refused(
        edit(s, 'hamlet', { scheduled_message_id: 10, content: 'x' }),
        s,
        "'ex-employee@zulip.com' is no longer using Zulip.",
      );
      // A time-only edit does not re-validate the send.
      ok(edit(s, 'hamlet', { scheduled_message_id: 10, scheduled_delivery_timestamp: TOMORROW + 1 }));
    });

    it('limits a guest to the users they can access when the realm restricts it', () => {
      const s = realmWith((snap) => {
        realmSettings(snap)['can_access_all_users_group'] = 'role:members';
        const subs = rows(snap, 'subscriptions');
        subs.splice(
          subs.findIndex((x) => x['user_id'] === 10 && x['stream_id'] === 1),
          1,
        );
        withScheduled(snap, { sender_id: 10, type: 'private', to: [4] });
      });
      const msg = 'You do not have permission to access some of the recipients.';
      refused(edit(s, 'polonius', { scheduled_message_id: 10, to: [5] }), s, msg);
      refused(edit(s, 'polonius', { scheduled_message_id: 10, to: [4, 5] }), s, msg);
      ok(edit(s, 'polonius', { scheduled_message_id: 10, to: [4, 7, 11] })); // DM partner / Rome subscribers / a bot
      ok(edit(s, 'polonius', { scheduled_message_id: 10, to: [8, 9] })); // newcomers subscribers
    });

    it('follows the realm direct-message permission group', () => {
      const nobody = realmWith((snap) => {
        realmSettings(snap)['direct_message_permission_group'] = 'role:nobody';
      });
      refused(
        edit(nobody, 'hamlet', { scheduled_message_id: TO_CORDELIA, content: 'x' }),
        nobody,
        'Direct messages are disabled in this organization.',
      );
      // Messages to bots and to oneself are always allowed.
      ok(edit(nobody, 'hamlet', { scheduled_message_id: TO_CORDELIA, to: [11] }));
      ok(edit(nobody, 'hamlet', { scheduled_message_id: TO_CORDELIA, to: [4] }));
      const admins = realmWith((snap) => {
        realmSettings(snap)['direct_message_permission_group'] = 'role:administrators';
      });
      refused(
        edit(admins, 'hamlet', { scheduled_message_id: TO_CORDELIA, content: 'x' }),
        admins,
        'This conversation does not include any users who can authorize it.',
      );
      ok(edit(admins, 'hamlet', { scheduled_message_id: TO_CORDELIA, to: [5, 2] }));
    });

    it('lets only the initiator group start new conversations', () => {
      const s = realmWith((snap) => {
        realmSettings(snap)['direct_message_initiator_group'] = 'role:administrators';
      });
      ok(edit(s, 'hamlet', { scheduled_message_id: TO_CORDELIA, content: 'x' })); // hamlet and cordelia have talked
      ok(edit(s, 'hamlet', { scheduled_message_id: TO_CORDELIA, to: [2, 6] })); // an existing group conversation
      refused(
        edit(s, 'hamlet', { scheduled_message_id: TO_CORDELIA, to: [6] }),
        s,
        'You do not have permission to initiate direct message conversations.',
      );
    });
  });

  describe('channel checks', () => {
    it('refuses a channel that does not exist', () => {
      refused(
        patch(state, 'hamlet', TO_VERONA, { to: '99' }),
        state,
        "Channel with ID '99' does not exist",
        'STREAM_DOES_NOT_EXIST',
        {
          stream_id: 99,
        },
      );
    });

    it('refuses private channels the sender is not subscribed to, and archived channels', () => {
      refused(
        patch(state, 'hamlet', TO_VERONA, { to: String(CH.secrets) }),
        state,
        "Not authorized to send to channel 'secrets'",
      );
      refused(
        patch(state, 'hamlet', TO_VERONA, { to: String(CH.archived) }),
        state,
        "Not authorized to send to channel 'old announcements'",
      );
      ok(patch(state, 'hamlet', TO_VERONA, { to: String(CH.coreTeam) }));
    });

    it('lets a guest post only where subscribed or web-public', () => {
      const s = realmWith((snap) =>
        withScheduled(snap, { sender_id: 10, type: 'stream', to: 1, topic: 'lunch' }),
      );
      refused(
        edit(s, 'polonius', { scheduled_message_id: 10, to: CH.denmark }),
        s,
        "Not authorized to send to channel 'Denmark'",
      );
      ok(edit(s, 'polonius', { scheduled_message_id: 10, to: CH.rome }));
    });

    it('lets a bot post where its owner is subscribed', () => {
      const s = realmWith((snap) =>
        withScheduled(snap, { sender_id: 12, type: 'stream', to: 1, topic: 'lunch' }),
      );
      ok(wire(s, 'outgoingBot', 'PATCH', '/scheduled_messages/10', { to: String(CH.coreTeam) }));
      refused(
        edit(s, 'outgoingBot', { scheduled_message_id: 10, to: CH.secrets }),
        s,
        "Not authorized to send to channel 'secrets'",
      );
    });

    it('follows can_send_message_group, a bot falling back to its owner', () => {
      const s = realmWith((snap) => {
        const verona = rows(snap, 'channels').find((c) => c['stream_id'] === 1)!;
        verona['can_send_message_group'] = 'role:administrators';
        rows(snap, 'channels').find((c) => c['stream_id'] === 2)!['can_send_message_group'] = 'role:nobody';
        withScheduled(snap, { sender_id: 12, type: 'private', to: [4] });
        rows(snap, 'scheduled_messages').push({
          scheduled_message_id: 11,
          sender_id: 2,
          type: 'private',
          to: [4],
          content: 'x',
          scheduled_delivery_timestamp: TOMORROW,
        });
      });
      const msg = 'You do not have permission to post in this channel.';
      refused(edit(s, 'hamlet', { scheduled_message_id: TO_VERONA, content: 'x' }), s, msg);
      ok(edit(s, 'iago', { scheduled_message_id: 11, type: 'channel', to: CH.verona, topic: 't' }));
      ok(edit(s, 'outgoingBot', { scheduled_message_id: 10, type: 'channel', to: CH.verona, topic: 't' })); // owner iago is an admin
      refused(
        edit(s, 'iago', { scheduled_message_id: 11, type: 'channel', to: CH.denmark, topic: 't' }),
        s,
        msg,
      );
    });

    it('needs can_create_topic_group for a new topic, not for an existing one', () => {
      const s = realmWith((snap) => {
        rows(snap, 'channels').find((c) => c['stream_id'] === 1)!['can_create_topic_group'] =
          'role:administrators';
      });
      refused(
        edit(s, 'hamlet', { scheduled_message_id: TO_VERONA, to: CH.verona, topic: 'brand new' }),
        s,
        'You do not have permission to create new topics in this channel.',
      );
      ok(edit(s, 'hamlet', { scheduled_message_id: TO_VERONA, to: CH.verona, topic: 'WEATHER' }));
    });
  });

  describe('topics', () => {
    it('reads (no topic) and the display name as the empty topic when re-validating', () => {
      for (const topic of ['(no topic)', 'general chat', '   ', '']) {
        const r = ok(edit(state, 'hamlet', { scheduled_message_id: TO_VERONA, to: CH.verona, topic }));
        expect(r.state.scheduledMessages.get(TO_VERONA)!.topic).toBe('');
      }
    });

    it("applies the target channel's topics policy", () => {
      const required = [
        'Sending messages to the general chat is not allowed in this channel.',
        'BAD_REQUEST',
        { empty_topic_display_name: 'general chat' },
      ] as const;
      for (const topic of ['', '(no topic)', 'general chat']) {
        refused(
          edit(state, 'hamlet', { scheduled_message_id: TO_VERONA, to: CH.venice, topic }),
          state,
          ...required,
        );
      }
      ok(edit(state, 'hamlet', { scheduled_message_id: TO_VERONA, to: CH.venice, topic: 'canals' }));
      refused(
        edit(state, 'hamlet', { scheduled_message_id: TO_VERONA, to: CH.generalOnly, topic: 'x' }),
        state,
        'Only the general chat topic is allowed in this channel.',
        'BAD_REQUEST',
        { empty_topic_display_name: 'general chat' },
      );
      ok(
        edit(state, 'hamlet', { scheduled_message_id: TO_VERONA, to: CH.generalOnly, topic: 'general chat' }),
      );
    });

    it("falls back to the realm's topics policy for channels that inherit it", () => {
      const s = realmWith((snap) => {
        realmSettings(snap)['topics_policy'] = 'disable_empty_topic';
      });
      refused(
        edit(s, 'hamlet', { scheduled_message_id: TO_VERONA, content: 'x', topic: '' }),
        s,
        'Sending messages to the general chat is not allowed in this channel.',
        'BAD_REQUEST',
        { empty_topic_display_name: 'general chat' },
      );
    });

    it('edits only the topic without re-validating the send: the empty topic passes', () => {
      const s = realmWith((snap) =>
        withScheduled(snap, { sender_id: 4, type: 'stream', to: CH.venice, topic: 'canals' }),
      );
      const r = ok(patch(s, 'hamlet', 10, { topic: '' }));
      expect(r.state.scheduledMessages.get(10)!.topic).toBe('');
      const literal = ok(patch(s, 'hamlet', 10, { topic: '(no topic)' }));
      expect(literal.state.scheduledMessages.get(10)!.topic).toBe('(no topic)');
    });

    it('refuses unprintable characters, counting code points from 1', () => {
      refused(
        patch(state, 'hamlet', TO_VERONA, { topic: 'a\u0007b' }),
        state,
        'Invalid character in topic, at position 2!',
      );
      refused(
        patch(state, 'hamlet', TO_VERONA, { topic: '😀x\u0000' }),
        state,
        'Invalid character in topic, at position 3!',
      );
      refused(
        patch(state, 'hamlet', TO_VERONA, { to: '1', topic: 'a\nb' }),
        state,
        'Invalid character in topic, at position 2!',
      );
    });

    it('strips the topic parameter as pydantic does, and Python-strips it again when re-validating', () => {
      const r = ok(patch(state, 'hamlet', TO_VERONA, { topic: '\u0085 dinner \u3000' }));
      expect(r.state.scheduledMessages.get(TO_VERONA)!.topic).toBe('dinner');
      // U+001F survives the parameter strip: a topic-only edit then finds a control character…
      refused(
        patch(state, 'hamlet', TO_VERONA, { topic: '\u001fdinner' }),
        state,
        'Invalid character in topic, at position 1!',
      );
      // …while the send re-validation strips it first.
      const moved = ok(patch(state, 'hamlet', TO_VERONA, { to: '1', topic: '\u001fdinner' }));
      expect(moved.state.scheduledMessages.get(TO_VERONA)!.topic).toBe('dinner');
    });

    it('truncates a long topic to max_topic_length code points', () => {
      const r = ok(patch(state, 'hamlet', TO_VERONA, { topic: '😀'.repeat(61) }));
      expect(r.state.scheduledMessages.get(TO_VERONA)!.topic).toBe(`${'😀'.repeat(57)}...`);
      const exact = ok(patch(state, 'hamlet', TO_VERONA, { topic: 'x'.repeat(60) }));
      expect(exact.state.scheduledMessages.get(TO_VERONA)!.topic).toBe('x'.repeat(60));
      const short = realmWith((snap) => {
        snap['server'] = { ...(snap['server'] as object), max_topic_length: 5 };
      });
      const r2 = ok(
        edit(short, 'hamlet', { scheduled_message_id: TO_VERONA, to: CH.verona, topic: 'abcdefgh' }),
      );
      expect(r2.state.scheduledMessages.get(TO_VERONA)!.topic).toBe('ab...');
    });
  });

  describe('content', () => {
    it('refuses empty content and NUL', () => {
      refused(patch(state, 'hamlet', TO_VERONA, { content: '' }), state, 'Message must not be empty');
      refused(patch(state, 'hamlet', TO_VERONA, { content: ' \n\t ' }), state, 'Message must not be empty');
      refused(
        patch(state, 'hamlet', TO_VERONA, { content: 'a\u0000b' }),
        state,
        'Message must not contain null bytes',
      );
    });

    it('drops trailing whitespace and leading newlines, and renders', () => {
      const r = ok(patch(state, 'hamlet', TO_VERONA, { content: '\n\n**Lunch** at one  \n' }));
      expect(r.state.scheduledMessages.get(TO_VERONA)!.content).toBe('**Lunch** at one');
      // Only newlines are dropped at the start: leading spaces stay.
      const spaced = ok(patch(state, 'hamlet', TO_VERONA, { content: ' \nx' }));
      expect(spaced.state.scheduledMessages.get(TO_VERONA)!.content).toBe(' \nx');
      expect(r.events[0]!.event).toMatchObject({
        scheduled_message: { rendered_content: '<p><strong>Lunch</strong> at one</p>' },
      });
    });

    it('truncates content to max_message_length code points', () => {
      const s = realmWith((snap) => {
        snap['server'] = { ...(snap['server'] as object), max_message_length: 30 };
      });
      const r = ok(edit(s, 'hamlet', { scheduled_message_id: TO_VERONA, content: '😀'.repeat(31) }));
      expect(r.state.scheduledMessages.get(TO_VERONA)!.content).toBe(
        `${'😀'.repeat(10)}\n[message truncated]`,
      );
      const exact = ok(edit(s, 'hamlet', { scheduled_message_id: TO_VERONA, content: '😀'.repeat(30) }));
      expect(exact.state.scheduledMessages.get(TO_VERONA)!.content).toBe('😀'.repeat(30));
    });

    it('checks the topic before the content, and the content before the channel', () => {
      refused(
        edit(state, 'hamlet', { scheduled_message_id: TO_VERONA, to: 99, topic: 'a\u0007', content: '' }),
        state,
        'Invalid character in topic, at position 2!',
      );
      refused(
        edit(state, 'hamlet', { scheduled_message_id: TO_VERONA, to: 99, content: '' }),
        state,
        'Message must not be empty',
      );
      refused(
        edit(state, 'hamlet', { scheduled_message_id: TO_CORDELIA, to: [99], content: '' }),
        state,
        'Invalid user ID 99',
      );
    });

    it('stores a topic given with new content as given (the topic path of Zulip)', () => {
      const r = ok(edit(state, 'hamlet', { scheduled_message_id: TO_VERONA, content: 'x', topic: 'dinner' }));
      expect(r.state.scheduledMessages.get(TO_VERONA)).toMatchObject({ content: 'x', topic: 'dinner' });
    });
  });

  describe('properties', () => {
    const names = [
      'scheduled_message_id',
      'type',
      'to',
      'topic',
      'subject',
      'content',
      'scheduled_delivery_timestamp',
    ];
    const shaped = [
      fc.constantFrom(1, 2, 3, 4, 99),
      fc.constantFrom('direct', 'channel', 'stream', 'private', 'email'),
      fc.array(fc.integer({ min: -1, max: 20 }), { maxLength: 3 }),
      fc.integer({ min: NOW - 10, max: NOW + 10 }),
      fc.constantFrom('', '(no topic)', 'general chat', 'lunch', 'a\u0007'),
    ];

    it('never throws; errors keep the state and send nothing (library)', () => {
      fc.assert(
        fc.property(fc.constantFrom(...ACTORS), arbParams(names, shaped), (actor, p) => {
          expectLawful(editScheduledMessage, state, loose(editScheduledMessage)(state, actor, p, testCtx()));
        }),
        { numRuns: 200 },
      );
    });

    it('never throws; errors keep the state and send nothing (wire)', () => {
      const text = fc.oneof(
        fc.string(),
        fc.json(),
        fc.constantFrom('1', '2', '5', '9', '[5]', '[]', '"x"', 'channel', 'direct', String(NOW + 5)),
      );
      const params = fc.dictionary(fc.constantFrom(...names.slice(1), 'extra'), text, { maxKeys: 4 });
      const who = fc.constantFrom<CastName | null>(...(Object.keys(cast) as CastName[]), null);
      fc.assert(
        fc.property(who, fc.constantFrom(1, 2, 3, 4, 999), params, (w, id, p) => {
          expectLawful(editScheduledMessage, state, patch(state, w as CastName, id, p));
        }),
        { numRuns: 150 },
      );
    });
  });
});
