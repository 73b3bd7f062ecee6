import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deleteTopic } from '../../src/ops/channels/deleteTopic';
import { createRealm } from '../../src/core/snapshot/create';
import { seededRandom } from '../../src/core/context';
import { getMessage } from '../../src/core/messages/store';
import { getRowFlags } from '../../src/core/messages/rows';
import { channelMessageIds, firstMessageIdInChannel } from '../../src/core/messages/query';
import type { OpResult } from '../../src/core/result';
import type { RealmState } from '../../src/core/state';
import { expectValidEvent, expectValidResponse } from '../support/openapi';
import { expectRefused } from '../support/expect-result';
import { CAST_NAMES, arbParams, checkLibraryLaws, expectLawful } from '../support/op-laws';
import { as, cast, devRealm, devSnapshot, testCtx, wire, type CastName } from '../support/realm';
import { loose } from '../support/loose';

const OP = 'delete-topic';
const NOW = 1795219200;
const state = devRealm();

function ok(r: OpResult, complete = true): void {
  expect(r.status).toBe(200);
  expect(r.body).toEqual({ result: 'success', msg: '', complete });
  expectValidResponse(OP, 200, r.body);
  for (const e of r.events) expectValidEvent(e.event);
  expect(r.effects).toEqual([]);
}

function refused(r: OpResult, before: RealmState, msg: string, code?: string, extra?: object): void {
  expectRefused(OP, r, before, msg, code, extra);
}

const del = (
  s: RealmState,
  streamId: number | string,
  params: Record<string, string>,
  who: CastName = 'iago',
  ctx = testCtx(),
) => wire(s, who, 'POST', `/streams/${streamId}/delete_topic`, params, ctx);

const hasRow = (s: RealmState, userId: number, id: number) => {
  const rows = s.messages.rows.get(userId);
  return rows !== undefined && getRowFlags(rows, id) !== undefined;
};

type Msg = Record<string, unknown> & { id: number; flags: Record<string, string[]> };

