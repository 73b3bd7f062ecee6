/**
 * Live clients end to end over loopback: the real zulip-js (unmodified) registers a queue against
 * `withEventQueues` on a realm handle, another user changes something, and `events.retrieve`
 * returns the event; a long-poll is answered when a change arrives; DELETE /events then
 * BAD_EVENT_QUEUE_ID; expiry with an injected clock; bad input. Waits are bounded by
 * `vi.waitFor`/timeouts, never by sleeps. Its own file: zulip-js replaces the global FormData.
 */
import zulip, { type ZulipClient } from 'zulip-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withEventQueues, type LiveRealm } from '../../src/host/live-realm';
import type { QueueClock } from '../../src/host/event-queues';
import { openRealm, type RealmHandle } from '../../src/host/realm-handle';
import { createFetchHandler } from '../../src/server/fetch';
import { serveNode, type NodeServer } from '../../src/server/node';
import { memoryStore } from '../../src/stores/memory/index';
import { expectValidResponse } from '../support/openapi';
import { cast, devSnapshot, type CastName } from '../support/realm';

/** A manual clock: time moves only when the test says; timers fire when their time is passed. */
class ManualClock implements QueueClock {
  t = 1_795_219_200_000;
  private timers = new Map<number, { at: number; fn: () => void }>();
  private next = 1;
  now = () => this.t;
  setTimer = (fn: () => void, ms: number) => {
    const id = this.next++;
    this.timers.set(id, { at: this.t + ms, fn });
    return id;
  };
  clearTimer = (id: unknown) => void this.timers.delete(id as number);
  advance(ms: number): void {
    this.t += ms;
    for (const [id, timer] of [...this.timers])
      if (timer.at <= this.t) {
        this.timers.delete(id);
        timer.fn();
      }
  }
}

let realm: RealmHandle;
let live: LiveRealm;
let server: NodeServer;
const clock = new ManualClock();

beforeAll(async () => {
  realm = await openRealm({
    store: memoryStore(),
    snapshot: devSnapshot(),
    ctx: { now: () => Math.floor(clock.t / 1000) },
  });
  live = withEventQueues(realm, { clock, heartbeatSecs: () => 50 });
  server = await serveNode({ handler: createFetchHandler({ realm: live }) });
});

afterAll(async () => {
  live?.close();
  await server?.close();
  await realm?.close();
});

async function as(who: CastName): Promise<ZulipClient> {
  const user = realm.state.users.get(cast[who])!;
  return zulip({ realm: server.url, username: user.delivery_email, apiKey: user.api_key });
}

/** Everything the queue holds, without waiting, checked against Zulip's schema. */
async function pending(client: ZulipClient, queueId: unknown): Promise<Record<string, unknown>> {
  const got = await client.events.retrieve({ queue_id: queueId, last_event_id: -1, dont_block: true });
  expectValidResponse('get-events', 200, got);
  return got;
}

const editDescription = async (who: CastName, description: string) =>
  (await as(who)).callEndpoint('/streams/3', 'PATCH', { description });

