import { describe, expect, it } from 'vitest';
import { updateMessage } from '../../src/ops/messages/updateMessage';
import { createRealm } from '../../src/core/snapshot/create';
import { seededRandom } from '../../src/core/context';
import { getMessage } from '../../src/core/messages/store';
import { getRowFlags } from '../../src/core/messages/rows';
import { FLAG_BITS } from '../../src/core/messages/flags';
import { channelMessageIds, topicMessageIds } from '../../src/core/messages/query';
import { sha256Hex } from '../../src/core/sha256';
import { idListToArray } from '../../src/core/messages/idlist';
import { buildSearchIndex, hasSearchIndex, searchIndexOf } from '../../src/core/search/search-index';
import type { OpResult } from '../../src/core/result';
import type { RealmState } from '../../src/core/state';
import { expectValidEvent, expectValidResponse } from '../support/openapi';
import { expectRefused } from '../support/expect-result';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import {
  as,
  devRealm,
  devSnapshot,
  testCtx,
  wire,
  type CastName,
  type EditableSnapshot,
} from '../support/realm';

/**
 * PATCH /messages/{message_id}. Rules from zerver/actions/message_edit.py (`check_update_message`,
 * `validate_message_edit_payload`, `validate_user_can_edit_message`, `do_update_message`,
 * `maybe_send_resolve_topic_notifications`, `send_message_moved_breadcrumbs`) and the tests in
 * zerver/tests/test_message_edit.py, test_message_move_topic.py, test_message_move_stream.py.
 */
const OP = 'update-message';
const state = devRealm();
const T145 = 1735698300; // hamlet's message in Verona > weather

function realmWith(change: (s: EditableSnapshot) => void): RealmState {
  const snap = devSnapshot();
  change(snap);
  return createRealm(snap, { random: seededRandom(1) });
}

const patch = (s: RealmState, id: number, params: Record<string, string>, who: CastName, now = T145 + 60) =>
  wire(s, who, 'PATCH', `/messages/${id}`, params, testCtx({ now }));

function ok(r: OpResult): void {
  expect(r.body).toEqual({ result: 'success', msg: '', detached_uploads: [] });
  expectValidResponse(OP, 200, r.body);
  for (const e of r.events) expectValidEvent(e.event);
}

const flagsOf = (s: RealmState, userId: number, id: number) => {
  const rows = s.messages.rows.get(userId);
  return rows === undefined ? undefined : getRowFlags(rows, id);
};