/** The dev realm plus `n` messages in Venice (subscribers iago, hamlet, othello) topic `topic`, from id 200. */
function withVeniceTopic(
  n: number,
  topic = 'batch',
  edit: (snap: ReturnType<typeof devSnapshot>) => void = () => {},
): RealmState {
  const snap = devSnapshot();
  const messages = snap['messages'] as Msg[];
  for (let i = 0; i < n; i++) {
    messages.push({
      id: 200 + i,
      sender_id: 6,
      stream_id: 5,
      topic: i % 2 === 0 ? topic : topic.toUpperCase(),
      content: `m${i}`,
      timestamp: 1735700000 + i,
      flags: { '2': [], '4': ['read'], '6': ['read'] },
    });
  }
  edit(snap);
  return createRealm(snap, { random: seededRandom(1) });
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const VERONA_SUBSCRIBERS = range(1, 11);

describe('deleteTopic', () => {
  it('deletes a topic case-insensitively in a public channel (scenario: Delete a topic in a public channel)', () => {
    const r = del(state, 1, { topic_name: 'LUNCH' });
    ok(r);
    expect(getMessage(r.state.messages, 101)).toBeUndefined();
    expect(getMessage(r.state.messages, 134)).toBeUndefined();
    expect(channelMessageIds(r.state.messages, 1)).toEqual([112, 123, 145, 156]);
    // Per-user flags go with the messages; the input state still has them.
    for (const u of VERONA_SUBSCRIBERS) expect(hasRow(r.state, u, 101)).toBe(false);
    expect(hasRow(state, 4, 101)).toBe(true);
    expect(r.state.messages.count).toBe(state.messages.count - 2);
    // 101 was Verona's oldest message: the stream update comes first, to the same users.
    expect(r.events).toEqual([
      {
        event: {
          type: 'stream',
          op: 'update',
          property: 'first_message_id',
          value: 112,
          stream_id: 1,
          name: 'Verona',
        },
        users: VERONA_SUBSCRIBERS,
      },
      {
        event: {
          type: 'delete_message',
          message_ids: [101, 134],
          message_type: 'stream',
          stream_id: 1,
          topic: 'lunch',
        },
        users: VERONA_SUBSCRIBERS,
      },
    ]);
    expect(firstMessageIdInChannel(r.state.messages, 1)).toBe(112);
  });

  it('sends no first_message_id update when the oldest message stays', () => {
    const r = deleteTopic(state, as('iago'), { stream_id: 1, topic_name: 'weather' }, testCtx());
    ok(r);
    expect(r.events.map((e) => e.event.type)).toEqual(['delete_message', 'muted_topics', 'user_topic']);
    expect(r.events[0]!.event).toMatchObject({ message_ids: [112, 145], topic: 'weather' });
    // Hamlet had muted Verona > weather: his mute is reset, leaving no muted topics.
    expect(r.events[1]).toEqual({ event: { type: 'muted_topics', muted_topics: [] }, users: [4] });
  });

  it('reads "general chat" as the empty topic; other spellings are topics of their own', () => {
    const r = del(state, 1, { topic_name: 'general chat' });
    ok(r);
    expect(r.events).toEqual([
      {
        event: {
          type: 'delete_message',
          message_ids: [123, 156],
          message_type: 'stream',
          stream_id: 1,
          topic: '',
        },
        users: VERONA_SUBSCRIBERS,
      },
    ]);
    const empty = del(state, 1, { topic_name: '' });
    ok(empty);
    expect(empty.events[0]!.event).toMatchObject({ message_ids: [123, 156], topic: '' });
    const other = del(state, 1, { topic_name: 'General Chat' });
    ok(other);
    expect(other.state).toBe(state);
    expect(other.events).toEqual([]);
  });

  it('empties a channel: first_message_id becomes null', () => {
    const r = del(state, 9, { topic_name: 'general chat' });
    ok(r);
    expect(channelMessageIds(r.state.messages, 9)).toEqual([]);
    expect(r.events).toEqual([
      {
        event: {
          type: 'stream',
          op: 'update',
          property: 'first_message_id',
          value: null,
          stream_id: 9,
          name: 'general chat only',
        },
        users: [2, 4],
      },
      {
        event: {
          type: 'delete_message',
          message_ids: [109, 120, 131, 142, 153, 164],
          message_type: 'stream',
          stream_id: 9,
          topic: '',
        },
        users: [2, 4],
      },
    ]);
  });

  it('tells public-channel row holders who left (non-guests), guest subscribers, and not former guests', () => {
    // Rome is web-public; cordelia's subscription is inactive but she holds a historical row for 104.
    const r = del(state, 4, { topic_name: 'forum' });
    ok(r);
    expect(r.events).toEqual([
      {
        event: {
          type: 'stream',
          op: 'update',
          property: 'first_message_id',
          value: 115,
          stream_id: 4,
          name: 'Rome',
        },
        users: [2, 4, 5, 7, 10],
      },
      {
        event: {
          type: 'delete_message',
          message_ids: [104, 126, 148],
          message_type: 'stream',
          stream_id: 4,
          topic: 'forum',
        },
        users: [2, 4, 5, 7, 10],
      },
    ]);
  });

  it('tells only the subscribers of a private channel with shared history', () => {
    // core team: iago is subscribed, so has content access; the default bot is a subscriber too.
    const r = del(state, 6, { topic_name: 'roadmap' });
    ok(r);
    expect(r.events).toEqual([
      {
        event: {
          type: 'stream',
          op: 'update',
          property: 'first_message_id',
          value: 117,
          stream_id: 6,
          name: 'core team',
        },
        users: [1, 2, 4, 11],
      },
      {
        event: {
          type: 'delete_message',
          message_ids: [106, 128, 150],
          message_type: 'stream',
          stream_id: 6,
          topic: 'roadmap',
        },
        users: [1, 2, 4, 11],
      },
    ]);
  });

  it('deletes only the messages the admin received in a protected-history channel, and keeps follow rows of users who still see some', () => {
    const s = (() => {
      const snap = devSnapshot();
      const m107 = (snap['messages'] as Msg[]).find((m) => m.id === 107)!;
      delete m107.flags['1'];
      (snap['user_topics'] as unknown[]).push(
        { user_id: 1, stream_id: 7, topic_name: 'plans', visibility_policy: 3, last_updated: 1735694600 },
        { user_id: 5, stream_id: 7, topic_name: 'PLANS', visibility_policy: 1, last_updated: 1735694600 },
      );
      return createRealm(snap, { random: seededRandom(1) });
    })();
    const r = del(s, 7, { topic_name: 'Plans' }, 'desdemona');
    ok(r);
    expect(channelMessageIds(r.state.messages, 7)).toEqual([107]);
    expect(r.events).toEqual([
      {
        event: {
          type: 'delete_message',
          message_ids: [118, 129, 140, 151, 162],
          message_type: 'stream',
          stream_id: 7,
          topic: 'plans',
        },
        users: [1, 5],
      },
      { event: { type: 'muted_topics', muted_topics: [] }, users: [1] },
      {
        event: {
          type: 'user_topic',
          stream_id: 7,
          topic_name: 'Plans',
          last_updated: NOW,
          visibility_policy: 0,
        },
        users: [1],
      },
    ]);
    // Cordelia received 107, which is left: her mute stays. Desdemona's follow is gone.
    expect(r.state.userTopics.get(5)).toEqual(s.userTopics.get(5));
    expect(r.state.userTopics.get(1)).toBeUndefined();
    // Repeating deletes nothing more.
    const again = del(r.state, 7, { topic_name: 'Plans' }, 'desdemona');
    ok(again);
    expect(again.state).toBe(r.state);
    expect(again.events).toEqual([]);
  });

  it('resets every user topic policy for the topic in a public channel', () => {
    const r = del(state, 2, { topic_name: 'GHOST' });
    ok(r);
    expect(r.events).toEqual([
      {
        event: {
          type: 'delete_message',
          message_ids: [113, 146],
          message_type: 'stream',
          stream_id: 2,
          topic: 'ghost',
        },
        users: [1, 2, 4, 5, 6, 7, 9],
      },
      { event: { type: 'muted_topics', muted_topics: [['Verona', 'weather', 1735694600]] }, users: [4] },
      {
        event: {
          type: 'user_topic',
          stream_id: 2,
          topic_name: 'GHOST',
          last_updated: NOW,
          visibility_policy: 0,
        },
        users: [4],
      },
    ]);
    expect(r.state.userTopics.get(4)).toEqual([
      { user_id: 4, stream_id: 1, topic_name: 'weather', visibility_policy: 1, last_updated: 1735694600 },
    ]);
    expect(r.state.userTopics.get(5)).toBe(state.userTopics.get(5));
  });

  it('resets user topics even when the topic has no messages', () => {
    const snap = devSnapshot();
    (snap['user_topics'] as unknown[]).push({
      user_id: 5,
      stream_id: 1,
      topic_name: 'Nothing Here',
      visibility_policy: 2,
      last_updated: 1735694600,
    });
    const s = createRealm(snap, { random: seededRandom(1) });
    const r = del(s, 1, { topic_name: 'nothing here' });
    ok(r);
    expect(r.state.messages).toBe(s.messages);
    expect(r.events).toEqual([
      { event: { type: 'muted_topics', muted_topics: [['Denmark', 'castle', 1735694600]] }, users: [5] },
      {
        event: {
          type: 'user_topic',
          stream_id: 1,
          topic_name: 'nothing here',
          last_updated: NOW,
          visibility_policy: 0,
        },
        users: [5],
      },
    ]);
    expect(r.state.userTopics.get(5)).toEqual(state.userTopics.get(5));
  });

  it('succeeds without change for an empty or unknown topic (scenario: Empty or nonexistent topic)', () => {
    const r = del(state, 1, { topic_name: 'nothing' });
    ok(r);
    expect(r.state).toBe(state);
    expect(r.events).toEqual([]);
  });

  it('never lets a later message take the id of a deleted newest message (Zulip never reuses ids)', () => {
    const send = (s: RealmState) =>
      wire(s, 'hamlet', 'POST', '/messages', { type: 'stream', to: 'Verona', topic: 'brief', content: 'x' });
    const first = send(state);
    const id = (first.body as unknown as { id: number }).id;
    const r = del(first.state, 1, { topic_name: 'brief' });
    ok(r);
    expect(getMessage(r.state.messages, id)).toBeUndefined();
    expect(r.state.messages.lastId).toBe(id);
    const second = send(r.state);
    expect(second.body).toMatchObject({ result: 'success', id: id + 1 });
  });

  it('deletes newest first in batches of 100, one event per batch (scenario: Batches of 100, newest first)', () => {
    const s = withVeniceTopic(250, 'T');
    const r = del(s, 5, { topic_name: 't' });
    ok(r);
    const deletes = r.events.flatMap((e) => (e.event.type === 'delete_message' ? [e.event.message_ids] : []));
    expect(deletes).toEqual([range(350, 449), range(250, 349), range(200, 249)]);
    expect(r.events.every((e) => e.event.type === 'delete_message')).toBe(true);
    expect(r.events[0]!.users).toEqual([2, 4, 6]);
    expect(channelMessageIds(r.state.messages, 5)).toEqual(channelMessageIds(state.messages, 5));
  });

  it('stops when the batch budget runs out and finishes on repeat (complete: false)', () => {
    const s = withVeniceTopic(5);
    const ctx = testCtx({ deleteTopic: { batchSize: 2, maxBatches: 1 } });
    const first = del(s, 5, { topic_name: 'batch' }, 'iago', ctx);
    ok(first, false);
    expect(channelMessageIds(first.state.messages, 5).filter((id) => id >= 200)).toEqual([200, 201, 202]);
    expect(first.events).toEqual([
      {
        event: {
          type: 'delete_message',
          message_ids: [203, 204],
          message_type: 'stream',
          stream_id: 5,
          topic: 'batch',
        },
        users: [2, 4, 6],
      },
    ]);
    const second = del(first.state, 5, { topic_name: 'batch' }, 'iago', ctx);
    ok(second, false);
    expect(second.events[0]!.event).toMatchObject({ message_ids: [201, 202] });
    const third = del(second.state, 5, { topic_name: 'batch' }, 'iago', ctx);
    ok(third, true);
    expect(third.events[0]!.event).toMatchObject({ message_ids: [200] });
    expect(channelMessageIds(third.state.messages, 5)).toEqual(channelMessageIds(state.messages, 5));
    // A plain repeat (no budget) finishes in one call.
    const rest = deleteTopic(first.state, as('iago'), { stream_id: 5, topic_name: 'batch' }, testCtx());
    ok(rest);
    expect(rest.events[0]!.event).toMatchObject({ message_ids: [200, 201, 202] });
  });

  it('answers complete: false without change when no batch may run (scenario: Time budget exceeded)', () => {
    const r = del(state, 1, { topic_name: 'lunch' }, 'iago', testCtx({ deleteTopic: { maxBatches: 0 } }));
    ok(r, false);
    expect(r.state).toBe(state);
    expect(r.events).toEqual([]);
  });

  it.each<CastName>(['shiva', 'hamlet', 'polonius', 'defaultBot'])(
    'refuses %s: not an administrator, before parameters',
    (who) => {
      refused(
        del(state, 1, {}, who),
        state,
        'Must be an organization administrator',
        'UNAUTHORIZED_PRINCIPAL',
      );
    },
  );

  it('refuses a member and keeps the messages (scenario: Non-admin rejected before anything else)', () => {
    const r = del(state, 1, { topic_name: 'lunch' }, 'hamlet');
    refused(r, state, 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
    expect(getMessage(r.state.messages, 101)).toBeDefined();
  });

  it('requires topic_name (scenario: Missing topic_name)', () => {
    refused(del(state, 1, {}), state, "Missing 'topic_name' argument", 'REQUEST_VARIABLE_MISSING', {
      var_name: 'topic_name',
    });
  });

  it('refuses an unknown channel id (scenario: Unknown channel id)', () => {
    refused(del(state, 99999, { topic_name: 'x' }), state, 'Invalid channel ID');
    refused(deleteTopic(state, as('iago'), { stream_id: 0, topic_name: 'x' }), state, 'Invalid channel ID');
  });

  it('refuses an admin without content access to a private channel (scenario: Admin without content access)', () => {
    // iago is not subscribed to secrets and in no group granting access.
    refused(del(state, 7, { topic_name: 'plans' }), state, 'Invalid channel ID');
  });

  it('refuses an archived channel even to a subscribed admin', () => {
    refused(del(state, 8, { topic_name: '2019 news' }), state, 'Invalid channel ID');
  });

  it('checks topic_name before the channel', () => {
    refused(del(state, 99999, {}), state, "Missing 'topic_name' argument", 'REQUEST_VARIABLE_MISSING', {
      var_name: 'topic_name',
    });
  });

  it.each([
    [{ stream_id: -1, topic_name: 'x' }, 'stream_id is too small'],
    [{ stream_id: 1.5, topic_name: 'x' }, 'stream_id is not an integer'],
    [{ stream_id: '1', topic_name: 'x' }, 'stream_id is not an integer'],
    [{ stream_id: 1, topic_name: 5 }, 'topic_name is not a string'],
  ])('refuses malformed library params %j', (params, msg) => {
    refused(loose(deleteTopic)(state, as('iago'), params), state, msg);
  });

  it('takes topic_name as a plain string on the wire (no JSON decoding)', () => {
    const r = del(state, 1, { topic_name: '"lunch"' });
    ok(r);
    expect(r.state).toBe(state);
  });

  it('takes stream_id from the path, never from the form', () => {
    const r = del(state, 1, { topic_name: 'lunch', stream_id: '7' });
    ok(r);
    expect(r.events.at(-1)!.event).toMatchObject({ stream_id: 1, message_ids: [101, 134] });
  });

  it('reports unknown parameters as ignored', () => {
    const r = del(state, 1, { topic_name: 'nothing', topic: 'lunch' });
    expect(r.body).toEqual({
      result: 'success',
      msg: '',
      complete: true,
      ignored_parameters_unsupported: ['topic'],
    });
    expectValidResponse(OP, 200, r.body);
  });

  it('is total and pure on failure (library)', () => {
    const shaped = [
      fc.integer({ min: -1, max: 12 }),
      fc.constantFrom('lunch', 'general chat', '', 'plans', 'LUNCH'),
    ];
    checkLibraryLaws(deleteTopic, state, arbParams(['stream_id', 'topic_name'], shaped));
  });

  it('is total and pure on failure (wire)', () => {
    const params = fc.dictionary(
      fc.constantFrom('topic_name', 'stream_id', 'extra'),
      fc.oneof(fc.string(), fc.constantFrom('lunch', 'general chat', '', '1')),
      { maxKeys: 3 },
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...CAST_NAMES, null),
        fc.integer({ min: 0, max: 12 }),
        params,
        (who, id, p) => {
          expectLawful(deleteTopic, state, wire(state, who, 'POST', `/streams/${id}/delete_topic`, p));
        },
      ),
      { numRuns: 100 },
    );
  });

  it('never leaves a deleted message behind for anyone (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 }),
        fc.constantFrom('lunch', 'weather', 'general chat', 'castle', 'hello', 'canals'),
        (id, topic) => {
          const r = deleteTopic(state, as('desdemona'), { stream_id: id, topic_name: topic }, testCtx());
          expectLawful(deleteTopic, state, r);
          if (r.status !== 200) return;
          const deleted = r.events.flatMap((e) =>
            e.event.type === 'delete_message' ? [...e.event.message_ids] : [],
          );
          for (const m of deleted) {
            expect(getMessage(r.state.messages, m)).toBeUndefined();
            for (const u of Object.values(cast)) expect(hasRow(r.state, u, m)).toBe(false);
          }
          expect(r.state.messages.count).toBe(state.messages.count - deleted.length);
        },
      ),
      { numRuns: 60 },
    );
  });
});
