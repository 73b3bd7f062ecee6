import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/context';
import { createRealm } from '../../src/core/snapshot/create';
import type { OpResult } from '../../src/core/result';
import type { RealmState } from '../../src/core/state';
import { subscriberIds } from '../../src/core/permissions/channels';
import { getMessages } from '../../src/ops/messages/getMessages';
import { sendMessage } from '../../src/ops/messages/sendMessage';
import { NarrowContext } from '../../src/narrow';
import { expectRefused } from '../support/expect-result';
import { loose } from '../support/loose';
import { expectValidResponse } from '../support/openapi';
import { as, cast, devRealm, devSnapshot, testCtx, wire, type CastName } from '../support/realm';
import { fcParams } from '../laws/runs';

const OP = 'get-messages';
const { hamlet, cordelia } = cast;
const VERONA = 1;
const SECRETS = 7;

const fetch = (state: RealmState, who: CastName, params: Record<string, unknown>) =>
  getMessages(state, as(who), params, testCtx());
type Msg = { id: number; flags: string[] } & Record<string, unknown>;
function ok(r: OpResult): { messages: Msg[] } & Record<string, unknown> {
  expectValidResponse(OP, r.status, r.body);
  expect(r.status).toBe(200);
  expect(r.events).toEqual([]);
  return r.body as unknown as { messages: Msg[] } & Record<string, unknown>;
}
const refused = (before: RealmState, r: OpResult, msg: string, code = 'BAD_REQUEST', extra = {}) =>
  expectRefused(OP, r, before, msg, code, extra);
const ids = (r: OpResult) => ok(r).messages.map((m) => m.id);

/** A realm whose messages are ours: Verona messages 1000..1009 from Cordelia (Hamlet unread), a DM. */
function small(): RealmState {
  const snap = devSnapshot();
  snap['messages'] = [
    ...Array.from({ length: 10 }, (_, k) => ({
      id: 1000 + k,
      sender_id: cordelia,
      stream_id: VERONA,
      topic: k % 2 === 0 ? 'even' : '',
      content: `message **${k}**`,
      timestamp: 1_700_000_000 + k,
      flags: { [hamlet]: k < 3 ? ['read' as const] : [], [cordelia]: ['read' as const] },
    })),
    {
      id: 2000,
      sender_id: cordelia,
      to: [hamlet],
      content: 'a secret',
      timestamp: 1_700_000_100,
      flags: { [hamlet]: [], [cordelia]: ['read' as const] },
    },
    {
      id: 2001,
      sender_id: cordelia,
      stream_id: SECRETS,
      topic: 'x',
      content: 'hidden',
      timestamp: 1_700_000_200,
      flags: { [cordelia]: ['read' as const] },
    },
  ];
  snap['user_topics'] = [];
  return createRealm(snap, { random: seededRandom(1) });
}