describe('updateMessage: content', () => {
  it('the sender edits within the limit: the event, flags per user, history (test_edit_message_no_changes…)', () => {
    const r = patch(state, 145, { content: "Sunny, @**Cordelia, Lear's daughter**" }, 'hamlet');
    ok(r);
    expect(getMessage(r.state.messages, 145)!.content).toBe("Sunny, @**Cordelia, Lear's daughter**");
    expect(getMessage(state.messages, 145)!.content).not.toContain('Sunny');
    // Cordelia's row gains `mentioned`.
    expect((flagsOf(r.state, 5, 145)! & FLAG_BITS.mentioned) !== 0).toBe(true);
    const events = r.events.map((e) => e.event as Record<string, unknown>);
    expect(events.every((e) => e['type'] === 'update_message')).toBe(true);
    expect(events[0]).toMatchObject({
      user_id: 4,
      edit_timestamp: T145 + 60,
      message_id: 145,
      message_ids: [145],
      rendering_only: false,
      stream_id: 1,
      stream_name: 'Verona',
      content: "Sunny, @**Cordelia, Lear's daughter**",
      is_me_message: false,
    });
    expect(events[0]).not.toHaveProperty('propagate_mode');
    const cordelia = r.events.find((e) => e.users.includes(5))!;
    expect((cordelia.event as Record<string, unknown>)['flags']).toContain('mentioned');
    // Every Verona subscriber hears, once.
    expect(r.events.flatMap((e) => e.users).sort((a, b) => a - b)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
    ]);
    const edits = r.state.messages.edits.get(145)!;
    expect(edits.last_edit_timestamp).toBe(T145 + 60);
    expect(edits.last_moved_timestamp).toBeUndefined();
    expect(edits.history[0]).toMatchObject({
      user_id: 4,
      timestamp: T145 + 60,
      prev_content: expect.any(String),
    });
  });

  it('refusals in check_update_message order', () => {
    const fail = (r: OpResult, msg: string, code?: string) => expectRefused(OP, r, state, msg, code);
    fail(patch(state, 9999, { content: 'x' }, 'hamlet'), 'Invalid message(s)');
    fail(patch(state, 145, { content: 'x' }, 'iago'), "You don't have permission to edit this message");
    fail(
      patch(state, 145, { content: 'x' }, 'hamlet', T145 + 621),
      'The time limit for editing this message has passed',
    );
    ok(patch(state, 145, { content: 'x' }, 'hamlet', T145 + 620));
    fail(
      patch(state, 145, { content: 'x', prev_content_sha256: 'nope' }, 'hamlet'),
      "'prev_content_sha256' value does not match the expected value.",
      'EXPECTATION_MISMATCH',
    );
    ok(
      patch(
        state,
        145,
        { content: 'x', prev_content_sha256: sha256Hex(getMessage(state.messages, 145)!.content) },
        'hamlet',
      ),
    );
    fail(patch(state, 145, {}, 'hamlet'), 'Nothing to change');
    fail(patch(state, 145, { topic: 'weather' }, 'hamlet'), 'Nothing to change');
    fail(patch(state, 166, { topic: 'x' }, 'hamlet'), 'Direct messages cannot have topics.');
    fail(patch(state, 166, { stream_id: '1' }, 'hamlet'), 'Direct messages cannot be moved to channels.');
    fail(
      patch(state, 145, { content: 'x', propagate_mode: 'change_all' }, 'hamlet'),
      'Invalid propagate_mode without topic edit',
    );
    fail(
      patch(state, 145, { content: 'x', stream_id: '2' }, 'hamlet'),
      'Cannot change message content while changing channel',
    );
    // Archived channels' messages cannot be modified (message 119: old announcements).
    fail(patch(state, 119, { topic: 'x' }, 'iago'), 'Invalid message(s)');
    const off = realmWith((s) => {
      s.realm.allow_message_editing = false;
    });
    expectRefused(
      OP,
      patch(off, 145, { content: 'x' }, 'hamlet'),
      off,
      'Your organization has turned off message editing',
    );
  });

  it('an empty content becomes "(deleted)" (test_edit_message_to_empty_content…)', () => {
    const r = patch(state, 145, { content: '  ' }, 'hamlet');
    ok(r);
    expect(getMessage(r.state.messages, 145)!.content).toBe('(deleted)');
  });

  it('direct messages: the participants hear, with their flags', () => {
    const r = patch(state, 166, { content: 'edited' }, 'hamlet', 1735699560 + 5);
    ok(r);
    expect(r.events.flatMap((e) => e.users).sort()).toEqual([4, 5]);
    expect(r.events[0]!.event).not.toHaveProperty('stream_id');
  });
});

