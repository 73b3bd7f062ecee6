/**
 * zulip-js (unmodified) over loopback for issue 26's personal endpoints: alert words (its
 * `users.me.alertWords.retrieve`, the rest through `callEndpoint`), muted users, status and topic
 * visibility; each client's queue receives the event for its change. Its own file: zulip-js
 * replaces the global FormData.
 */
import { describe, expect, it } from 'vitest';
import { expectValidResponse } from '../support/openapi';
import { cast } from '../support/realm';
import { zulipJsServer } from '../support/zulip-js-server';

const served = zulipJsServer({ now: () => 1_795_219_200 });
const as = served.as;

describe('zulip-js: personal state', () => {
  it('alert words, muted users, status and topic visibility, with their events', async () => {
    const hamlet = await as('hamlet');
    const reg = await hamlet.queues.register({
      event_types: ['alert_words', 'muted_users', 'user_status', 'user_topic'],
    });
    expect(reg['alert_words']).toEqual([]);
    const added = await hamlet.callEndpoint('/users/me/alert_words', 'POST', {
      alert_words: JSON.stringify(['lunch']),
    });
    expectValidResponse('add-alert-words', 200, added);
    // zulip-js has this call; the project's type declarations for zulip-js do not list it.
    const me = hamlet.users.me as unknown as { alertWords: { retrieve(): Promise<unknown> } };
    expect(await me.alertWords.retrieve()).toEqual({
      result: 'success',
      msg: '',
      alert_words: ['lunch'],
    });
    const muted = await hamlet.callEndpoint(`/users/me/muted_users/${cast.cordelia}`, 'POST', {});
    expectValidResponse('mute-user', 200, muted);
    const status = await hamlet.callEndpoint('/users/me/status', 'POST', { status_text: 'Reading' });
    expectValidResponse('update-status', 200, status);
    const topic = await hamlet.callEndpoint('/user_topics', 'POST', {
      stream_id: 1,
      topic: 'lunch',
      visibility_policy: 3,
    });
    expectValidResponse('update-user-topic', 200, topic);
    const got = await hamlet.events.retrieve({
      queue_id: reg['queue_id'],
      last_event_id: -1,
      dont_block: true,
    });
    expectValidResponse('get-events', 200, got);
    expect((got['events'] as Array<{ type: string }>).map((e) => e.type)).toEqual([
      'alert_words',
      'muted_users',
      'user_status',
      'user_topic',
    ]);
  });
});