describe('getMessages: the window', () => {
  const s = small();

  it('anchors: newest, oldest, an id, first_unread; found_* and anchor as Zulip reports them', () => {
    const newest = ok(fetch(s, 'hamlet', { anchor: 'newest', num_before: 3, num_after: 0 }));
    expect(newest.messages.map((m) => m.id)).toEqual([1008, 1009, 2000]);
    expect(newest).toMatchObject({
      found_anchor: false,
      found_newest: true,
      found_oldest: false,
      history_limited: false,
      anchor: 10 ** 16,
    });
    const oldest = ok(fetch(s, 'hamlet', { anchor: 'oldest', num_before: 0, num_after: 2 }));
    expect(oldest).toMatchObject({ found_oldest: true, found_newest: false, anchor: 0 });
    expect(oldest.messages.map((m) => m.id)).toEqual([1000, 1001]);
    const around = ok(fetch(s, 'hamlet', { anchor: '1005', num_before: 1, num_after: 1 }));
    expect(around.messages.map((m) => m.id)).toEqual([1004, 1005, 1006]);
    expect(around).toMatchObject({ found_anchor: true, anchor: 1005 });
    const unread = ok(fetch(s, 'hamlet', { anchor: 'first_unread', num_before: 0, num_after: 1 }));
    expect(unread).toMatchObject({ anchor: 1003, found_anchor: true });
    const legacy = ok(fetch(s, 'hamlet', { use_first_unread_anchor: true, num_before: 0, num_after: 1 }));
    expect(legacy.anchor).toBe(1003);
    const excluded = ok(
      fetch(s, 'hamlet', { anchor: 1005, num_before: 0, num_after: 1, include_anchor: false }),
    );
    expect(excluded.messages.map((m) => m.id)).toEqual([1006]);
    expect(excluded.found_anchor).toBe(false);
    // Python's int('-0') is 0: the anchor reported is 0, never -0 (found by the shaped totality law).
    for (const anchor of ['-0', -0, '-5']) {
      expect(Object.is(ok(fetch(s, 'hamlet', { anchor, num_before: 0, num_after: 1 })).anchor, 0)).toBe(true);
    }
  });

  it('each message in Zulip shape with the user flags', () => {
    const [m] = ok(fetch(s, 'hamlet', { anchor: 1000, num_before: 0, num_after: 0 })).messages;
    expect(m).toMatchObject({
      id: 1000,
      sender_id: cordelia,
      type: 'stream',
      stream_id: VERONA,
      display_recipient: 'Verona',
      subject: 'even',
      content: '<p>message <strong>0</strong></p>',
      content_type: 'text/html',
      flags: ['read'],
      reactions: [],
      sender_email: 'cordelia@zulip.com',
      sender_full_name: "Cordelia, Lear's daughter",
    });
    const raw = ok(fetch(s, 'hamlet', { anchor: 1001, num_before: 0, num_after: 0, apply_markdown: false }))
      .messages[0]!;
    expect(raw).toMatchObject({
      content: 'message **1**',
      content_type: 'text/x-markdown',
      subject: 'general chat',
      flags: ['read'],
    });
    const empty = ok(
      fetch(s, 'hamlet', { anchor: 1001, num_before: 0, num_after: 0, allow_empty_topic_name: true }),
    );
    expect(empty.messages[0]!.subject).toBe('');
    const dm = ok(fetch(s, 'hamlet', { anchor: 2000, num_before: 0, num_after: 0 })).messages[0]!;
    expect(dm).toMatchObject({ type: 'private', display_recipient: [{ id: hamlet }, { id: cordelia }] });
    expect(dm).not.toHaveProperty('stream_id');
  });

  it('history from a channel the user may read: read+historical without a row; not from protected history', () => {
    const r = ok(
      fetch(s, 'othello', {
        anchor: 'oldest',
        num_before: 0,
        num_after: 100,
        narrow: [{ operator: 'channel', operand: 'Verona' }],
      }),
    );
    expect(r.messages).toHaveLength(10);
    expect(r.messages[0]!.flags).toEqual(['read', 'historical']);
    expect(ids(fetch(s, 'othello', { anchor: 'oldest', num_before: 0, num_after: 100 }))).toEqual([]);
    expect(
      ids(
        fetch(s, 'hamlet', {
          anchor: 'oldest',
          num_before: 0,
          num_after: 100,
          narrow: [{ operator: 'channel', operand: SECRETS }],
        }),
      ),
    ).toEqual([]);
  });

  it('message_ids: the accessible subset, no range fields', () => {
    const r = ok(fetch(s, 'hamlet', { message_ids: [1009, 1000, 2001, 99999] }));
    expect(r.messages.map((m) => m.id)).toEqual([1000, 1009]);
    expect(r).toEqual({
      result: 'success',
      msg: '',
      messages: r.messages,
      history_limited: false,
      found_anchor: false,
      found_oldest: false,
      found_newest: false,
    });
  });

  it('narrows by channel, topic, the empty topic by its display name, and search', () => {
    expect(
      ids(
        fetch(s, 'hamlet', {
          anchor: 'oldest',
          num_before: 0,
          num_after: 100,
          narrow: [{ operator: 'topic', operand: 'even' }],
        }),
      ),
    ).toEqual([1000, 1002, 1004, 1006, 1008]);
    expect(
      ids(
        fetch(s, 'hamlet', {
          anchor: 'oldest',
          num_before: 0,
          num_after: 2,
          narrow: [
            { operator: 'channel', operand: VERONA },
            { operator: 'topic', operand: 'general chat' },
          ],
        }),
      ),
    ).toEqual([1001, 1003]);
    const found = ok(
      fetch(s, 'hamlet', {
        anchor: 'newest',
        num_before: 5,
        num_after: 0,
        narrow: [{ operator: 'search', operand: 'secret' }],
      }),
    );
    expect(found.messages.map((m) => m.id)).toEqual([2000]);
    // Zulip's highlight spans around each matching word of the rendered content; a DM has no topic.
    expect(found.messages[0]).toMatchObject({
      match_content: '<p>a <span class="highlight">secret</span></p>',
      match_subject: '',
    });
    const raw = ok(
      fetch(s, 'hamlet', {
        anchor: 'newest',
        num_before: 5,
        num_after: 0,
        apply_markdown: false,
        narrow: [{ operator: 'search', operand: 'SECRETS' }],
      }),
    );
    // Stemmed (secrets → secret), and highlighted in the rendered HTML even when content is Markdown.
    expect(raw.messages[0]).toMatchObject({
      content: 'a secret',
      match_content: '<p>a <span class="highlight">secret</span></p>',
    });
  });

  it('over the wire: JSON-encoded narrow and booleans', () => {
    const r = wire(s, 'hamlet', 'GET', '/messages', {
      anchor: 'newest',
      num_before: '2',
      num_after: '0',
      narrow: '[{"operator":"is","operand":"dm"}]',
      apply_markdown: 'false',
    });
    expect(ok(r).messages.map((m) => m.id)).toEqual([2000]);
  });
});

