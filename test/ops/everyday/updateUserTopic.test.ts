import { describe, expect, it } from 'vitest';
import type { OpResult } from '../../../src/core/result';
import { registerState } from '../../../src/core/register/register-state';
import { updateUserTopic } from '../../../src/ops/personal/updateUserTopic';
import { expectRefused } from '../../support/expect-result';
import { expectValidEvent, expectValidResponse } from '../../support/openapi';
import { as, cast, devRealm, testCtx, wire } from '../../support/realm';

const OP = 'update-user-topic';
const NOW = 1795219200;
const state = devRealm();
const set = (s = state, p: Record<string, unknown>, who: 'hamlet' | 'cordelia' = 'hamlet') =>
  updateUserTopic(s, as(who), p as never, testCtx());

function ok(r: OpResult): void {
  expect(r.status).toBe(200);
  expectValidResponse(OP, 200, r.body);
  for (const e of r.events) expectValidEvent(e.event);
}

describe('updateUserTopic (zerver/views/user_topics.py update_user_topic; test_user_topics.py)', () => {
  it('follows a topic: muted_topics then user_topic to the caller (test_user_topics.py test_user_topic_events)', () => {
    const r = set(state, { stream_id: 1, topic: 'lunch', visibility_policy: 3 });
    ok(r);
    expect(r.body).toEqual({ result: 'success', msg: '' });
    expect(r.events.map((e) => e.event.type)).toEqual(['muted_topics', 'user_topic']);
    expect(r.events[1]).toEqual({
      event: {
        type: 'user_topic',
        stream_id: 1,
        topic_name: 'lunch',
        last_updated: NOW,
        visibility_policy: 3,
      },
      users: [cast.hamlet],
    });
    const reg = registerState(r.state, cast.hamlet, { fetch_event_types: ['user_topic'] }, NOW);
    expect(reg['user_topics']).toContainEqual({
      stream_id: 1,
      topic_name: 'lunch',
      visibility_policy: 3,
      last_updated: NOW,
    });
  });

  it('mutes, then updates the row found case-insensitively, keeping its spelling (bulk_set_user_topic_visibility_policy_in_database)', () => {
    const muted = set(state, { stream_id: 1, topic: 'Lunch', visibility_policy: 1 });
    ok(muted);
    expect(muted.events[0]?.event).toMatchObject({ type: 'muted_topics' });
    expect((muted.events[0]?.event as { muted_topics?: unknown[] } | undefined)?.muted_topics).toContainEqual(
      ['Verona', 'Lunch', NOW],
    );
    const unmuted = set(muted.state, { stream_id: 1, topic: 'LUNCH', visibility_policy: 2 });
    ok(unmuted);
    const rows = unmuted.state.userTopics.get(cast.hamlet)?.filter((t) => t.stream_id === 1) ?? [];
    expect(rows.filter((t) => t.topic_name.toLowerCase() === 'lunch')).toEqual([
      { user_id: cast.hamlet, stream_id: 1, topic_name: 'Lunch', visibility_policy: 2, last_updated: NOW },
    ]);
  });

  it('inherit removes the row; setting the current policy or removing nothing changes nothing (no events)', () => {
    const followed = set(state, { stream_id: 1, topic: 'lunch', visibility_policy: 3 });
    const again = set(followed.state, { stream_id: 1, topic: 'lunch', visibility_policy: 3 });
    ok(again);
    expect(again.state).toBe(followed.state);
    expect(again.events).toEqual([]);
    const removed = set(followed.state, { stream_id: 1, topic: 'LUNCH', visibility_policy: 0 });
    ok(removed);
    expect(removed.events[1]?.event).toMatchObject({ type: 'user_topic', visibility_policy: 0 });
    expect(removed.state.userTopics.get(cast.hamlet)).toEqual(state.userTopics.get(cast.hamlet));
    const none = set(state, { stream_id: 1, topic: 'nothing here', visibility_policy: 0 });
    expect(none.state).toBe(state);
    expect(none.events).toEqual([]);
  });

  it("Zulip's errors, in its order (test_user_topics.py test_invalid_stream_id, test_invalid_visibility_policy)", () => {
    expectRefused(
      OP,
      set(state, { stream_id: 999, topic: 'x', visibility_policy: 1 }),
      state,
      'Invalid channel ID',
    );
    // Not subscribed to a private channel: no access to set a policy…
    expectRefused(
      OP,
      set(state, { stream_id: 7, topic: 'x', visibility_policy: 1 }),
      state,
      'Invalid channel ID',
    );
    // …but removing one only needs the channel to exist (access_stream_to_remove_visibility_policy_by_id).
    expect(set(state, { stream_id: 7, topic: 'x', visibility_policy: 0 }).status).toBe(200);
    expectRefused(
      OP,
      set(state, { stream_id: 999, topic: 'x', visibility_policy: 0 }),
      state,
      'Invalid channel ID',
    );
    expectRefused(
      OP,
      set(state, { stream_id: 1, topic: 'x', visibility_policy: 4 }),
      state,
      'Invalid visibility_policy',
    );
    expectRefused(
      OP,
      set(state, { stream_id: 1, topic: 'x'.repeat(61), visibility_policy: 9 }),
      state,
      'topic is too long (limit: 60 characters)',
    );
  });

  it('over the wire, as zulip-js and the Python client send it', () => {
    const r = wire(
      state,
      'hamlet',
      'POST',
      '/user_topics',
      { stream_id: '1', topic: 'lunch', visibility_policy: '1' },
      testCtx(),
    );
    expect(r.status).toBe(200);
    expectValidResponse(OP, 200, r.body);
    const missing = wire(
      state,
      'hamlet',
      'POST',
      '/user_topics',
      { stream_id: '1', topic: 'lunch' },
      testCtx(),
    );
    expect(missing.body).toMatchObject({ code: 'REQUEST_VARIABLE_MISSING', var_name: 'visibility_policy' });
  });
});
