import { describe, expect, it } from 'vitest';
import { EventQueues, type QueueClock } from '../../src/host/event-queues';
import type { AddressedEvent } from '../../src/core/events';
import { md5Hex } from '../../src/core/md5';

const clock = (): QueueClock & { t: number } => {
  const c = { t: 0, now: () => c.t, setTimer: () => 0, clearTimer: () => undefined };
  return c;
};
const ev = (users: number[], value: string): AddressedEvent => ({
  event: { type: 'stream', op: 'update', stream_id: 1, name: 'x', property: 'description', value },
  users,
});

describe('EventQueues', () => {
  // Zulip's ClientDescriptor.disconnect_handler (zerver/tornado/event_queue.py): the waiting
  // handler is cleared, the queue keeps its events and is timed from its last connection.
  it('releases a waiting poll whose client went away, keeping its events and its expiry', async () => {
    const c = clock();
    const q = new EventQueues({ clock: c, gcIntervalMs: 0, idleTimeoutSecs: 600 });
    const a = q.create(1, { eventTypes: null });
    const gone = new AbortController();
    c.t = 1000;
    const waiting = q.get(1, a.id, -1, false, undefined, gone.signal);
    expect(q.waiting).toBe(1);
    c.t = 5000;
    gone.abort();
    expect(await waiting).toEqual({ kind: 'events', events: [] });
    expect(q.waiting).toBe(0);
    q.deliver([ev([1], 'later')]);
    expect(a.events.map((e) => e['value'])).toEqual(['later']);
    expect(a.lastConnection).toBe(1000);
    // An already aborted poll does not wait at all (it still counts as a connection).
    const again = new AbortController();
    again.abort();
    q.get(1, a.id, 0, false, undefined, again.signal).catch(() => undefined);
    expect(q.waiting).toBe(0);
    c.t = 5000 + 599_999;
    expect(q.gc()).toBe(0);
    c.t = 5000 + 600_000;
    expect(q.gc()).toBe(1);
  });

  it('numbers events without gaps and routes only to recipients, filtered by event_types', async () => {
    const q = new EventQueues({ clock: clock(), gcIntervalMs: 0 });
    const a = q.create(1, { eventTypes: null });
    const b = q.create(2, { eventTypes: ['subscription'] });
    q.deliver([ev([1, 2, 3], 'one'), ev([2], 'two'), ev([1], 'three')]);
    expect(a.events.map((e) => [e.id, e['value']])).toEqual([
      [0, 'one'],
      [1, 'three'],
    ]);
    expect(b.events).toEqual([]);
    const got = await q.get(1, a.id, 0, true);
    expect(got).toEqual({ kind: 'events', events: [expect.objectContaining({ id: 1, value: 'three' })] });
  });

  it('gives an unarchived channel as `create` only to clients without archived_channels (they never lost it)', () => {
    const q = new EventQueues({ clock: clock(), gcIntervalMs: 0 });
    const modern = q.create(1, { eventTypes: null, capabilities: { archived_channels: true } });
    const legacy = q.create(1, { eventTypes: null });
    // The channel's name says which event it came in (the routing fields do not reach clients).
    const stream = (name: string) => ({ stream_id: 8, name });
    q.deliver([
      {
        event: { type: 'stream', op: 'create', streams: [stream('unarchived')], for_unarchiving: true },
        users: [1],
      },
      {
        event: { type: 'stream', op: 'create', streams: [stream('created')], for_unarchiving: false },
        users: [1],
      },
      {
        event: { type: 'stream', op: 'delete', streams: [stream('archived')], for_archiving: true },
        users: [1],
      },
      {
        event: { type: 'stream', op: 'delete', streams: [stream('deleted')], for_archiving: false },
        users: [1],
      },
    ]);
    const seen = (events: readonly Record<string, unknown>[]) =>
      events.map((e) => `${String(e['op'])} ${(e['streams'] as { name: string }[])[0]!.name}`);
    expect(seen(modern.events)).toEqual(['create created', 'delete deleted']);
    expect(seen(legacy.events)).toEqual([
      'create unarchived',
      'create created',
      'delete archived',
      'delete deleted',
    ]);
  });

  it('delivers no Tornado routing field (for_unarchiving, for_archiving, for_reactivation) to a client', () => {
    const q = new EventQueues({ clock: clock(), gcIntervalMs: 0 });
    const client = q.create(1, { eventTypes: null });
    const stream = { stream_id: 8, name: 'x' };
    const group = { id: 30, name: 'g' };
    q.deliver([
      { event: { type: 'stream', op: 'create', streams: [stream], for_unarchiving: true }, users: [1] },
      { event: { type: 'stream', op: 'delete', streams: [stream], for_archiving: false }, users: [1] },
      { event: { type: 'user_group', op: 'add', group, for_reactivation: true }, users: [1] },
      { event: { type: 'user_group', op: 'add', group }, users: [1] },
    ]);
    expect(client.events).toEqual([
      { type: 'stream', op: 'create', streams: [stream], id: 0 },
      { type: 'stream', op: 'delete', streams: [stream], id: 1 },
      { type: 'user_group', op: 'add', group, id: 2 },
      { type: 'user_group', op: 'add', group, id: 3 },
    ]);
  });

  it('finalizes a message per client: Markdown unless apply_markdown, general chat without empty_topic_name', () => {
    const q = new EventQueues({ clock: clock(), gcIntervalMs: 0 });
    const plain = q.create(1, { eventTypes: null });
    const html = q.create(1, { eventTypes: null, applyMarkdown: true });
    const modern = q.create(1, {
      eventTypes: null,
      applyMarkdown: true,
      capabilities: { empty_topic_name: true },
    });
    const narrowed = q.create(1, { eventTypes: null, narrow: [['topic', 'general chat']] });
    const message = {
      id: 9,
      type: 'stream',
      subject: '',
      content: '<p><strong>hi</strong></p>',
      content_type: 'text/html',
    };
    const sent: AddressedEvent = {
      event: { type: 'message', message, flags: [] },
      users: [1],
      markdown: '**hi**',
    };
    q.deliver([sent]);
    expect(plain.events[0]).toMatchObject({
      message: { content: '**hi**', content_type: 'text/x-markdown', subject: 'general chat' },
    });
    expect(html.events[0]).toMatchObject({ message: { content: message.content, subject: 'general chat' } });
    expect(modern.events[0]).toMatchObject({ message: { content: message.content, subject: '' } });
    // The narrow sees the topic as its client does.
    expect(narrowed.events).toHaveLength(1);
    // The operation's event is left as it was.
    expect(sent.event).toEqual({ type: 'message', message, flags: [] });
  });

  it('gives client_gravatar clients (the default) a null avatar_url for a Gravatar they can compute', () => {
    const q = new EventQueues({ clock: clock(), gcIntervalMs: 0 });
    const computing = q.create(1, { eventTypes: null });
    const urls = q.create(1, { eventTypes: null, clientGravatar: false });
    const gravatar = (email: string) =>
      `https://secure.gravatar.com/avatar/${md5Hex(email)}?d=identicon&version=1`;
    const message = (sender_email: string, avatar_url: string): AddressedEvent => ({
      event: {
        type: 'message',
        message: { id: 9, type: 'stream', subject: 'x', sender_email, avatar_url },
        flags: [],
      } as const,
      users: [1],
    });
    q.deliver([
      message('Hamlet@zulip.com', gravatar('hamlet@zulip.com')),
      // The email shown is not the one hashed (a hidden email): the client could not compute it.
      message('user4@zulip.invalid', gravatar('hamlet@zulip.com')),
      message('iago@zulip.com', '/user_avatars/1/abc.png?version=2'),
    ]);
    const avatars = (queue: typeof urls) =>
      queue.events.map((e) => (e as unknown as { message: { avatar_url: unknown } }).message.avatar_url);
    expect(avatars(computing)).toEqual([
      null,
      gravatar('hamlet@zulip.com'),
      '/user_avatars/1/abc.png?version=2',
    ]);
    expect(avatars(urls)).toEqual([
      gravatar('hamlet@zulip.com'),
      gravatar('hamlet@zulip.com'),
      '/user_avatars/1/abc.png?version=2',
    ]);
  });

  it('gives the empty topic as general chat in other events to clients without empty_topic_name', () => {
    const q = new EventQueues({ clock: clock(), gcIntervalMs: 0 });
    const legacy = q.create(1, { eventTypes: null, capabilities: { bulk_message_deletion: true } });
    const modern = q.create(1, {
      eventTypes: null,
      capabilities: { bulk_message_deletion: true, empty_topic_name: true },
    });
    const events: AddressedEvent[] = [
      {
        event: { type: 'delete_message', message_ids: [3], message_type: 'stream', stream_id: 1, topic: '' },
        users: [1],
      },
      {
        event: { type: 'user_topic', stream_id: 1, topic_name: '', last_updated: 5, visibility_policy: 1 },
        users: [1],
      },
      {
        event: {
          type: 'update_message_flags',
          op: 'remove',
          operation: 'remove',
          flag: 'read',
          messages: [3, 4],
          all: false,
          message_details: {
            '3': { type: 'stream', stream_id: 1, topic: '' },
            '4': { type: 'stream', stream_id: 1, topic: 'x' },
          },
        },
        users: [1],
      },
    ];
    q.deliver(events);
    const topics = (list: readonly Record<string, unknown>[]) => [
      list[0]!['topic'],
      list[1]!['topic_name'],
      Object.values(list[2]!['message_details'] as Record<string, { topic: string }>).map((d) => d.topic),
    ];
    expect(topics(legacy.events)).toEqual(['general chat', 'general chat', ['general chat', 'x']]);
    expect(topics(modern.events)).toEqual(['', '', ['', 'x']]);
  });

  it('gives a public channel message, unflagged, to all_public_streams queues of users it was not sent to', () => {
    const q = new EventQueues({ clock: clock(), gcIntervalMs: 0 });
    const bystander = q.create(9, { eventTypes: ['message'], allPublicStreams: true });
    const recipient = q.create(1, { eventTypes: ['message'], allPublicStreams: true });
    const ordinary = q.create(8, { eventTypes: ['message'] });
    const message = (id: number) => ({ id, type: 'stream', subject: 't', content: '<p>x</p>' });
    q.deliver([
      {
        event: { type: 'message', message: message(1), flags: ['read'] },
        users: [1],
        markdown: 'x',
        allPublicStreams: { except: [1] },
      },
      // A private channel's message carries no allPublicStreams.
      { event: { type: 'message', message: message(2), flags: [] }, users: [1], markdown: 'x' },
    ]);
    expect(bystander.events).toEqual([
      {
        type: 'message',
        message: { ...message(1), content: 'x', content_type: 'text/x-markdown' },
        flags: [],
        id: 0,
      },
    ]);
    expect(recipient.events.map((e) => [(e['message'] as { id: number }).id, e['flags']])).toEqual([
      [1, ['read']],
      [2, []],
    ]);
    expect(ordinary.events).toEqual([]);
  });

  it("adds a sent message's local_message_id for the sending queue only (forQueue)", () => {
    const q = new EventQueues({ clock: clock(), gcIntervalMs: 0 });
    const sending = q.create(1, { eventTypes: null });
    const other = q.create(1, { eventTypes: null });
    q.deliver([
      {
        event: { type: 'message', message: { id: 9 }, flags: [] },
        users: [1],
        forQueue: { queueId: sending.id, fields: { local_message_id: '1.01' } },
      },
    ]);
    expect(sending.events[0]).toMatchObject({ type: 'message', local_message_id: '1.01' });
    expect(other.events[0]).not.toHaveProperty('local_message_id');
  });

  it('routes by the smaller side: many recipients, few queues (binary search) and the reverse', () => {
    const q = new EventQueues({ clock: clock(), gcIntervalMs: 0 });
    const a = q.create(5000, { eventTypes: null });
    const everyone = Array.from({ length: 10_000 }, (_, i) => i + 1);
    q.deliver([ev(everyone, 'all')]);
    expect(a.events).toHaveLength(1);
  });

  it('bounds queues per user (least recently used dropped) and queue length (queue dropped)', async () => {
    const q = new EventQueues({ clock: clock(), gcIntervalMs: 0, maxQueuesPerUser: 2, maxQueueLength: 2 });
    const first = q.create(1, { eventTypes: null });
    q.create(1, { eventTypes: null });
    const third = q.create(1, { eventTypes: null });
    expect(q.size).toBe(2);
    expect(await q.get(1, first.id, -1, true)).toMatchObject({
      kind: 'error',
      error: { code: 'BAD_EVENT_QUEUE_ID' },
    });
    q.deliver([ev([1], 'a'), ev([1], 'b'), ev([1], 'c')]);
    expect(await q.get(1, third.id, -1, true)).toMatchObject({
      kind: 'error',
      error: { code: 'BAD_EVENT_QUEUE_ID', extra: { queue_id: third.id } },
    });
  });

  it('expires idle queues after the timeout (lifespan capped at 7 days)', () => {
    const c = clock();
    const q = new EventQueues({ clock: c, gcIntervalMs: 0 });
    q.create(1, { eventTypes: null });
    const long = q.create(2, { eventTypes: null, lifespanSecs: 30 * 86400 });
    c.t = 600_000;
    expect(q.gc()).toBe(1);
    expect(long.timeoutSecs).toBe(7 * 86400);
  });

  it('refuses bad acknowledgements without pruning anything', async () => {
    const q = new EventQueues({ clock: clock(), gcIntervalMs: 0 });
    const a = q.create(1, { eventTypes: null });
    q.deliver([ev([1], 'kept')]);
    expect(await q.get(1, a.id, 5, true)).toMatchObject({
      kind: 'error',
      error: { msg: 'Event 5 was not in this queue' },
    });
    expect(await q.get(1, a.id, -2, true)).toMatchObject({
      kind: 'error',
      error: { msg: 'An event newer than -2 has already been pruned!' },
    });
    expect(await q.get(2, a.id, -1, true)).toMatchObject({
      kind: 'error',
      error: { code: 'BAD_EVENT_QUEUE_ID' },
    });
    expect(await q.get(1, undefined, undefined, false)).toMatchObject({
      kind: 'error',
      error: { msg: "Missing 'queue_id' argument" },
    });
    expect(await q.get(1, a.id, undefined, false)).toMatchObject({
      kind: 'error',
      error: { msg: "Missing 'last_event_id' argument" },
    });
    expect(await q.get(1, a.id, -1, true)).toMatchObject({
      events: [expect.objectContaining({ id: 0 })],
    });
  });
});