describe('getMessages: errors in Zulip order', () => {
  const s = small();
  it('refuses bad combinations, anchors and sizes', () => {
    refused(
      s,
      fetch(s, 'hamlet', { message_ids: [1], anchor: 'newest' }),
      'Unsupported parameter combination: num_before, num_after, anchor, message_ids, include_anchor, use_first_unread_anchor',
      'BAD_REQUEST',
      { parameters: 'num_before, num_after, anchor, message_ids, include_anchor, use_first_unread_anchor' },
    );
    refused(s, fetch(s, 'hamlet', { num_before: 1, num_after: 1 }), "Missing 'anchor' argument.");
    refused(s, fetch(s, 'hamlet', { anchor: 'middle', num_before: 1, num_after: 1 }), 'Invalid anchor');
    refused(
      s,
      fetch(s, 'hamlet', { anchor: 'newest', num_before: 3000, num_after: 2001 }),
      'Too many messages requested (maximum 5000).',
    );
    refused(
      s,
      fetch(s, 'hamlet', { message_ids: Array.from({ length: 5001 }, (_, k) => k) }),
      'Too many messages requested (maximum 5000).',
    );
    refused(
      s,
      fetch(s, 'hamlet', { anchor: 10, num_before: 1, num_after: 1, include_anchor: false }),
      'The anchor can only be excluded at an end of the range',
    );
    refused(
      s,
      fetch(s, 'hamlet', {
        anchor: 10,
        num_before: 1,
        num_after: 1,
        narrow: [{ operator: 'channel', operand: 'Nowhere' }],
      }),
      'Invalid narrow operator: unknown channel Nowhere',
      'BAD_NARROW',
      { desc: 'unknown channel Nowhere' },
    );
  });
});

/**
 * The property of the issue: a sent message is fetched back by every narrow that should match it
 * and by no other, for every recipient and no one else.
 */