describe('zulip-js against event queues', () => {
  it('server_settings answers without credentials', async () => {
    const r = (await fetch(`${server.url}/api/v1/server_settings`).then((x) => x.json())) as Record<
      string,
      unknown
    >;
    expectValidResponse('get-server-settings', 200, r);
    expect(r['zulip_feature_level']).toBe(realm.state.server.feature_level);
  });

  it('register, a change by another user, events.retrieve', async () => {
    const hamlet = await as('hamlet');
    const reg = await hamlet.queues.register({ event_types: ['stream'] });
    expectValidResponse('register-queue', 200, reg);
    expect(reg['last_event_id']).toBe(-1);
    expect(Array.isArray(reg['streams'])).toBe(true);
    expect(reg).not.toHaveProperty('realm_users');
    expect((await editDescription('iago', 'Fair Verona, live')).result).toBe('success');
    const got = await pending(hamlet, reg['queue_id']);
    expect(got['events']).toEqual([
      expect.objectContaining({
        id: 0,
        type: 'stream',
        op: 'update',
        property: 'description',
        value: 'Fair Verona, live',
      }),
    ]);
  });

  it('a long-poll is answered when the change arrives', async () => {
    const hamlet = await as('hamlet');
    const reg = await hamlet.queues.register({ event_types: ['stream'] });
    const poll = hamlet.events.retrieve({ queue_id: reg['queue_id'], last_event_id: -1 });
    // The poll is waiting: nothing has changed yet.
    await new Promise((r) => setTimeout(r, 20));
    let answered = false;
    void poll.then(() => (answered = true));
    expect(answered).toBe(false);
    await editDescription('iago', 'Long-polled');
    const got = await poll;
    expect(got['events']).toEqual([expect.objectContaining({ id: 0, value: 'Long-polled' })]);
    // Acknowledged: the next non-blocking read is empty, and ids continue without a gap.
    await editDescription('iago', 'Again');
    const next = await hamlet.events.retrieve({
      queue_id: reg['queue_id'],
      last_event_id: 0,
      dont_block: true,
    });
    expect(next['events']).toEqual([expect.objectContaining({ id: 1, value: 'Again' })]);
  });

  it('a waiting poll gets a heartbeat', async () => {
    const hamlet = await as('hamlet');
    const reg = await hamlet.queues.register({ event_types: ['stream'] });
    const poll = hamlet.events.retrieve({ queue_id: reg['queue_id'], last_event_id: -1 });
    await new Promise((r) => setTimeout(r, 20));
    clock.advance(50_000);
    const got = await poll;
    expect(got['events']).toEqual([{ type: 'heartbeat', id: 0 }]);
    expectValidResponse('get-events', 200, got);
  });

  it('DELETE /events, then BAD_EVENT_QUEUE_ID', async () => {
    const hamlet = await as('hamlet');
    const reg = await hamlet.queues.register({});
    const deleted = await hamlet.queues.deregister({ queue_id: reg['queue_id'] });
    expectValidResponse('delete-queue', 200, deleted);
    expect(deleted).toEqual({ result: 'success', msg: '' });
    const again = await hamlet.queues.deregister({ queue_id: reg['queue_id'] });
    expectValidResponse('delete-queue', 400, again);
    expect(again['code']).toBe('BAD_EVENT_QUEUE_ID');
    const got = await hamlet.events.retrieve({
      queue_id: reg['queue_id'],
      last_event_id: -1,
      dont_block: true,
    });
    expect(got).toEqual({
      result: 'error',
      msg: `Bad event queue ID: ${String(reg['queue_id'])}`,
      code: 'BAD_EVENT_QUEUE_ID',
      queue_id: reg['queue_id'],
    });
    expectValidResponse('get-events', 400, got);
  });

  it('an idle queue expires after 10 minutes (injected clock)', async () => {
    const hamlet = await as('hamlet');
    const reg = await hamlet.queues.register({ event_types: ['stream'] });
    clock.advance(599_000);
    expect(
      (await hamlet.events.retrieve({ queue_id: reg['queue_id'], last_event_id: -1, dont_block: true }))
        .result,
    ).toBe('success');
    const before = live.queues.size;
    clock.advance(600_000); // the minute collector runs inside the advance, as Zulip's would
    expect(live.queues.size).toBeLessThan(before);
    const got = await hamlet.events.retrieve({
      queue_id: reg['queue_id'],
      last_event_id: -1,
      dont_block: true,
    });
    expect(got['code']).toBe('BAD_EVENT_QUEUE_ID');
  });

  it("bad input: someone else's queue, negative or future last_event_id, malformed event_types", async () => {
    const hamlet = await as('hamlet');
    const othello = await as('othello');
    const reg = await hamlet.queues.register({ event_types: ['stream'] });
    const qid = reg['queue_id'];
    expect(
      (await othello.events.retrieve({ queue_id: qid, last_event_id: -1, dont_block: true }))['code'],
    ).toBe('BAD_EVENT_QUEUE_ID');
    expect((await othello.queues.deregister({ queue_id: qid }))['code']).toBe('BAD_EVENT_QUEUE_ID');
    expect((await hamlet.events.retrieve({ queue_id: 'no-such-queue', last_event_id: -1 }))['code']).toBe(
      'BAD_EVENT_QUEUE_ID',
    );
    await editDescription('iago', 'Kept');
    expect(
      await hamlet.events.retrieve({ queue_id: qid, last_event_id: -5, dont_block: true }),
    ).toMatchObject({
      result: 'error',
      msg: 'An event newer than -5 has already been pruned!',
    });
    expect(await hamlet.events.retrieve({ queue_id: qid, last_event_id: 7, dont_block: true })).toMatchObject(
      {
        result: 'error',
        msg: 'Event 7 was not in this queue',
      },
    );
    expect(
      await hamlet.events.retrieve({ queue_id: qid, last_event_id: 'x', dont_block: true }),
    ).toMatchObject({
      result: 'error',
      msg: 'last_event_id is not valid JSON',
    });
    // Nothing was lost to the refusals.
    const got = await hamlet.events.retrieve({ queue_id: qid, last_event_id: -1, dont_block: true });
    expect(got['events']).toEqual([expect.objectContaining({ id: 0, value: 'Kept' })]);
    const bad = await hamlet.callEndpoint('/register', 'POST', { event_types: '"stream"' });
    expect(bad).toMatchObject({ result: 'error', msg: 'event_types is not a list' });
    const bad2 = await hamlet.callEndpoint('/register', 'POST', { event_types: '[1]' });
    expect(bad2).toMatchObject({ result: 'error', msg: 'event_types[0] is not a string' });
  });

  it('a narrow at register: only the message events it matches; an unsupported operator refused', async () => {
    const hamlet = await as('hamlet');
    const othello = await as('othello');
    const reg = await hamlet.queues.register({
      event_types: ['message'],
      narrow: JSON.stringify([
        ['stream', 'verona'],
        ['topic', 'plans'],
      ]),
    });
    expectValidResponse('register-queue', 200, reg);
    const sent = [
      await othello.messages.send({ type: 'stream', to: 'Verona', topic: 'Plans', content: 'in' }),
      await othello.messages.send({ type: 'stream', to: 'Verona', topic: 'other', content: 'out' }),
      await othello.messages.send({ type: 'direct', to: JSON.stringify([cast.hamlet]), content: 'out' }),
      await othello.messages.send({ type: 'stream', to: 'Verona', topic: 'weekend plans', content: 'in' }),
    ];
    for (const r of sent) expect(r.result).toBe('success');
    const got = await pending(hamlet, reg['queue_id']);
    const events = got['events'] as { id: number; message: { id: number; content: string } }[];
    // Zulip's narrow_predicate compares the whole topic, case-insensitively: 'weekend plans' is out.
    expect(events.map((e) => [e.id, e.message.id])).toEqual([[0, sent[0]!['id']]]);

    const refused = await hamlet.queues.register({ narrow: JSON.stringify([['search', 'plans']]) });
    expectValidResponse('register-queue', 400, refused);
    expect(refused).toEqual({ result: 'error', msg: 'Operator search not supported.', code: 'BAD_REQUEST' });
    const followed = await hamlet.queues.register({ narrow: JSON.stringify([['is', 'followed']]) });
    expect(followed['msg']).toBe('Operand followed not supported.');
  });

  it('message content as Markdown by default (as Zulip registers), as HTML with apply_markdown', async () => {
    const hamlet = await as('hamlet');
    const plain = await hamlet.queues.register({ event_types: ['message'] });
    const html = await hamlet.queues.register({ event_types: ['message'], apply_markdown: 'true' });
    const othello = await as('othello');
    const r = await othello.messages.send({
      type: 'stream',
      to: 'Verona',
      topic: 'md',
      content: 'Hi **there**',
    });
    expect(r.result).toBe('success');
    const first = async (queueId: unknown) => {
      const got = await pending(hamlet, queueId);
      return (got['events'] as { message: { content: string; content_type: string } }[])[0]!.message;
    };
    expect(await first(plain['queue_id'])).toMatchObject({
      content: 'Hi **there**',
      content_type: 'text/x-markdown',
    });
    expect(await first(html['queue_id'])).toMatchObject({
      content: '<p>Hi <strong>there</strong></p>',
      content_type: 'text/html',
    });
  });

  it('all_public_streams: public channel messages one was not sent, without flags; refused for guests', async () => {
    const state = realm.state;
    // A public channel and a member who is not subscribed to it.
    const channel = [...state.channels.values()].find((c) => !c.invite_only && !c.is_archived)!;
    const subscribed = (id: number) => state.subscriptions.get(channel.stream_id)?.get(id)?.active === true;
    const [name] = (Object.keys(cast) as CastName[]).filter((n) => {
      const u = state.users.get(cast[n])!;
      return u.is_active && !u.is_bot && u.role <= 400 && !subscribed(u.user_id);
    });
    const [sender] = (Object.keys(cast) as CastName[]).filter((n) => {
      const u = state.users.get(cast[n])!;
      return u.is_active && !u.is_bot && subscribed(u.user_id);
    });
    const watcher = await as(name!);
    const reg = await watcher.queues.register({ event_types: ['message'], all_public_streams: 'true' });
    expect(reg.result).toBe('success');
    const r = await (
      await as(sender!)
    ).messages.send({ type: 'stream', to: channel.name, topic: 'all', content: 'x' });
    expect(r.result).toBe('success');
    const got = await pending(watcher, reg['queue_id']);
    expect(got['events']).toEqual([
      expect.objectContaining({
        type: 'message',
        flags: [],
        message: expect.objectContaining({ id: r['id'] }),
      }),
    ]);
    const guest = await (await as('polonius')).queues.register({ all_public_streams: 'true' });
    expect(guest).toMatchObject({ result: 'error', msg: 'User not authorized for this query' });
  });

  it('GET /streams and GET /users/me/subscriptions', async () => {
    const hamlet = await as('hamlet');
    const streams = await hamlet.streams.retrieve();
    expectValidResponse('get-streams', 200, streams);
    const subs = await hamlet.callEndpoint('/users/me/subscriptions', 'GET', { include_subscribers: true });
    expectValidResponse('get-subscriptions', 200, subs);
    expect(subs['subscriptions']).toContainEqual(
      expect.objectContaining({ stream_id: 3, subscribers: expect.any(Array) }),
    );
  });

  it('reactions.add and reactions.remove: reaction events reach the channel, fetched messages carry them', async () => {
    const hamlet = await as('hamlet');
    const othello = await as('othello');
    const reg = await hamlet.queues.register({ event_types: ['reaction'] });
    const added = await othello.reactions.add({ message_id: 101, emoji_name: 'octopus' });
    expectValidResponse('add-reaction', 200, added);
    expect(added).toEqual({ result: 'success', msg: '' });
    const again = await othello.reactions.add({ message_id: 101, emoji_name: 'octopus' });
    expect(again).toMatchObject({ result: 'error', code: 'REACTION_ALREADY_EXISTS' });
    const fetched = await hamlet.messages.retrieve({ anchor: 101, num_before: 0, num_after: 0 });
    expect((fetched['messages'] as Array<{ reactions: unknown[] }>)[0]!.reactions).toEqual([
      { user_id: cast.othello, emoji_name: 'octopus', emoji_code: '1f419', reaction_type: 'unicode_emoji' },
    ]);
    const removed = await othello.reactions.remove({ message_id: 101, emoji_code: '1f419' });
    expectValidResponse('remove-reaction', 200, removed);
    const got = await pending(hamlet, reg['queue_id']);
    expect(
      (got['events'] as Array<Record<string, unknown>>).map((e) => [e['type'], e['op'], e['emoji_name']]),
    ).toEqual([
      ['reaction', 'add', 'octopus'],
      ['reaction', 'remove', 'octopus'],
    ]);
    expectValidResponse('get-custom-emoji', 200, await hamlet.emojis.retrieve());
  });
});