describe('updateMessage: topics', () => {
  it('change_one / change_later / change_all (test_propagate_topic_edits)', () => {
    // Verona > lunch: 101 (iago), 134 (desdemona).
    const one = patch(state, 101, { topic: 'dinner' }, 'iago', 1735695660 + 10);
    ok(one);
    expect(topicMessageIds(one.state.messages, 1, 'dinner')).toEqual([101]);
    expect(topicMessageIds(one.state.messages, 1, 'lunch')).toEqual([134]);
    const later = patch(
      state,
      101,
      { topic: 'dinner', propagate_mode: 'change_later' },
      'iago',
      1735695660 + 10,
    );
    ok(later);
    expect(topicMessageIds(later.state.messages, 1, 'dinner')).toEqual([101, 134]);
    expect(topicMessageIds(later.state.messages, 1, 'lunch')).toEqual([]);
    const all = patch(state, 134, { topic: 'dinner', propagate_mode: 'change_all' }, 'iago', 1735697640 + 10);
    ok(all);
    expect(topicMessageIds(all.state.messages, 1, 'dinner')).toEqual([101, 134]);
    expect(all.events[0]!.event).toMatchObject({
      message_ids: [101, 134],
      propagate_mode: 'change_all',
      orig_subject: 'lunch',
      subject: 'dinner',
      topic_links: [],
    });
    expect(all.state.messages.edits.get(101)!.last_moved_timestamp).toBe(1735697650);
    expect(all.state.messages.edits.get(101)!.history[0]).toEqual({
      user_id: 2,
      timestamp: 1735697650,
      prev_topic: 'lunch',
      topic: 'dinner',
    });
    expect(getMessage(all.state.messages, 134)!.topic).toBe('dinner');
    // The channel's list is untouched.
    expect(channelMessageIds(all.state.messages, 1)).toEqual(channelMessageIds(state.messages, 1));
  });

  it('resolving: permission, a notice, no last_moved_timestamp (test_mark_topic_as_resolved)', () => {
    const r = patch(
      state,
      112,
      { topic: '✔ weather', propagate_mode: 'change_all' },
      'hamlet',
      1735696320 + 10,
    );
    ok(r);
    expect(topicMessageIds(r.state.messages, 1, '✔ weather')).toEqual([112, 145]);
    expect(r.state.messages.edits.get(112)!.last_moved_timestamp).toBeUndefined();
    expect(r.effects).toEqual([
      {
        type: 'post_notification_message',
        stream_id: 1,
        topic: '✔ weather',
        content: '@_**King Hamlet|4** has marked this topic as resolved.',
      },
    ]);
    const nobody = realmWith((s) => {
      s.realm.can_resolve_topics_group = 'role:nobody';
    });
    expectRefused(
      OP,
      patch(nobody, 112, { topic: '✔ weather' }, 'hamlet', 1735696320 + 10),
      nobody,
      "You don't have permission to resolve topics in this channel.",
    );
  });

  it('moving topics: can_move_messages_between_topics_group and the time limit (test_edit_topic_policy…)', () => {
    const late = 1735696320 + 604800 + 21;
    expectRefused(
      OP,
      patch(state, 112, { topic: 'x' }, 'hamlet', late),
      state,
      "The time limit for editing this message's topic has passed.",
    );
    ok(patch(state, 112, { topic: 'x' }, 'shiva', late)); // moderators have no limit
    const admins = realmWith((s) => {
      s.realm.can_move_messages_between_topics_group = 'role:administrators';
    });
    expectRefused(
      OP,
      patch(admins, 112, { topic: 'x' }, 'hamlet', 1735696330),
      admins,
      "You don't have permission to edit this message",
    );
  });

  it('topics policy of the destination', () => {
    // Venice disables the empty topic.
    const r = patch(state, 105, { topic: '' }, 'iago', 1735695900 + 5);
    expect(r.body).toMatchObject({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'Sending messages to the general chat is not allowed in this channel.',
      empty_topic_display_name: 'general chat',
    });
    expect(r.state).toBe(state);
  });
});

describe('updateMessage: channels', () => {
  it('moves a topic to another channel (test_move_message_to_stream)', () => {
    const r = patch(
      state,
      112,
      { stream_id: '2', propagate_mode: 'change_all', send_notification_to_old_thread: 'true' },
      'iago',
      1735696320 + 10,
    );
    ok(r);
    expect(getMessage(r.state.messages, 112)!.stream_id).toBe(2);
    expect(topicMessageIds(r.state.messages, 2, 'weather')).toEqual([112, 145]);
    expect(topicMessageIds(r.state.messages, 1, 'weather')).toEqual([]);
    expect(channelMessageIds(r.state.messages, 1)).not.toContain(112);
    expect(channelMessageIds(r.state.messages, 2)).toContain(145);
    expect(r.events.some((e) => (e.event as Record<string, unknown>)['new_stream_id'] === 2)).toBe(true);
    expect(r.effects.map((e) => (e as { topic: string }).topic)).toEqual(['weather', 'weather']);
    expect(r.state.messages.edits.get(145)!.history[0]).toEqual({
      user_id: 2,
      timestamp: 1735696330,
      prev_stream: 1,
      stream: 2,
    });
  });

  it('moves need can_move_messages_between_channels_group', () => {
    const guestless = realmWith((s) => {
      s.realm.can_move_messages_between_channels_group = 'role:administrators';
    });
    expectRefused(
      OP,
      patch(guestless, 145, { stream_id: '2' }, 'hamlet'),
      guestless,
      "You don't have permission to move this message",
    );
  });
});

