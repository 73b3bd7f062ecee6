import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getStreamTopics } from '../../src/ops/channels/getStreamTopics';
import { sendMessage } from '../../src/ops/messages/sendMessage';
import { createRealm } from '../../src/core/snapshot/create';
import { seededRandom } from '../../src/core/context';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { expectRead, expectRefused } from '../support/read-ops';
import { as, cast, devRealm, devSnapshot, testCtx, wire } from '../support/realm';

const OP = 'get-stream-topics';
const state = devRealm();

describe('getStreamTopics', () => {
  it('lists topics newest first by max_id (test_message_topics.py: test_get_topics_history)', () => {
    const body = expectRead(OP, wire(state, 'hamlet', 'GET', '/users/me/1/topics'), state);
    expect(body).toEqual({
      result: 'success',
      msg: '',
      topics: [
        { name: 'general chat', max_id: 156 },
        { name: 'weather', max_id: 145 },
        { name: 'lunch', max_id: 134 },
      ],
    });
    // The empty topic keeps its real name with allow_empty_topic_name.
    const raw = getStreamTopics(state, as('hamlet'), { stream_id: 1, allow_empty_topic_name: true });
    expect((raw.body as { topics: Array<{ name: string }> }).topics[0]!.name).toBe('');
  });

  it('merges topics differing in case, named as the latest message spells them', () => {
    const sent = sendMessage(
      state,
      as('hamlet'),
      { type: 'stream', to: 1, topic: 'LUNCH', content: 'x' },
      testCtx(),
    );
    expect(sent.status).toBe(200);
    const id = (sent.body as unknown as { id: number }).id;
    const topics = (getStreamTopics(sent.state, as('iago'), { stream_id: 1 }).body as { topics: unknown[] })
      .topics;
    expect(topics[0]).toEqual({ name: 'LUNCH', max_id: id });
    expect(topics).toHaveLength(3);
  });

  it('counts only messages the user holds in a channel with protected history (get_topic_history_for_stream)', () => {
    // #secrets (7) does not share history: a new subscriber with no rows sees no topics.
    const snap = devSnapshot();
    snap.subscriptions.push({ user_id: cast.hamlet, stream_id: 7, color: '#ffffff' });
    const s = createRealm(snap, { random: seededRandom(1) });
    expect(getStreamTopics(s, as('hamlet'), { stream_id: 7 }).body).toMatchObject({ topics: [] });
    const cordelia = getStreamTopics(s, as('cordelia'), { stream_id: 7 }).body as { topics: unknown[] };
    expect(cordelia.topics.length).toBeGreaterThan(0);
  });

  it('lists every message of a shared-history channel, rows or not', () => {
    // Iago is not subscribed to #newcomers (public, shared history) and holds no rows there.
    const body = expectRead(OP, getStreamTopics(state, as('iago'), { stream_id: 10 }), state);
    expect((body['topics'] as unknown[]).length).toBeGreaterThan(0);
  });

  it('answers Invalid channel ID for channels the caller cannot access (access_stream_by_id)', () => {
    expectRefused(OP, getStreamTopics(state, as('hamlet'), { stream_id: 7 }), state, 'Invalid channel ID');
    expectRefused(OP, getStreamTopics(state, as('polonius'), { stream_id: 2 }), state, 'Invalid channel ID');
    expectRefused(OP, wire(state, 'hamlet', 'GET', '/users/me/999/topics'), state, 'Invalid channel ID');
  });

  it('serves spectators web-public channels only (access_web_public_stream)', () => {
    // Spectators reach it through the library (Zulip serves them on /json paths only).
    const spectator = { anonymous: true } as const;
    expectRead(OP, getStreamTopics(state, spectator, { stream_id: 4 }), state);
    expectRefused(OP, getStreamTopics(state, spectator, { stream_id: 1 }), state, 'Invalid channel ID');
    // On /api/v1 a request without credentials gets rest_dispatch's authentication error.
    const api = wire(state, null, 'GET', '/users/me/4/topics');
    expect(api.status).toBe(401);
    expect(api.body).toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('is total and pure on failure', () => {
    checkLibraryLaws(
      getStreamTopics,
      state,
      arbParams(['stream_id', 'allow_empty_topic_name'], [fc.integer({ min: 0, max: 11 }), fc.boolean()]),
    );
    checkWireLaws(getStreamTopics, state, arbWireParams(['stream_id', 'allow_empty_topic_name']));
  });
});
