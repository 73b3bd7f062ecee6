import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/context';
import { FLAG_BITS } from '../../src/core/messages/flags';
import { getRowFlags } from '../../src/core/messages/rows';
import { allMessages, getMessage as readMessage } from '../../src/core/messages/store';
import { createRealm } from '../../src/core/snapshot/create';
import { snapshotRealm } from '../../src/core/snapshot/export';
import type { OpResult } from '../../src/core/result';
import type { RealmState } from '../../src/core/state';
import { sendMessage } from '../../src/ops/messages/sendMessage';
import { messageDict } from '../../src/ops/messages/message-dict';
import { renderMarkdown } from '../../src/core/markdown';
import { unsubscribe } from '../../src/ops/channels/unsubscribe';
import { expectRefused } from '../support/expect-result';
import { loose } from '../support/loose';
import { expectValidEvent, expectValidResponse } from '../support/openapi';
import { as, cast, devRealm, devSnapshot, testCtx, wire, type CastName } from '../support/realm';

const OP = 'send-message';
const { hamlet, cordelia, othello, iago, desdemona, polonius, defaultBot, outgoingBot, exEmployee, aaron } =
  cast;
const VERONA = 1;
const DENMARK = 2;
const VENICE = 5;
const CORE_TEAM = 6;
const OLD = 8;
const GENERAL_ONLY = 9;
const NOW = 1795219200;

const send = (state: RealmState, who: CastName, params: Record<string, unknown>) =>
  loose(sendMessage)(state, as(who), params, testCtx());
const toVerona = (extra: Record<string, unknown> = {}) => ({
  type: 'stream',
  to: 'Verona',
  topic: 'test topic',
  content: 'Hello',
  ...extra,
});

function ok(r: OpResult): { id: number } & Record<string, unknown> {
  expectValidResponse(OP, r.status, r.body);
  for (const e of r.events) expectValidEvent(e.event);
  expect(r.status).toBe(200);
  return r.body as unknown as { id: number } & Record<string, unknown>;
}
const refused = (before: RealmState, r: OpResult, msg: string, code = 'BAD_REQUEST', extra = {}) =>
  expectRefused(OP, r, before, msg, code, extra);

const rowOf = (state: RealmState, user: number, id: number) => {
  const rows = state.messages.rows.get(user);
  return rows && getRowFlags(rows, id);
};
/** The `message` events of a result: user → flags. */
function messageFlags(r: OpResult): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const e of r.events)
    if (e.event.type === 'message') for (const u of e.users) out.set(u, e.event['flags'] as string[]);
  return out;
}
function realmWith(tweak: (s: ReturnType<typeof devSnapshot>) => void): RealmState {
  const snap = devSnapshot();
  tweak(snap);
  return createRealm(snap, { random: seededRandom(1) });
}