describe('getMessages after sendMessage', () => {
  const dev = devRealm();
  const active = [...dev.users.values()].filter((u) => u.is_active).map((u) => u.user_id);
  const pairs: Array<[number, number]> = [];
  for (const [streamId, per] of dev.subscriptions.entries())
    for (const sub of per.values())
      if (sub.active && dev.users.get(sub.user_id)?.is_active) pairs.push([sub.user_id, streamId]);

  const arbSend = fc.oneof(
    fc
      .tuple(
        fc.constantFrom(...pairs),
        fc.constantFrom('lunch', 'Lunch', 'weather', 'brand new'),
        fc.constantFrom('hi', "hi @**Cordelia, Lear's daughter**"),
      )
      .map(([[sender, streamId], topic, content]) => ({
        sender,
        params: { type: 'stream', to: streamId, topic, content },
      })),
    fc
      .tuple(fc.constantFrom(...active), fc.subarray(active, { minLength: 1, maxLength: 3 }))
      .map(([sender, to]) => ({ sender, params: { type: 'direct', to, content: 'psst' } })),
  );

  it('finds the message for exactly its recipients, with every narrow that matches it', () => {
    fc.assert(
      fc.property(arbSend, ({ sender, params }) => {
        const sent = sendMessage(dev, { userId: sender }, params, testCtx());
        fc.pre(sent.status === 200);
        const state = sent.state;
        const id = (sent.body as unknown as { id: number }).id;
        const isStream = params.type === 'stream';
        const streamId = isStream ? (params.to as number) : null;
        const participants = isStream
          ? []
          : [...new Set([sender, ...(params.to as number[])])].sort((a, b) => a - b);
        const recipients = new Set(
          isStream ? subscriberIds(dev, streamId!) : participants.filter((u) => dev.users.get(u)?.is_active),
        );
        const topic = 'topic' in params ? params.topic : '';
        for (const userId of active) {
          const user = state.users.get(userId)!;
          const ctx = new NarrowContext(state, user);
          const channel = streamId === null ? undefined : state.channels.get(streamId);
          const hasRow = recipients.has(userId);
          const readsRow = hasRow && (streamId === null || ctx.rowChannelReadable(streamId));
          const history = channel !== undefined && ctx.canReadHistory(channel);
          const narrows: Array<[unknown[], boolean]> = [
            [[], readsRow],
            [[{ operator: 'sender', operand: sender }], readsRow],
            [[{ operator: 'is', operand: 'dm' }], readsRow && !isStream],
            [[{ operator: 'topic', operand: topic.toUpperCase() }], readsRow && isStream],
          ];
          if (isStream) {
            narrows.push(
              [[{ operator: 'channel', operand: streamId }], readsRow || history],
              [
                [
                  { operator: 'channel', operand: streamId },
                  { operator: 'topic', operand: topic },
                ],
                readsRow || history,
              ],
              [
                [
                  { operator: 'channel', operand: streamId },
                  { operator: 'topic', operand: `${topic}x` },
                ],
                false,
              ],
              [[{ operator: 'channel', operand: streamId === 1 ? 2 : 1 }], false],
            );
          } else if (participants.includes(userId)) {
            const others = participants.filter((u) => u !== userId);
            narrows.push([[{ operator: 'dm', operand: others.length > 0 ? others : [userId] }], readsRow]);
          }
          for (const [narrow, expected] of narrows) {
            const r = loose(getMessages)(
              state,
              { userId },
              { anchor: id, num_before: 0, num_after: 0, narrow },
              testCtx(),
            );
            expect(r.status, JSON.stringify(narrow)).toBe(200);
            const got = (r.body['messages'] as Msg[]).map((m) => m.id);
            expect(got, `user ${userId}, narrow ${JSON.stringify(narrow)}`).toEqual(expected ? [id] : []);
          }
        }
      }),
      fcParams(25),
    );
  });

  it('the sender sees it as read with read_by_sender; a mentioned user as mentioned', () => {
    const sent = sendMessage(
      dev,
      as('hamlet'),
      {
        type: 'stream',
        to: VERONA,
        topic: 'lunch',
        content: '@**King Hamlet** @**Othello, the Moor of Venice**',
        read_by_sender: true,
      },
      testCtx(),
    );
    const id = (sent.body as unknown as { id: number }).id;
    const mine = ok(fetch(sent.state, 'hamlet', { anchor: id, num_before: 0, num_after: 0 })).messages[0]!;
    expect(mine.flags).toEqual(['read', 'mentioned']);
    const his = ok(fetch(sent.state, 'othello', { anchor: id, num_before: 0, num_after: 0 })).messages[0]!;
    expect(his.flags).toEqual(['mentioned']);
    expect(
      ids(
        fetch(sent.state, 'othello', {
          anchor: id,
          num_before: 0,
          num_after: 0,
          narrow: [{ operator: 'is', operand: 'mentioned' }],
        }),
      ),
    ).toEqual([id]);
    expect(
      ids(
        fetch(sent.state, 'polonius', {
          anchor: id,
          num_before: 0,
          num_after: 0,
          narrow: [{ operator: 'is', operand: 'mentioned' }],
        }),
      ),
    ).toEqual([]);
  });
});

/**
 * Zulip's `with` operator (zerver/lib/narrow.py `update_narrow_terms_containing_with_operator`,
 * test_message_fetch.py `test_with_operator`-style cases): it follows the message's conversation.
 */
