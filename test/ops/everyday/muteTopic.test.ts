import { describe, expect, it } from 'vitest';
import { muteTopic } from '../../../src/ops/personal/muteTopic';
import { expectRefused } from '../../support/expect-result';
import { expectValidEvent, expectValidResponse } from '../../support/openapi';
import { as, cast, devRealm, testCtx, wire } from '../../support/realm';

const OP = 'mute-topic';
const NOW = 1795219200;
const state = devRealm();
const call = (s = state, p: Record<string, unknown>) => muteTopic(s, as('hamlet'), p as never, testCtx());

describe('muteTopic (zerver/views/user_topics.py update_muted_topic; test_muted_topics.py)', () => {
  it('mutes by channel name or id and unmutes (test_muted_topic_add / test_muted_topic_remove)', () => {
    const r = call(state, { stream: 'verona', topic: 'Soup', op: 'add' });
    expect(r.status).toBe(200);
    expectValidResponse(OP, 200, r.body);
    for (const e of r.events) expectValidEvent(e.event);
    expect(r.events[1]).toEqual({
      event: {
        type: 'user_topic',
        stream_id: 1,
        topic_name: 'Soup',
        last_updated: NOW,
        visibility_policy: 1,
      },
      users: [cast.hamlet],
    });
    const un = call(r.state, { stream_id: 1, topic: 'soup', op: 'remove' });
    expect(un.status).toBe(200);
    expect(un.events[1]?.event).toMatchObject({ type: 'user_topic', visibility_policy: 0 });
    expect(un.state.userTopics.get(cast.hamlet)).toEqual(state.userTopics.get(cast.hamlet));
  });

  it("Zulip's errors (test_muted_topic_add_invalid, test_muted_topic_remove_invalid)", () => {
    const both = call(state, { stream: 'Verona', stream_id: 1, topic: 'x', op: 'add' });
    expectRefused(OP, both, state, 'Unsupported parameter combination: stream_id, stream', 'BAD_REQUEST', {
      parameters: 'stream_id, stream',
    });
    expect(call(state, { topic: 'x', op: 'add' }).body['msg']).toBe(
      'Unsupported parameter combination: stream_id, stream',
    );
    expectRefused(
      OP,
      call(state, { stream: 'nope', topic: 'x', op: 'add' }),
      state,
      "Invalid channel name 'nope'",
    );
    expectRefused(OP, call(state, { stream_id: 999, topic: 'x', op: 'add' }), state, 'Invalid channel ID');
    expectRefused(OP, call(state, { stream_id: 999, topic: 'x', op: 'remove' }), state, 'Topic is not muted');
    expectRefused(OP, call(state, { stream: 'nope', topic: 'x', op: 'remove' }), state, 'Topic is not muted');
  });

  it("over the wire, as the Python client's mute_topic sends it", () => {
    const r = wire(state, 'hamlet', 'PATCH', '/users/me/subscriptions/muted_topics', {
      stream: 'Verona',
      topic: 'soup',
      op: 'add',
    });
    expect(r.status).toBe(200);
    expect(
      wire(state, 'hamlet', 'PATCH', '/users/me/subscriptions/muted_topics', {
        stream: 'Verona',
        topic: 'x',
        op: 'mute',
      }).body['msg'],
    ).toBe('Invalid op');
  });
});