describe('updateMessage: the move checks of check_update_message', () => {
  const channelRow = (snap: EditableSnapshot, id: number) =>
    (snap.channels as unknown as Array<Record<string, unknown>>).find((c) => c['stream_id'] === id)!;
  // Verona > weather: 112 (sent 1735696320) and 145 (1735698300); the move limit is a week.
  const week = 604800;

  it('change_all refuses when older messages passed the limit (test_change_all_propagate_mode_for_moving_old_messages)', () => {
    const now = 1735696320 + week + 21;
    expectRefused(
      OP,
      patch(state, 145, { topic: 'x', propagate_mode: 'change_all' }, 'hamlet', now),
      state,
      'You only have permission to move the 1/2 most recent messages in this topic.',
      'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED',
      {
        first_message_id_allowed_to_move: 145,
        total_messages_in_topic: 2,
        total_messages_allowed_to_move: 1,
      },
    );
    // change_later takes only the recent message; moderators have no limit.
    ok(patch(state, 145, { topic: 'x', propagate_mode: 'change_later' }, 'hamlet', now));
    ok(patch(state, 145, { topic: 'x', propagate_mode: 'change_all' }, 'shiva', now));
    // The stricter of the two limits applies to a move of topic and channel together.
    const tight = realmWith((snap) => {
      snap.realm.move_messages_between_streams_limit_seconds = 1000;
    });
    const r = patch(
      tight,
      145,
      { topic: 'x', stream_id: '2', propagate_mode: 'change_all' },
      'hamlet',
      1735698300 + 500,
    );
    expect(r.body).toMatchObject({
      code: 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED',
      total_messages_allowed_to_move: 1,
    });
    expect(r.state).toBe(tight);
  });

  it('the destination must let the mover post (check_stream_access_based_on_can_send_message_group)', () => {
    const closed = realmWith((snap) => {
      channelRow(snap, 2)['can_send_message_group'] = 'role:nobody';
    });
    expectRefused(
      OP,
      patch(closed, 112, { stream_id: '2' }, 'iago', 1735696320 + 10),
      closed,
      'You do not have permission to post in this channel.',
    );
  });

  it('a new topic in the destination needs can_create_topic_group (check_for_can_create_topic_group_violation)', () => {
    const admins = realmWith((snap) => {
      channelRow(snap, 1)['can_create_topic_group'] = 'role:administrators';
    });
    expectRefused(
      OP,
      patch(admins, 145, { topic: 'brand new' }, 'hamlet'),
      admins,
      'You do not have permission to create new topics in this channel.',
    );
    // An existing topic is fine, and so is resolving (no topic creation check).
    ok(patch(admins, 145, { topic: 'lunch' }, 'hamlet'));
    ok(patch(admins, 145, { topic: '✔ weather' }, 'hamlet'));
    ok(patch(admins, 145, { topic: 'brand new' }, 'iago'));
  });
});

describe('updateMessage: user-topic records follow a moved topic', () => {
  // Hamlet (4) muted Verona > weather (112, 145).
  const policyOf = (s: RealmState, userId: number, streamId: number, topic: string) =>
    (s.userTopics.get(userId) ?? []).find((t) => t.stream_id === streamId && t.topic_name === topic)
      ?.visibility_policy;
  const userTopicEvents = (r: OpResult, userId: number) =>
    r.events
      .filter((e) => e.users.includes(userId) && ['user_topic', 'muted_topics'].includes(e.event.type))
      .map((e) => e.event as Record<string, unknown>);

  it('to a new topic the record moves (test_user_topic_states_on_moving_to_topic_with_no_messages)', () => {
    const r = patch(state, 112, { topic: 'climate', propagate_mode: 'change_all' }, 'iago', 1735696320 + 10);
    ok(r);
    expect(policyOf(r.state, 4, 1, 'weather')).toBeUndefined();
    expect(policyOf(r.state, 4, 1, 'climate')).toBe(1);
    const events = userTopicEvents(r, 4);
    expect(events.map((e) => [e['type'], e['topic_name'], e['visibility_policy']])).toEqual([
      ['user_topic', 'weather', 0],
      ['muted_topics', undefined, undefined],
      ['user_topic', 'climate', 1],
    ]);
    expect(events[1]!['muted_topics']).toContainEqual(['Verona', 'climate', 1735696330]);
    // The user-topic events come before the update_message event.
    const i = r.events.findIndex((e) => e.event.type === 'user_topic');
    const j = r.events.findIndex((e) => e.event.type === 'update_message');
    expect(i).toBeLessThan(j);
  });

  it('into a topic with messages the more visible policy wins (get_visibility_policy_after_merge)', () => {
    // Muted (weather) merged with inherit (lunch) is inherit: the record just goes.
    const r = patch(state, 112, { topic: 'lunch', propagate_mode: 'change_all' }, 'iago', 1735696320 + 10);
    ok(r);
    expect(policyOf(r.state, 4, 1, 'weather')).toBeUndefined();
    expect(policyOf(r.state, 4, 1, 'lunch')).toBeUndefined();
    // Zulip sends no muted_topics here; we do, so clients on the legacy list stay in step.
    expect(userTopicEvents(r, 4).map((e) => [e['type'], e['topic_name'], e['visibility_policy']])).toEqual([
      ['user_topic', 'weather', 0],
      ['muted_topics', undefined, undefined],
    ]);
  });

  it('a partial move leaves the records alone; a channel move carries them', () => {
    const one = patch(state, 112, { topic: 'climate' }, 'iago', 1735696320 + 10);
    ok(one);
    expect(policyOf(one.state, 4, 1, 'weather')).toBe(1);
    expect(userTopicEvents(one, 4)).toEqual([]);
    const moved = patch(
      state,
      112,
      { stream_id: '2', propagate_mode: 'change_all' },
      'iago',
      1735696320 + 10,
    );
    ok(moved);
    expect(policyOf(moved.state, 4, 1, 'weather')).toBeUndefined();
    expect(policyOf(moved.state, 4, 2, 'weather')).toBe(1);
  });
});

