/**
 * zulip-js (unmodified) over loopback: `users.me.subscriptions.add` joins a channel and creates
 * one, the events reach other users' queues, and the change is recorded so a reopened realm has it.
 * Its own file: zulip-js replaces the global FormData.
 */
import { describe, expect, it } from 'vitest';
import { openRealm } from '../../src/host/realm-handle';
import { expectValidEvent, expectValidResponse } from '../support/openapi';
import { cast, devSnapshot } from '../support/realm';
import { zulipJsServer } from '../support/zulip-js-server';

const served = zulipJsServer();
const as = served.as;

describe('zulip-js: users.me.subscriptions.add', () => {
  it('joins an existing channel; peers learn it through their queues', async () => {
    const hamlet = await as('hamlet');
    const reg = await hamlet.queues.register({ event_types: ['subscription'] });
    const cordelia = await as('cordelia');
    const r = await cordelia.users.me.subscriptions.add({
      subscriptions: JSON.stringify([{ name: 'Venice' }]),
    });
    expectValidResponse('subscribe', 200, r);
    expect(r).toMatchObject({ subscribed: { [String(cast.cordelia)]: ['Venice'] }, already_subscribed: {} });
    const got = await hamlet.events.retrieve({
      queue_id: reg['queue_id'],
      last_event_id: -1,
      dont_block: true,
    });
    const events = got['events'] as Array<Record<string, unknown>>;
    for (const e of events) expectValidEvent(e);
    expect(events).toEqual([
      expect.objectContaining({
        type: 'subscription',
        op: 'peer_add',
        stream_ids: [5],
        user_ids: [cast.cordelia],
      }),
    ]);
  });

  it('creates a channel; it survives reopening the store', async () => {
    const hamlet = await as('hamlet');
    const r = await hamlet.users.me.subscriptions.add({
      subscriptions: JSON.stringify([{ name: 'zulip-js made', description: 'From a client' }]),
    });
    expectValidResponse('subscribe', 200, r);
    const reopened = await openRealm({ store: served.store, snapshot: devSnapshot() });
    const channel = [...reopened.state.channels.values()].find((c) => c.name === 'zulip-js made');
    expect(channel).toMatchObject({ description: 'From a client', creator_id: cast.hamlet });
    expect(reopened.state.subscriptions.get(channel!.stream_id)?.get(cast.hamlet)?.active).toBe(true);
    await reopened.close();
  });
});