describe('getMessages: the with operator', () => {
  const s = small();
  const win = { anchor: 'newest', num_before: 50, num_after: 0 };
  const EVEN = [1000, 1002, 1004, 1006, 1008];

  it("replaces the conversation terms with the message's channel and topic, keeping the others", () => {
    expect(ids(fetch(s, 'hamlet', { ...win, narrow: [{ operator: 'with', operand: 1002 }] }))).toEqual(EVEN);
    // Channel and topic terms naming another conversation are replaced; `is:` terms stay.
    const mixed = [
      { operator: 'channel', operand: 'Denmark' },
      { operator: 'topic', operand: 'elsewhere' },
      { operator: 'with', operand: '1004' },
      { operator: 'is', operand: 'unread' },
    ];
    expect(ids(fetch(s, 'hamlet', { ...win, narrow: mixed }))).toEqual([1004, 1006, 1008]);
    // The empty topic: `with` a general-chat message narrows to the empty topic.
    expect(ids(fetch(s, 'hamlet', { ...win, narrow: [['with', '1001']] }))).toEqual([
      1001, 1003, 1005, 1007, 1009,
    ]);
  });

  it("a direct message: its participants, a one-to-one message by its Recipient's user", () => {
    // Cordelia sent 2000 to Hamlet: the Recipient is Hamlet, so `dm:[hamlet]` for Cordelia.
    expect(ids(fetch(s, 'cordelia', { ...win, narrow: [{ operator: 'with', operand: 2000 }] }))).toEqual([
      2000,
    ]);
    // For Hamlet (the receiver) `dm:[hamlet]` is his own conversation, as in Zulip.
    expect(ids(fetch(s, 'hamlet', { ...win, narrow: [{ operator: 'with', operand: 2000 }] }))).toEqual([]);
  });

  it('an inaccessible or missing message: the given conversation terms, else Invalid with operator', () => {
    const fallback = [
      { operator: 'channel', operand: 'Verona' },
      { operator: 'topic', operand: 'even' },
      { operator: 'with', operand: 2001 },
    ];
    expect(ids(fetch(s, 'hamlet', { ...win, narrow: fallback }))).toEqual(EVEN);
    const dm = [
      { operator: 'dm', operand: [cordelia] },
      { operator: 'with', operand: 999_999 },
    ];
    expect(ids(fetch(s, 'hamlet', { ...win, narrow: dm }))).toEqual([2000]);
    const invalid = [
      "Invalid narrow operator: Invalid 'with' operator",
      'BAD_NARROW',
      { desc: "Invalid 'with' operator" },
    ] as const;
    refused(s, fetch(s, 'hamlet', { ...win, narrow: [{ operator: 'with', operand: 2001 }] }), ...invalid);
    // A channel term alone does not define a conversation.
    const channelOnly = [
      { operator: 'channel', operand: 'Verona' },
      { operator: 'with', operand: 2001 },
    ];
    refused(s, fetch(s, 'hamlet', { ...win, narrow: channelOnly }), ...invalid);
    refused(s, fetch(s, 'hamlet', { ...win, narrow: [{ operator: 'with', operand: 'abc' }] }), ...invalid);
  });

  it('refuses a second with term, before anything else about the narrow', () => {
    const two = [
      { operator: 'with', operand: 1000 },
      { operator: 'with', operand: 1002 },
    ];
    refused(
      s,
      fetch(s, 'hamlet', { ...win, narrow: two }),
      "Invalid narrow operator combination: Duplicate 'with' operators.",
      'BAD_NARROW',
      { desc: "Duplicate 'with' operators." },
    );
  });

  it('over the wire', () => {
    const r = wire(s, 'hamlet', 'GET', '/messages', {
      anchor: 'newest',
      num_before: '50',
      num_after: '0',
      narrow: JSON.stringify([{ operator: 'with', operand: 1006 }]),
    });
    expect(ok(r).messages.map((m) => m.id)).toEqual(EVEN);
  });
});

describe('getMessages: channels:web-public turns history on (ok_to_include_history)', () => {
  it('a non-guest sees web-public messages without rows, read and historical; a guest does not', () => {
    const snap = devSnapshot();
    snap['messages'] = [
      {
        id: 500,
        sender_id: hamlet,
        stream_id: 4,
        topic: 'walls',
        content: 'in Rome',
        timestamp: 1_700_000_000,
        flags: { [hamlet]: ['read'] },
      },
      {
        id: 501,
        sender_id: hamlet,
        stream_id: VERONA,
        topic: 'x',
        content: 'in Verona',
        timestamp: 1_700_000_001,
        flags: { [hamlet]: ['read'] },
      },
    ];
    snap['user_topics'] = [];
    snap['subscriptions'] = snap['subscriptions'].filter(
      (x) =>
        !(
          (x as { user_id: number }).user_id === cast.polonius && (x as { stream_id: number }).stream_id === 4
        ),
    );
    const s = createRealm(snap, { random: seededRandom(1) });
    const narrow = [{ operator: 'channels', operand: 'web-public' }];
    const win = { anchor: 'newest', num_before: 10, num_after: 0, narrow };
    const got = ok(fetch(s, 'othello', win)).messages;
    expect(got.map((m) => [m.id, m.flags])).toEqual([[500, ['read', 'historical']]]);
    expect(ids(fetch(s, 'polonius', win))).toEqual([]);
  });
});