describe('updateMessage: users losing access on a channel move (do_update_message, users_losing_access)', () => {
  // Polonius (10), a guest subscribed to Verona but not Denmark, follows Verona > weather.
  const withGuest = (active: boolean) =>
    realmWith((snap) => {
      const polonius = snap.users.find((u) => u.user_id === 10)!;
      if (!active) Object.assign(polonius, { is_active: false });
      snap.user_topics.push({
        user_id: 10,
        stream_id: 1,
        topic_name: 'weather',
        visibility_policy: 3,
        last_updated: 1735694600,
      });
    });
  const policies = (s: RealmState) => (s.userTopics.get(10) ?? []).map((t) => [t.stream_id, t.topic_name]);
  const move = (s: RealmState) =>
    patch(s, 112, { stream_id: '2', propagate_mode: 'change_all' }, 'iago', 1735696320 + 10);

  it('an active guest loses the record and hears delete_message', () => {
    const r = move(withGuest(true));
    ok(r);
    expect(policies(r.state)).toEqual([]);
    const mine = r.events.filter((e) => e.users.includes(10)).map((e) => e.event.type);
    expect(mine).toEqual(['delete_message', 'muted_topics', 'user_topic']);
  });

  it('a deactivated guest loses it too (not carried to the new channel), and hears nothing', () => {
    const r = move(withGuest(false));
    ok(r);
    expect(policies(r.state)).toEqual([]);
    expect(r.events.filter((e) => e.users.includes(10))).toEqual([]);
  });
});