describe('sendMessage: a channel message', () => {
  const dev = devRealm();

  it('stores the message with the next id, rows for every active subscriber, and answers {id}', () => {
    const r = send(dev, 'hamlet', toVerona({ topic: 'lunch', content: 'Lunch at one?' }));
    const body = ok(r);
    const last = [...allMessages(dev.messages)].pop()!;
    expect(body).toEqual({ result: 'success', msg: '', id: last.id + 1 });
    const m = readMessage(r.state.messages, body.id)!;
    expect(m).toMatchObject({
      sender_id: hamlet,
      stream_id: VERONA,
      topic: 'lunch',
      content: 'Lunch at one?',
      timestamp: NOW,
    });
    for (const u of [desdemona, iago, hamlet, cordelia, othello, aaron, polonius, defaultBot])
      expect(rowOf(r.state, u, body.id)).toBe(0);
    // Not subscribed: no row.
    expect(rowOf(r.state, outgoingBot, body.id)).toBeUndefined();
    // The old state is untouched.
    expect(readMessage(dev.messages, body.id)).toBeUndefined();
    expect(rowOf(dev, hamlet, body.id)).toBeUndefined();
  });

  it("gives the event the stored message's dict: its HTML rendered once, forks each their own", () => {
    // The event's dict is built from what was appended and its HTML rendered into the stored
    // chunk's column (not looked up again): it must equal what a read of the new state decodes.
    const first = send(dev, 'hamlet', toVerona({ content: '**one** https://example.com' }));
    const left = send(first.state, 'hamlet', toVerona({ content: '*left*' }));
    const right = send(first.state, 'hamlet', toVerona({ content: '`right`' }));
    const dm = send(dev, 'hamlet', { type: 'direct', to: [cordelia], content: '_dm_' });
    for (const [r, content] of [
      [first, '**one** https://example.com'],
      [left, '*left*'],
      [right, '`right`'],
      [dm, '_dm_'],
    ] as const) {
      const id = ok(r).id;
      const message = (r.events.find((e) => e.event.type === 'message')!.event as Record<string, unknown>)[
        'message'
      ];
      expect(message).toEqual(
        messageDict(r.state, readMessage(r.state.messages, id)!, {
          applyMarkdown: true,
          clientGravatar: false,
          allowEmptyTopicName: true,
        }),
      );
      expect((message as { content: string }).content).toBe(renderMarkdown(content));
    }
  });

  it('addresses the channel by id, JSON-encoded name or one-element list (library and wire)', () => {
    for (const to of [VERONA, '"Verona"', '[1]', '["Verona"]', 'verona', '1']) {
      const r = send(dev, 'hamlet', toVerona({ to }));
      expect(readMessage(r.state.messages, ok(r).id)?.stream_id).toBe(VERONA);
    }
    const w = wire(dev, 'hamlet', 'POST', '/messages', {
      type: 'channel',
      to: 'Verona',
      subject: 'legacy',
      content: 'x',
    });
    expect(readMessage(w.state.messages, ok(w).id)?.topic).toBe('legacy');
  });

  it('gives each recipient a message event with their own flags; the sender first', () => {
    const r = send(dev, 'hamlet', toVerona({ read_by_sender: true }));
    const flags = messageFlags(r);
    expect(flags.get(hamlet)).toEqual(['read']);
    expect(flags.get(cordelia)).toEqual([]);
    expect([...flags.keys()].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    const messages = r.events.filter((e) => e.event.type === 'message');
    expect(messages[0]!.users).toEqual([hamlet]);
    expect((messages[0]!.event as Record<string, unknown>)['message']).toMatchObject({
      id: ok(r).id,
      type: 'stream',
      stream_id: VERONA,
      display_recipient: 'Verona',
      subject: 'test topic',
      content: '<p>Hello</p>',
      sender_email: 'hamlet@zulip.com',
    });
    expect(rowOf(r.state, hamlet, ok(r).id)).toBe(FLAG_BITS.read);
  });

  it('gives queues the Markdown source, and marks a public channel message for all_public_streams queues', () => {
    const r = send(dev, 'hamlet', toVerona({ content: 'Hi **all**' }));
    const messages = r.events.filter((e) => e.event.type === 'message');
    expect(messages.every((e) => e.markdown === 'Hi **all**')).toBe(true);
    // Once per message (on its first event), excepting every recipient.
    expect(messages.filter((e) => e.allPublicStreams !== undefined)).toHaveLength(1);
    expect(messages[0]!.allPublicStreams?.except).toEqual([...messageFlags(r).keys()].sort((a, b) => a - b));
    const privateChannel = send(dev, 'iago', toVerona({ to: CORE_TEAM }));
    ok(privateChannel);
    expect(privateChannel.events.some((e) => e.allPublicStreams !== undefined)).toBe(false);
    const direct = send(dev, 'hamlet', { type: 'direct', to: [cordelia], content: 'psst' });
    ok(direct);
    expect(direct.events.some((e) => e.allPublicStreams !== undefined)).toBe(false);
  });

  it('carries local_id to the queue named by queue_id only', () => {
    const r = send(dev, 'hamlet', toVerona({ local_id: '12.01', queue_id: 'abc' }));
    const forQueue = r.events.filter((e) => e.forQueue !== undefined);
    expect(forQueue).toHaveLength(1);
    expect(forQueue[0]!.users).toEqual([hamlet]);
    expect(forQueue[0]!.forQueue).toEqual({ queueId: 'abc', fields: { local_message_id: '12.01' } });
    // Without queue_id nobody gets it.
    expect(send(dev, 'hamlet', toVerona({ local_id: '1' })).events.some((e) => e.forQueue)).toBe(false);
  });

  it('refuses the addressee problems in Zulip order', () => {
    refused(dev, send(dev, 'hamlet', { type: 'stream', topic: 't', content: 'x' }), 'Missing channel');
    refused(dev, send(dev, 'hamlet', { type: 'stream', to: 'Verona', content: 'x' }), 'Missing topic');
    refused(dev, send(dev, 'hamlet', toVerona({ to: '[1, 2]' })), 'Expected exactly one channel');
    refused(dev, send(dev, 'hamlet', toVerona({ to: '1.5' })), 'Invalid data type for channel');
    refused(dev, send(dev, 'hamlet', toVerona({ to: '{"a": 1}' })), 'Invalid data type for channel');
    refused(
      dev,
      send(dev, 'hamlet', toVerona({ to: 'No <such>' })),
      "Channel 'No &lt;such&gt;' does not exist",
      'STREAM_DOES_NOT_EXIST',
      { stream: 'No &lt;such&gt;' },
    );
    refused(
      dev,
      send(dev, 'hamlet', toVerona({ to: 999 })),
      "Channel with ID '999' does not exist",
      'STREAM_DOES_NOT_EXIST',
      { stream_id: 999 },
    );
    // The topic is checked before the content, the content before the channel.
    refused(dev, send(dev, 'hamlet', toVerona({ to: 999, content: '  ' })), 'Message must not be empty');
    refused(
      dev,
      send(dev, 'hamlet', toVerona({ topic: 'a\u0000b', content: ' ' })),
      'Invalid character in topic, at position 2!',
    );
  });

  it('normalizes the content: trailing space and leading newlines dropped, NUL refused, long text truncated', () => {
    const r = send(dev, 'hamlet', toVerona({ content: '\n\nHi there  \n ' }));
    expect(readMessage(r.state.messages, ok(r).id)?.content).toBe('Hi there');
    refused(
      dev,
      send(dev, 'hamlet', toVerona({ content: 'a\u0000' })),
      'Message must not contain null bytes',
    );
    const long = send(dev, 'hamlet', toVerona({ content: 'x'.repeat(dev.server.max_message_length + 5) }));
    const stored = readMessage(long.state.messages, ok(long).id)!.content;
    expect([...stored]).toHaveLength(dev.server.max_message_length);
    expect(stored.endsWith('\n[message truncated]')).toBe(true);
  });

  it('strips and truncates the topic; "(no topic)" and the display name mean the empty topic', () => {
    const long = send(
      dev,
      'hamlet',
      toVerona({ topic: `  ${'t'.repeat(dev.server.max_topic_length + 3)} ` }),
    );
    const topic = readMessage(long.state.messages, ok(long).id)!.topic;
    expect([...topic]).toHaveLength(dev.server.max_topic_length);
    expect(topic.endsWith('...')).toBe(true);
    for (const t of ['(no topic)', 'general chat', '']) {
      const r = send(dev, 'hamlet', toVerona({ topic: t }));
      expect(readMessage(r.state.messages, ok(r).id)!.topic).toBe('');
    }
  });

  it('applies the channel topics policy (test_message_edit.py test_topic_required_in_mandatory_topic_realm; MessagesNotAllowedInEmptyTopicError, TopicsNotAllowedError)', () => {
    refused(
      dev,
      send(dev, 'hamlet', { type: 'stream', to: VENICE, topic: '', content: 'x' }),
      'Sending messages to the general chat is not allowed in this channel.',
      'BAD_REQUEST',
      { empty_topic_display_name: 'general chat' },
    );
    refused(
      dev,
      send(dev, 'hamlet', { type: 'stream', to: GENERAL_ONLY, topic: 'x', content: 'x' }),
      'Only the general chat topic is allowed in this channel.',
      'BAD_REQUEST',
      { empty_topic_display_name: 'general chat' },
    );
    ok(send(dev, 'hamlet', { type: 'stream', to: GENERAL_ONLY, topic: '', content: 'x' }));
  });

  it('applies who may post: archived and private channels, guests, bots through their owners', () => {
    refused(
      dev,
      send(dev, 'hamlet', toVerona({ to: OLD })),
      "Not authorized to send to channel 'old announcements'",
    );
    refused(
      dev,
      send(dev, 'cordelia', toVerona({ to: CORE_TEAM })),
      "Not authorized to send to channel 'core team'",
    );
    refused(
      dev,
      send(dev, 'polonius', toVerona({ to: DENMARK })),
      "Not authorized to send to channel 'Denmark'",
    );
    ok(send(dev, 'polonius', toVerona()));
    // A bot may post where its owner is subscribed (Iago owns the outgoing bot).
    ok(send(dev, 'outgoingBot', toVerona({ to: CORE_TEAM })));
    const closed = realmWith((s) => {
      const c = (s['channels'] as Array<Record<string, unknown>>).find((x) => x['stream_id'] === VERONA)!;
      c['can_send_message_group'] = 'role:administrators';
    });
    refused(
      closed,
      send(closed, 'hamlet', toVerona()),
      'You do not have permission to post in this channel.',
    );
    ok(send(closed, 'iago', toVerona()));
  });
});

describe('sendMessage: a direct message', () => {
  const dev = devRealm();

  it('by ids or emails; one row per participant, is_private set, the conversation fetched as DM', () => {
    for (const to of [
      [cordelia],
      `[${cordelia}]`,
      'cordelia@zulip.com',
      '["cordelia@zulip.com"]',
      'CORDELIA@zulip.com, ',
    ]) {
      const r = send(dev, 'hamlet', { type: 'direct', to, content: 'hi' });
      const id = ok(r).id;
      expect(readMessage(r.state.messages, id)?.participants).toEqual([hamlet, cordelia]);
      expect(rowOf(r.state, hamlet, id)).toBe(FLAG_BITS.is_private);
      expect(rowOf(r.state, cordelia, id)).toBe(FLAG_BITS.is_private);
      expect([...messageFlags(r).keys()].sort()).toEqual([hamlet, cordelia]);
    }
    const group = send(dev, 'hamlet', { type: 'private', to: [cordelia, othello, cordelia], content: 'all' });
    expect(readMessage(group.state.messages, ok(group).id)?.participants).toEqual([
      hamlet,
      cordelia,
      othello,
    ]);
  });

  it('refuses bad recipient lists in Zulip order', () => {
    refused(dev, send(dev, 'hamlet', { type: 'direct', content: 'x' }), 'Message must have recipients');
    refused(
      dev,
      send(dev, 'hamlet', { type: 'direct', to: '[]', content: 'x' }),
      'Message must have recipients',
    );
    refused(
      dev,
      send(dev, 'hamlet', { type: 'direct', to: '{"a":1}', content: 'x' }),
      'Invalid data type for recipients',
    );
    refused(
      dev,
      send(dev, 'hamlet', { type: 'direct', to: '[null]', content: 'x' }),
      'Invalid data type for recipients',
    );
    refused(
      dev,
      send(dev, 'hamlet', { type: 'direct', to: '[5, "cordelia@zulip.com"]', content: 'x' }),
      'Recipient lists may contain emails or user IDs, but not both.',
    );
    refused(
      dev,
      send(dev, 'hamlet', { type: 'direct', to: 'nobody@zulip.com', content: 'x' }),
      "Invalid email 'nobody@zulip.com'",
    );
    refused(dev, send(dev, 'hamlet', { type: 'direct', to: [999], content: 'x' }), 'Invalid user ID 999');
    refused(
      dev,
      send(dev, 'hamlet', { type: 'direct', to: [exEmployee], content: 'x' }),
      "'ex-employee@zulip.com' is no longer using Zulip.",
    );
    refused(dev, send(dev, 'hamlet', { type: 'direct', to: [999], content: '' }), 'Invalid user ID 999');
  });

  it('applies the direct-message permission settings', () => {
    const nobody = realmWith((s) => {
      (s['realm'] as Record<string, unknown>)['direct_message_permission_group'] = 'role:nobody';
    });
    refused(
      nobody,
      send(nobody, 'hamlet', { type: 'direct', to: [cordelia], content: 'x' }),
      'Direct messages are disabled in this organization.',
    );
    // Messages to bots and to oneself are always allowed.
    ok(send(nobody, 'hamlet', { type: 'direct', to: [defaultBot], content: 'x' }));
    ok(send(nobody, 'hamlet', { type: 'direct', to: [hamlet], content: 'x' }));
    const admins = realmWith((s) => {
      (s['realm'] as Record<string, unknown>)['direct_message_permission_group'] = 'role:administrators';
    });
    refused(
      admins,
      send(admins, 'hamlet', { type: 'direct', to: [cordelia], content: 'x' }),
      'This conversation does not include any users who can authorize it.',
    );
    ok(send(admins, 'hamlet', { type: 'direct', to: [iago], content: 'x' }));
  });
});

describe('sendMessage: mentions', () => {
  const dev = devRealm();

  it('sets mentioned for named users, not for silent mentions or mentions in code', () => {
    const r = send(
      dev,
      'hamlet',
      toVerona({ content: "@**Cordelia, Lear's daughter** @_**Othello, the Moor of Venice** `@**aaron**`" }),
    );
    const id = ok(r).id;
    expect(rowOf(r.state, cordelia, id)).toBe(FLAG_BITS.mentioned);
    expect(rowOf(r.state, othello, id)).toBe(0);
    expect(rowOf(r.state, aaron, id)).toBe(0);
    expect(messageFlags(r).get(cordelia)).toEqual(['mentioned']);
    const byId = send(dev, 'hamlet', toVerona({ content: `@**aaron|${aaron}**` }));
    expect(rowOf(byId.state, aaron, ok(byId).id)).toBe(FLAG_BITS.mentioned);
  });

  it('stream and topic wildcards set their flags and the legacy wildcard_mentioned in events', () => {
    const all = send(dev, 'hamlet', toVerona({ content: 'Hi @**all**' }));
    expect(rowOf(all.state, cordelia, ok(all).id)).toBe(FLAG_BITS.stream_wildcard_mentioned);
    expect(messageFlags(all).get(cordelia)).toEqual(['stream_wildcard_mentioned', 'wildcard_mentioned']);
    // @topic reaches only the topic's participants (its senders and this one).
    const topic = send(dev, 'hamlet', toVerona({ topic: 'lunch', content: 'Hi @**topic**' }));
    const id = ok(topic).id;
    const participants = new Set(
      [...allMessages(dev.messages)]
        .filter((m) => m.stream_id === VERONA && m.topic === 'lunch')
        .map((m) => m.sender_id),
    );
    participants.add(hamlet);
    for (const u of [desdemona, iago, hamlet, cordelia, othello, aaron]) {
      const f = rowOf(topic.state, u, id)!;
      expect((f & FLAG_BITS.topic_wildcard_mentioned) !== 0).toBe(participants.has(u));
    }
  });

  it('refuses wildcards in a large channel without can_mention_many_users_group', () => {
    const big = realmWith((s) => {
      const subs = s['subscriptions'] as Array<Record<string, unknown>>;
      const users = s.users;
      for (let k = 0; k < 10; k++) {
        const id = 100 + k;
        users.push({
          ...users.find((u) => u['user_id'] === aaron)!,
          user_id: id,
          email: `u${id}@zulip.com`,
          delivery_email: `u${id}@zulip.com`,
          full_name: `User ${id}`,
          api_key: `key${String(id).padStart(29, '0')}`,
        });
        subs.push({ ...subs.find((x) => x['stream_id'] === VERONA && x['user_id'] === aaron)!, user_id: id });
      }
    });
    refused(
      big,
      send(big, 'hamlet', toVerona({ content: '@**all**' })),
      'You do not have permission to use channel wildcard mentions in this channel.',
      'STREAM_WILDCARD_MENTION_NOT_ALLOWED',
    );
    ok(send(big, 'iago', toVerona({ content: '@**everyone**' })));
    // Silent wildcards are not mentions.
    ok(send(big, 'hamlet', toVerona({ content: '@_**all**' })));
  });

  it('group mentions mention the members, if the sender may mention the group', () => {
    const r = send(dev, 'hamlet', toVerona({ content: 'cc @*hamletcharacters*' }));
    const id = ok(r).id;
    expect(rowOf(r.state, cordelia, id)).toBe(FLAG_BITS.mentioned);
    const locked = realmWith((s) => {
      const g = (s['user_groups'] as Array<Record<string, unknown>>).find(
        (x) => x['name'] === 'hamletcharacters',
      )!;
      g['can_mention_group'] = 'role:administrators';
    });
    refused(
      locked,
      send(locked, 'hamlet', toVerona({ content: '@*hamletcharacters*' })),
      "You are not allowed to mention user group 'hamletcharacters'.",
    );
    ok(send(locked, 'hamlet', toVerona({ content: '@_*hamletcharacters*' })));
  });

  it('a mentioned default bot gets a row even when not subscribed', () => {
    const r = send(dev, 'hamlet', {
      type: 'stream',
      to: DENMARK,
      topic: 'x',
      content: '@**Zulip Default Bot**',
    });
    expect(rowOf(r.state, defaultBot, ok(r).id)).toBe(FLAG_BITS.mentioned);
  });
});

describe('sendMessage: topic visibility changes', () => {
  const dev = devRealm();

  it('starting a topic follows it (automatically_follow_topics_policy: on initiation)', () => {
    const r = send(dev, 'hamlet', toVerona({ topic: 'brand new' }));
    expect(ok(r)).toMatchObject({ automatic_new_visibility_policy: 3 });
    expect(r.events.slice(0, 2).map((e) => e.event.type)).toEqual(['muted_topics', 'user_topic']);
    expect(r.events[1]!.event).toEqual({
      type: 'user_topic',
      stream_id: VERONA,
      topic_name: 'brand new',
      last_updated: NOW,
      visibility_policy: 3,
    });
    expect(
      r.state.userTopics.get(hamlet)?.some((t) => t.topic_name === 'brand new' && t.visibility_policy === 3),
    ).toBe(true);
    // A second message in the topic changes nothing more.
    const again = send(r.state, 'hamlet', toVerona({ topic: 'brand new' }));
    expect(ok(again)).not.toHaveProperty('automatic_new_visibility_policy');
  });

  it('mentioned users follow the topic unless they muted it; bots never', () => {
    const r = send(
      dev,
      'hamlet',
      toVerona({ topic: 'lunch', content: "@**Cordelia, Lear's daughter** @**Zulip Default Bot**" }),
    );
    const follows = r.events.filter((e) => e.event.type === 'user_topic');
    expect(follows.map((e) => e.users[0])).toEqual([cordelia]);
    // Hamlet muted Verona > weather: mentioning him there does not follow it.
    const muted = send(dev, 'cordelia', toVerona({ topic: 'weather', content: '@**King Hamlet**' }));
    expect(muted.events.filter((e) => e.event.type === 'user_topic').map((e) => e.users[0])).not.toContain(
      hamlet,
    );
  });

  it('bots and direct messages change no topic policy', () => {
    const r = send(dev, 'defaultBot', toVerona({ topic: 'bot topic' }));
    expect(ok(r)).toEqual({ result: 'success', msg: '', id: expect.any(Number) });
    expect(r.events.some((e) => e.event.type === 'user_topic')).toBe(false);
  });
});

describe('sendMessage: other parameters', () => {
  const dev = devRealm();

  it('refuses mirroring and forging from a normal client', () => {
    refused(dev, send(dev, 'hamlet', toVerona({ sender: 'x@zulip.com' })), 'Invalid mirrored message');
    refused(dev, send(dev, 'hamlet', toVerona({ forged: 'true' })), 'User not authorized for this query');
  });

  it('validates required parameters and the type on the wire', () => {
    refused(
      dev,
      wire(dev, 'hamlet', 'POST', '/messages', { type: 'stream', to: 'Verona', topic: 't' }),
      "Missing 'content' argument",
      'REQUEST_VARIABLE_MISSING',
      { var_name: 'content' },
    );
    refused(
      dev,
      wire(dev, 'hamlet', 'POST', '/messages', { to: 'Verona', topic: 't', content: 'x' }),
      "Missing 'type' argument",
      'REQUEST_VARIABLE_MISSING',
      { var_name: 'type' },
    );
    const bad = wire(dev, 'hamlet', 'POST', '/messages', { type: 'huddle', to: 'Verona', content: 'x' });
    expect(bad.status).toBe(400);
    refused(
      dev,
      wire(dev, 'hamlet', 'POST', '/messages', {
        type: 'stream',
        to: 'Verona',
        topic: 'a',
        subject: 'b',
        content: 'x',
      }),
      "Can't decide between 'topic' and 'subject' arguments",
      'REQUEST_CONFUSING_VAR',
      { var_name1: 'topic', var_name2: 'subject' },
    );
  });

  it('message ids only grow, and an older state can fork without seeing the other branch', () => {
    const a = send(dev, 'hamlet', toVerona({ content: 'a' }));
    const b = send(dev, 'cordelia', toVerona({ content: 'b' }));
    expect(ok(a).id).toBe(ok(b).id);
    expect(readMessage(a.state.messages, ok(a).id)?.content).toBe('a');
    expect(readMessage(b.state.messages, ok(b).id)?.content).toBe('b');
    const c = send(a.state, 'hamlet', toVerona({ content: 'c' }));
    expect(ok(c).id).toBe(ok(a).id + 1);
    expect(readMessage(a.state.messages, ok(c).id)).toBeUndefined();
  });

  it('sends after an operation that edits the message store through immer (which freezes it)', () => {
    // unsubscribe marks the leaver's unread channel messages read: the new store passes through
    // immer, which freezes the chunk's contents array that the next send appends to.
    const a = send(dev, 'hamlet', toVerona({ content: 'a' }));
    const left = loose(unsubscribe)(a.state, as('cordelia'), { subscriptions: ['Verona'] }, testCtx());
    expect(left.body.result).toBe('success');
    expect(left.state.messages).not.toBe(a.state.messages);
    const c = send(left.state, 'othello', { type: 'direct', to: [cast.hamlet], content: 'c' });
    expect(readMessage(c.state.messages, ok(c).id)?.content).toBe('c');
    expect(readMessage(left.state.messages, ok(c).id)).toBeUndefined();
    expect(readMessage(c.state.messages, ok(a).id)?.content).toBe('a');
  });
});

describe('a guest who gains access to users through a direct message', () => {
  // Zulip's get_recipients_for_user_creation_events / notify_created_user (zerver/actions/message_send.py).
  const realm = createRealm({
    format: 'chat-realm.snapshot/1',
    now: NOW,
    realm: { can_access_all_users_group: 'role:members' },
    users: [
      {
        user_id: 1,
        email: 'one@example.com',
        full_name: 'One',
        role: 400,
        date_joined: '2026-01-01T00:00:00+00:00',
        api_key: 'key00000000000000000000000000001',
      },
      {
        user_id: 2,
        email: 'guest@example.com',
        full_name: 'Guest',
        role: 600,
        date_joined: '2026-01-01T00:00:00+00:00',
        api_key: 'key00000000000000000000000000002',
      },
      {
        user_id: 3,
        email: 'three@example.com',
        full_name: 'Three',
        role: 400,
        date_joined: '2026-01-01T00:00:00+00:00',
        api_key: 'key00000000000000000000000000003',
      },
    ],
  });
  const dm = (state: RealmState, from: number, to: number[]) =>
    sendMessage(state, { userId: from }, { type: 'direct', to, content: 'Hi' }, testCtx());

  it('learns of the sender (realm_user add, before the message) on the first message only', () => {
    const first = dm(realm, 1, [2]);
    expect(first.status).toBe(200);
    const adds = first.events.filter((e) => e.event.type === 'realm_user');
    expect(adds).toEqual([
      {
        event: {
          type: 'realm_user',
          op: 'add',
          person: expect.objectContaining({ user_id: 1, full_name: 'One' }),
        },
        users: [2],
      },
    ]);
    expect(first.events.findIndex((e) => e.event.type === 'realm_user')).toBeLessThan(
      first.events.findIndex((e) => e.event.type === 'message'),
    );
    for (const e of adds) expectValidEvent(e.event);
    const again = dm(first.state, 1, [2]);
    expect(again.events.filter((e) => e.event.type === 'realm_user')).toEqual([]);
  });

  it('in a group conversation, learns of every human participant it could not see', () => {
    const r = dm(realm, 1, [2, 3]);
    expect(r.status).toBe(200);
    const added = r.events
      .filter((e) => e.event.type === 'realm_user')
      .map((e) => [(e.event as { person: { user_id: number } }).person.user_id, e.users]);
    expect(added).toEqual([
      [1, [2]],
      [3, [2]],
    ]);
  });

  it('sends nothing when every user may see every other user', () => {
    const snapshot = snapshotRealm(realm);
    const settings = snapshot.realm as Record<string, unknown>;
    const open = createRealm({
      ...snapshot,
      realm: { ...settings, can_access_all_users_group: 'role:everyone' },
    });
    expect(dm(open, 1, [2]).events.filter((e) => e.event.type === 'realm_user')).toEqual([]);
  });
});

describe('sendMessage: Zulip cases of issue 25 (check_message, access_stream_for_send_message)', () => {
  const dev = devRealm();
  const SECRETS = 7;
  const channelOf = (s: ReturnType<typeof devSnapshot>, id: number) =>
    (s['channels'] as Array<Record<string, unknown>>).find((x) => x['stream_id'] === id)!;

  it('an unknown type is "Invalid type" (test_message_send.py test_invalid_type)', () => {
    refused(
      dev,
      send(dev, 'hamlet', { type: 'invalid type', content: 'Test message', to: 'othello@zulip.com' }),
      'Invalid type',
    );
    const r = wire(dev, 'hamlet', 'POST', '/messages', { type: 'invalid type', content: 'x', to: 'Verona' });
    expect(r.body).toMatchObject({ result: 'error', msg: 'Invalid type', code: 'BAD_REQUEST' });
  });

  it('a channel name is checked before it is looked up (validate_stream_name_with_pm_notification → check_stream_name)', () => {
    refused(dev, send(dev, 'hamlet', toVerona({ to: '   ' })), "Channel name can't be empty.");
    refused(
      dev,
      send(dev, 'hamlet', toVerona({ to: 'x'.repeat(61) })),
      'Channel name too long (limit: 60 characters).',
    );
    refused(
      dev,
      send(dev, 'hamlet', toVerona({ to: 'bad\u0001name' })),
      'Invalid character in channel name, at position 4.',
    );
    // Surrounding whitespace is stripped, then the name is found.
    ok(send(dev, 'hamlet', toVerona({ to: '  Verona ' })));
  });

  it('widget_content is validated (check_message, check_widget_content in zerver/lib/validator.py)', () => {
    const w = (widget_content: string) => send(dev, 'hamlet', toVerona({ widget_content }));
    refused(dev, w('{not json'), 'Widgets: API programmer sent invalid JSON content');
    refused(dev, w('[]'), 'Widgets: widget_content is not a dict');
    refused(dev, w('{"extra_data": {}}'), 'Widgets: widget_type is not in widget_content');
    refused(dev, w('{"widget_type": "zform"}'), 'Widgets: extra_data is not in widget_content');
    refused(dev, w('{"widget_type": "zform", "extra_data": 3}'), 'Widgets: extra_data is not a dict');
    refused(dev, w('{"widget_type": "zform", "extra_data": {}}'), 'Widgets: zform is missing type field');
    refused(
      dev,
      w('{"widget_type": "zform", "extra_data": {"type": "wheel"}}'),
      'Widgets: unknown zform type: wheel',
    );
    refused(dev, w('{"widget_type": "poll", "extra_data": {}}'), 'Widgets: unknown widget type: poll');
    const choices = (extra: Record<string, unknown>) =>
      w(JSON.stringify({ widget_type: 'zform', extra_data: { type: 'choices', ...extra } }));
    refused(dev, choices({}), 'Widgets: heading key is missing from extra_data');
    refused(dev, choices({ heading: 1, choices: [] }), 'Widgets: extra_data["heading"] is not a string');
    refused(dev, choices({ heading: 'h' }), 'Widgets: choices key is missing from extra_data');
    refused(dev, choices({ heading: 'h', choices: {} }), 'Widgets: extra_data["choices"] is not a list');
    refused(dev, choices({ heading: 'h', choices: [1] }), 'Widgets: extra_data["choices"][0] is not a dict');
    refused(
      dev,
      choices({ heading: 'h', choices: [{ short_name: 'a', long_name: 'b' }] }),
      'Widgets: reply key is missing from extra_data["choices"][0]',
    );
    refused(
      dev,
      choices({ heading: 'h', choices: [{ short_name: 'a', long_name: 2, reply: 'c' }] }),
      'Widgets: extra_data["choices"][0]["long_name"] is not a string',
    );
    ok(choices({ heading: 'h', choices: [{ short_name: 'a', long_name: 'b', reply: 'c' }] }));
    // Checked after the addressee, as in check_message.
    refused(
      dev,
      send(dev, 'hamlet', toVerona({ to: 'Atlantis', widget_content: '{' })),
      "Channel 'Atlantis' does not exist",
      'STREAM_DOES_NOT_EXIST',
      { stream: 'Atlantis' },
    );
  });

  it('a non-guest in can_subscribe_group or can_add_subscribers_group may post to a private channel with shared history', () => {
    // Cordelia is not subscribed to "core team" (private, shared history).
    refused(
      dev,
      send(dev, 'cordelia', toVerona({ to: CORE_TEAM })),
      "Not authorized to send to channel 'core team'",
    );
    for (const setting of ['can_subscribe_group', 'can_add_subscribers_group']) {
      const s = realmWith((snap) => {
        channelOf(snap, CORE_TEAM)[setting] = {
          direct_members: [cordelia, cast.polonius],
          direct_subgroups: [],
        };
        channelOf(snap, SECRETS)[setting] = { direct_members: [othello], direct_subgroups: [] };
      });
      ok(send(s, 'cordelia', toVerona({ to: CORE_TEAM })));
      // Not a guest (the groups cannot grant guests content access).
      refused(
        s,
        send(s, 'polonius', toVerona({ to: CORE_TEAM })),
        "Not authorized to send to channel 'core team'",
      );
      // Not where the history is protected.
      refused(
        s,
        send(s, 'othello', toVerona({ to: SECRETS })),
        "Not authorized to send to channel 'secrets'",
      );
    }
  });

  it("can_create_topic_group retries with a bot's owner (check_for_can_create_topic_group_violation)", () => {
    const s = realmWith((snap) => {
      channelOf(snap, VERONA)['can_create_topic_group'] = { direct_members: [hamlet], direct_subgroups: [] };
    });
    // The default bot belongs to Hamlet; the embedded bot to Othello.
    ok(send(s, 'defaultBot', toVerona({ topic: 'a brand new topic' })));
    refused(
      s,
      send(s, 'embeddedBot', toVerona({ topic: 'another new topic' })),
      'You do not have permission to create new topics in this channel.',
    );
  });

  it('system groups cannot be mentioned: their can_mention_group is role:nobody (default_for_system_groups)', () => {
    refused(
      dev,
      send(dev, 'iago', toVerona({ content: 'ping @*role:moderators*' })),
      "You are not allowed to mention user group 'role:moderators'.",
    );
    expect(dev.groups.get(dev.systemGroups['role:members'])!.can_mention_group).toBe(
      dev.systemGroups['role:nobody'],
    );
    // A silent mention is not a mention.
    ok(send(dev, 'iago', toVerona({ content: 'ping @_*role:moderators*' })));
  });
});
