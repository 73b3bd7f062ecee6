/**
 * zulip-js (unmodified) over loopback against `withEventQueues`: typing notifications reach the
 * recipients' queues, presence pings answer and never touch the change log, custom emoji answer.
 * Its own file: zulip-js replaces the global FormData.
 */
import { describe, expect, it } from 'vitest';
import { expectValidResponse } from '../support/openapi';
import { cast } from '../support/realm';
import { zulipJsServer } from '../support/zulip-js-server';

const served = zulipJsServer();
const as = served.as;

describe('zulip-js: typing, presence, emoji', () => {
  it('typing.send reaches the recipients through their queues', async () => {
    const cordelia = await as('cordelia');
    const reg = await cordelia.queues.register({ event_types: ['typing'] });
    const hamlet = await as('hamlet');
    const sent = await hamlet.typing.send({ to: [cast.cordelia, cast.othello], op: 'start' });
    expectValidResponse('set-typing-status', 200, sent);
    const got = await cordelia.events.retrieve({
      queue_id: reg['queue_id'],
      last_event_id: -1,
      dont_block: true,
    });
    expect(got['events']).toEqual([
      expect.objectContaining({
        type: 'typing',
        op: 'start',
        sender: expect.objectContaining({ user_id: cast.hamlet }),
      }),
    ]);
  });

  it('presence pings answer every presence, and the change log stays empty', async () => {
    const hamlet = await as('hamlet');
    const r = await hamlet.callEndpoint('/users/me/presence', 'POST', { status: 'active' });
    expectValidResponse('update-presence', 200, r);
    expect(Object.keys(r['presences'] as object)).toEqual([served.realm.state.users.get(cast.hamlet)!.email]);
    const all = await (await as('iago')).callEndpoint('/realm/presence', 'GET', {});
    expectValidResponse('get-presence', 200, all);
    expect(await served.store.changesSince(0)).toEqual([]);
  });

  it('emojis.retrieve answers the realm emoji', async () => {
    const r = await (await as('hamlet')).emojis.retrieve();
    expect(r).toMatchObject({ result: 'success', emoji: {} });
  });
});