describe('updateMessage: the sender follows a topic their message starts (apply_automatic_unmute_follow_topics_policy)', () => {
  // do_update_message: when a move leaves visible messages behind, the edited message's sender (not
  // a bot, not losing access) gets the on-initiation policy if the message is now the topic's first.
  const policyOf = (s: RealmState, userId: number, streamId: number, topic: string) =>
    (s.userTopics.get(userId) ?? []).find((t) => t.stream_id === streamId && t.topic_name === topic)
      ?.visibility_policy;
  const T112 = 1735696320;
  const settings = (s: RealmState, who: CastName, params: Record<string, string>) =>
    wire(s, who, 'PATCH', '/settings', params, testCtx()).state;

  it('a partial move into a new topic: the sender follows it, before the update_message event', () => {
    // 112 is Cordelia's (5) in Verona > weather; 145 stays behind.
    const r = patch(state, 112, { topic: 'climate' }, 'iago', T112 + 10);
    ok(r);
    expect(policyOf(r.state, 5, 1, 'climate')).toBe(3);
    const mine = r.events.filter((e) => e.users.includes(5) && e.event.type !== 'update_message');
    expect(mine.map((e) => [e.users, e.event.type])).toEqual([
      [[5], 'muted_topics'],
      [[5], 'user_topic'],
    ]);
    expect(mine[1]!.event).toMatchObject({ stream_id: 1, topic_name: 'climate', visibility_policy: 3 });
    const i = r.events.indexOf(mine[1]!);
    expect(i).toBeLessThan(r.events.findIndex((e) => e.event.type === 'update_message'));
    // The mover is not the one who follows.
    expect(policyOf(r.state, 2, 1, 'climate')).toBeUndefined();
  });

  it('not when an earlier message is already in the destination topic', () => {
    // Verona > lunch has 101 and 134, both older than 112.
    const r = patch(state, 112, { topic: 'lunch' }, 'iago', T112 + 10);
    ok(r);
    expect(policyOf(r.state, 5, 1, 'lunch')).toBeUndefined();
    expect(r.events.filter((e) => e.event.type === 'user_topic')).toEqual([]);
  });

  it('not when the whole topic moves (the records are carried instead)', () => {
    const r = patch(state, 112, { topic: 'climate', propagate_mode: 'change_all' }, 'iago', T112 + 10);
    ok(r);
    expect(policyOf(r.state, 5, 1, 'climate')).toBeUndefined();
  });

  it('"never" follows nothing; unmute on initiation unmutes only in a muted channel', () => {
    const never = settings(state, 'cordelia', { automatically_follow_topics_policy: '4' });
    const r = patch(never, 112, { topic: 'climate' }, 'iago', T112 + 10);
    ok(r);
    expect(policyOf(r.state, 5, 1, 'climate')).toBeUndefined();
    const unmute = settings(never, 'cordelia', { automatically_unmute_topics_in_muted_streams_policy: '3' });
    expect(
      policyOf(patch(unmute, 112, { topic: 'climate' }, 'iago', T112 + 10).state, 5, 1, 'climate'),
    ).toBeUndefined();
    const muted = wire(unmute, 'cordelia', 'POST', '/users/me/subscriptions/properties', {
      subscription_data: JSON.stringify([{ stream_id: 1, property: 'is_muted', value: true }]),
    }).state;
    const m = patch(muted, 112, { topic: 'climate' }, 'iago', T112 + 10);
    ok(m);
    expect(policyOf(m.state, 5, 1, 'climate')).toBe(2);
  });
});

describe('updateMessage: laws', () => {
  it('totality and failure purity, library and wire', () => {
    const names = ['message_id', 'content', 'topic', 'propagate_mode', 'stream_id'];
    checkLibraryLaws(updateMessage, state, arbParams(names), 100);
    checkWireLaws(updateMessage, state, arbWireParams(names), 60);
  });

  it('library mode', () => {
    const r = updateMessage(
      state,
      as('hamlet'),
      { message_id: 145, content: 'Library' },
      testCtx({ now: T145 }),
    );
    ok(r);
  });
});

describe('updateMessage: the search index', () => {
  const searchIds = (s: RealmState, word: string) => {
    const r = wire(s, 'hamlet', 'GET', '/messages', {
      anchor: 'newest',
      num_before: '100',
      num_after: '0',
      narrow: JSON.stringify([{ operator: 'search', operand: word }]),
    });
    if (r.body.result !== 'success') throw new Error(r.body.msg);
    return (r.body['messages'] as { id: number }[]).map((m) => m.id);
  };

  it('is carried through edits and topic moves (messagesChanged) and equals a rebuild', () => {
    expect(searchIds(state, 'weather')).toContain(145); // builds the index on `state`
    expect(hasSearchIndex(state.messages)).toBe(true);
    const edited = patch(state, 145, { content: 'thunderstorms ahead' }, 'hamlet');
    ok(edited);
    expect(hasSearchIndex(edited.state.messages)).toBe(true); // carried, not rebuilt
    expect(searchIds(edited.state, 'thunderstorm')).toEqual([145]);
    expect(searchIds(edited.state, 'about')).not.toContain(145);
    const moved = patch(edited.state, 145, { topic: 'forecasts', propagate_mode: 'change_one' }, 'hamlet');
    ok(moved);
    expect(searchIds(moved.state, 'forecast')).toEqual([145]);
    const carried = searchIndexOf(moved.state.messages);
    const rebuilt = buildSearchIndex(moved.state.messages);
    expect(carried.size).toBe(rebuilt.size);
    expect([...carried.postings.entries()].map(([k, v]) => [k, idListToArray(v)]).sort()).toEqual(
      [...rebuilt.postings.entries()].map(([k, v]) => [k, idListToArray(v)]).sort(),
    );
    expect(searchIds(state, 'thunderstorm')).toEqual([]); // the older state keeps its own index
  });
});
