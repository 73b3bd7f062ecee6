import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRealm } from '../../src/core/snapshot/create';
import { seededRandom } from '../../src/core/context';
import { getRowFlags } from '../../src/core/messages/rows';
import { FLAG_BITS } from '../../src/core/messages/flags';
import type { RealmState } from '../../src/core/state';
import type { OpResult } from '../../src/core/result';
import { clampCounts, updateMessageFlagsForNarrow } from '../../src/ops/messages/updateMessageFlagsForNarrow';
import { parsePythonInt } from '../../src/ops/messages/narrow-request';
import {
  as,
  cast,
  devRealm,
  devSnapshot,
  testCtx,
  wire,
  type CastName,
  type EditableSnapshot,
} from '../support/realm';
import { expectValidEvent, expectValidResponse } from '../support/openapi';
import { loose } from '../support/loose';

const OP = 'update-message-flags-for-narrow';
const { hamlet, cordelia, othello, iago, polonius } = cast;
const VERONA = 1;
const DENMARK = 2;
const ROME = 4;
const SECRETS = 7;

type Msg = EditableSnapshot['messages'][number];
type Snap = ReturnType<typeof devSnapshot>;

/** The dev realm with its messages replaced (and an optional edit of the snapshot). */
function realmWith(messages: Msg[], tweak?: (s: Snap) => void): RealmState {
  const snap = devSnapshot();
  snap['messages'] = messages;
  snap['user_topics'] = [];
  tweak?.(snap);
  return createRealm(snap, { random: seededRandom(1) });
}

/** m0..m9 (ids 1000..1009) from cordelia in Verona, topics 'topic 0'/'topic 1'; hamlet unread on all. */
const M = Array.from({ length: 10 }, (_, k) => 1000 + k);
function verona10(readByHamlet: readonly number[] = []): Msg[] {
  return M.map((id, k) => ({
    id,
    sender_id: cordelia,
    stream_id: VERONA,
    topic: `topic ${k % 2}`,
    content: `message ${k}`,
    timestamp: 1_700_000_000 + k,
    flags: { [hamlet]: readByHamlet.includes(id) ? ['read'] : [], [cordelia]: ['read'] },
  }));
}

const call = (state: RealmState, who: CastName, params: Record<string, unknown>) =>
  loose(updateMessageFlagsForNarrow)(state, as(who), params, testCtx());

const base = { anchor: 'oldest', flag: 'read', narrow: [], num_before: 0, num_after: 100, op: 'add' };

function ok(r: OpResult): Record<string, unknown> {
  expectValidResponse(OP, r.status, r.body);
  for (const e of r.events) expectValidEvent(e.event);
  expect(r.status).toBe(200);
  return r.body as Record<string, unknown>;
}

function refused(
  state: RealmState,
  r: OpResult,
  msg: string,
  code = 'BAD_REQUEST',
  extra: Record<string, unknown> = {},
) {
  expectValidResponse(OP, r.status, r.body);
  expect(r.status).toBe(400);
  expect(r.body).toEqual({ result: 'error', msg, code, ...extra });
  expect(r.state).toBe(state);
  expect(r.events).toEqual([]);
}

const flagsOf = (state: RealmState, user: number, id: number) => {
  const rows = state.messages.rows.get(user);
  return rows && getRowFlags(rows, id);
};
const isRead = (state: RealmState, user: number, id: number) =>
  ((flagsOf(state, user, id) ?? 0) & FLAG_BITS.read) !== 0;

describe('updateMessageFlagsForNarrow', () => {
  const v10 = realmWith(verona10());

  it('marks a two-sided range around an anchor read (Zulip test_update_flags_for_narrow)', () => {
    const r = call(v10, 'hamlet', { ...base, anchor: String(M[5]), num_before: 2, num_after: 2 });
    expect(ok(r)).toEqual({
      result: 'success',
      msg: '',
      processed_count: 5,
      updated_count: 5,
      first_processed_id: M[3],
      last_processed_id: M[7],
      found_oldest: false,
      found_newest: false,
      ignored_because_not_subscribed_channels: [],
    });
    expect(M.map((id) => isRead(r.state, hamlet, id))).toEqual([
      false,
      false,
      false,
      true,
      true,
      true,
      true,
      true,
      false,
      false,
    ]);
    expect(isRead(v10, hamlet, M[3]!)).toBe(false);
    expect(r.events).toEqual([
      {
        event: {
          type: 'update_message_flags',
          op: 'add',
          operation: 'add',
          flag: 'read',
          messages: M.slice(3, 8),
          all: false,
        },
        users: [hamlet],
      },
    ]);
  });

  it('accepts the legacy pair syntax over the wire, with include_anchor=false (starred, topic narrow)', () => {
    const r = wire(v10, 'hamlet', 'POST', '/messages/flags/narrow', {
      anchor: String(M[3]),
      flag: 'starred',
      narrow: '[["stream", "Verona"], ["topic", "topic 1"]]',
      num_after: '5',
      num_before: '0',
      op: 'add',
      include_anchor: 'false',
    });
    expect(ok(r)).toMatchObject({
      processed_count: 3,
      updated_count: 3,
      first_processed_id: M[5],
      last_processed_id: M[9],
      found_oldest: false,
      found_newest: true,
    });
    expect(r.events[0]!.event).toMatchObject({ messages: [M[5], M[7], M[9]] });
    expect((flagsOf(r.state, hamlet, M[5]!)! & FLAG_BITS.starred) !== 0).toBe(true);
  });

  it('skips unsubscribed channels when marking unread and reports them', () => {
    const t = 1100;
    const state = realmWith(
      [
        ...verona10(M.slice(3, 8)),
        {
          id: t,
          sender_id: cordelia,
          stream_id: ROME,
          topic: 'test',
          content: 't',
          timestamp: 1_700_000_100,
          flags: { [hamlet]: ['read'] },
        },
      ],
      (s) => {
        (s['subscriptions'] as Array<Record<string, unknown>>).forEach((x) => {
          if (x['user_id'] === hamlet && x['stream_id'] === ROME) x['active'] = false;
        });
      },
    );
    const r = call(state, 'hamlet', {
      ...base,
      anchor: String(t),
      narrow: [{ operator: 'streams', operand: 'public' }],
      num_before: 10,
      num_after: 0,
      op: 'remove',
    });
    expect(ok(r)).toMatchObject({
      processed_count: 11,
      updated_count: 5,
      first_processed_id: M[0],
      last_processed_id: t,
      found_oldest: false,
      found_newest: false,
      ignored_because_not_subscribed_channels: [ROME],
    });
    expect(isRead(r.state, hamlet, t)).toBe(true);
    expect(M.every((id) => !isRead(r.state, hamlet, id))).toBe(true);
    const event = r.events[0]!.event as Record<string, unknown>;
    expect(event['messages']).toEqual(M.slice(3, 8));
    expect(event['message_details']).toEqual(
      Object.fromEntries(
        M.slice(3, 8).map((id) => [
          String(id),
          { type: 'stream', stream_id: VERONA, topic: `topic ${id % 2}`, unmuted_stream_msg: true },
        ]),
      ),
    );
  });

  describe('parameters', () => {
    const p = { anchor: 'newest', flag: 'read', narrow: '[]', num_after: '0', num_before: '0', op: 'add' };
    const w = (over: Record<string, string>, drop: string[] = []) => {
      const params: Record<string, string> = { ...p, ...over };
      for (const k of drop) delete params[k];
      return wire(v10, 'hamlet', 'POST', '/messages/flags/narrow', params);
    };
    it.each([
      ['anchor', "Missing 'anchor' argument"],
      ['flag', "Missing 'flag' argument"],
      ['narrow', "Missing 'narrow' argument"],
      ['num_after', "Missing 'num_after' argument"],
      ['num_before', "Missing 'num_before' argument"],
      ['op', "Missing 'op' argument"],
    ])('requires %s', (name, msg) => {
      refused(v10, w({}, [name]), msg, 'REQUEST_VARIABLE_MISSING', { var_name: name });
    });
    it.each([
      [{ anchor: 'abc' }, 'Invalid anchor'],
      [{ anchor: '' }, 'Invalid anchor'],
      [{ anchor: '1.5' }, 'Invalid anchor'],
      [{ anchor: '"5"' }, 'Invalid anchor'],
      [{ num_before: '-1' }, 'num_before is too small'],
      [{ num_after: '1.5' }, 'num_after is not an integer'],
      [{ num_before: 'true' }, 'num_before is not an integer'],
      [{ num_before: '"5"' }, 'num_before is not an integer'],
      [{ num_before: 'False' }, 'num_before is not valid JSON'],
      [{ num_before: '' }, 'num_before is not valid JSON'],
      [{ include_anchor: '1' }, 'include_anchor is not a boolean'],
      [{ narrow: '{malformed json,' }, 'narrow is not valid JSON'],
      [{ narrow: 'False' }, 'narrow is not valid JSON'],
      [{ narrow: '' }, 'narrow is not valid JSON'],
      [{ narrow: '0' }, 'narrow is not a list'],
      [{ narrow: '{}' }, 'narrow is not a list'],
      [{ narrow: '[1,2]' }, 'Invalid narrow[0]: Value error, dict or list required'],
      [{ narrow: '["asadasd"]' }, 'Invalid narrow[0]: Value error, dict or list required'],
      [{ narrow: '[[],[]]' }, 'Invalid narrow[0]: Value error, element is not a string pair'],
      [{ narrow: '[["x","y","z"]]' }, 'Invalid narrow[0]: Value error, element is not a string pair'],
      [{ narrow: '[["is", 2]]' }, 'Invalid narrow[0]: Value error, element is not a string pair'],
      [
        { narrow: '[{"operator": null, "operand": "x"}]' },
        'Invalid narrow[0]: Value error, operator is missing',
      ],
      [
        { narrow: '[{"operator": "stream", "operand": null}]' },
        'Invalid narrow[0]: Value error, operand is missing',
      ],
      [{ narrow: '[{"operator": 5, "operand": "x"}]' }, 'narrow[0]["operator"] is not a string'],
      [
        { narrow: '[{"operator": "is", "operand": "dm", "negated": 1}]' },
        'narrow[0]["negated"] is not a boolean',
      ],
      [{ narrow: '[{"operator": "search", "operand": "   "}]' }, 'operand cannot be blank.'],
      [{ narrow: '[{"operator": "search", "operand": 5}]' }, 'operand is not a string'],
      [{ narrow: '[{"operator": "dm", "operand": ["2"]}]' }, 'operand[0] is not an integer'],
      [{ narrow: '[{"operator": "dm", "operand": {}}]' }, 'operand is not a string or an integer list'],
      [{ narrow: '[{"operator": "is", "operand": 2}]' }, 'operand is not a string'],
      [{ narrow: '[{"operator": "near", "operand": [1]}]' }, 'operand is not a string'],
      [{ narrow: '[{"operator": "has", "operand": 2}]' }, 'operand is not a string'],
      ...['id', 'sender', 'channel', 'dm-including', 'group-pm-with', 'with'].map(
        (op) =>
          [
            { narrow: `[{"operator": "${op}", "operand": ["1"]}]` },
            'operand is not a string or integer',
          ] as const,
      ),
      [
        { anchor: '1', include_anchor: 'false', num_before: '1', num_after: '1' },
        'The anchor can only be excluded at an end of the range',
      ],
      [{ flag: 'invalid' }, "Invalid flag: 'invalid'"],
      [{ flag: 'is_private' }, "Invalid flag: 'is_private'"],
      [{ flag: 'active_mobile_push_notification' }, "Invalid flag: 'active_mobile_push_notification'"],
      [{ flag: 'mentioned' }, "Flag not editable: 'mentioned'"],
      [{ flag: 'historical' }, "Flag not editable: 'historical'"],
      [{ flag: 'starred', op: 'bogus' }, "Invalid message flag operation: 'bogus'"],
    ] as Array<[Record<string, string>, string]>)('refuses %j', (over, msg) => {
      refused(v10, w(over), msg);
    });

    it('checks the narrow terms before the include_anchor rule', () => {
      refused(
        v10,
        w({ anchor: '1', include_anchor: 'false', num_before: '1', num_after: '1', narrow: '[[],[]]' }),
        'Invalid narrow[0]: Value error, element is not a string pair',
      );
    });
    it('checks the narrow before the flag', () => {
      refused(
        v10,
        w({ flag: 'invalid', narrow: '[["foo","x"]]' }),
        'Invalid narrow operator: unknown operator foo',
        'BAD_NARROW',
        { desc: 'unknown operator foo' },
      );
    });

    it('parses anchors like Python int() and clamps them', () => {
      expect(parsePythonInt(' 1_000 ')).toBe(1000);
      expect(parsePythonInt('+7')).toBe(7);
      expect(parsePythonInt('1__0')).toBeNull();
      expect(parsePythonInt('_1')).toBeNull();
      const neg = ok(w({ anchor: '-5', num_before: '3', num_after: '2' }));
      expect(neg).toMatchObject({
        processed_count: 2,
        first_processed_id: M[0],
        last_processed_id: M[1],
        found_oldest: true,
        found_newest: false,
      });
      const big = ok(w({ anchor: '10000000000000001', num_before: '2', num_after: '5' }));
      expect(big).toMatchObject({
        processed_count: 2,
        first_processed_id: M[8],
        last_processed_id: M[9],
        found_oldest: false,
        found_newest: true,
      });
    });

    it('clamps num_before/num_after to 5000 instead of refusing', () => {
      expect(clampCounts(5000, 5000)).toEqual([2500, 2500]);
      expect(clampCounts(10000, 0)).toEqual([5000, 0]);
      expect(clampCounts(0, 10000)).toEqual([0, 5000]);
      expect(clampCounts(100, 6000)).toEqual([100, 4900]);
      expect(clampCounts(4000, 3000)).toEqual([2500, 2500]);
      expect(ok(w({ num_before: '10000', num_after: '10000' }))).toMatchObject({
        processed_count: 10,
        found_oldest: true,
        found_newest: true,
      });
    });

    it('ignores include_anchor=false for newest and processes the anchor when both counts are 0', () => {
      expect(ok(w({ num_before: '2', include_anchor: 'false' }))).toMatchObject({
        processed_count: 2,
        first_processed_id: M[8],
        found_newest: true,
        found_oldest: false,
      });
      const r = w({ anchor: String(M[4]), include_anchor: 'false' });
      expect(ok(r)).toEqual({
        result: 'success',
        msg: '',
        processed_count: 1,
        updated_count: 1,
        first_processed_id: M[4],
        last_processed_id: M[4],
        found_oldest: false,
        found_newest: false,
        ignored_because_not_subscribed_channels: [],
      });
    });

    it('sends the event even when nothing matched', () => {
      const r = w({ anchor: String(M[4]), narrow: '[{"operator": "topic", "operand": "topic 1"}]' });
      expect(ok(r)).toMatchObject({
        processed_count: 0,
        updated_count: 0,
        first_processed_id: null,
        last_processed_id: null,
        found_oldest: false,
        found_newest: false,
      });
      expect(r.state).toBe(v10);
      expect(r.events).toEqual([
        {
          event: {
            type: 'update_message_flags',
            op: 'add',
            operation: 'add',
            flag: 'read',
            messages: [],
            all: false,
          },
          users: [hamlet],
        },
      ]);
    });

    it('reports unknown parameters as ignored', () => {
      expect(ok(w({ foo: '1' }))).toMatchObject({ ignored_parameters_unsupported: ['foo'] });
    });
  });

  describe('narrow operators', () => {
    const bad = (narrow: unknown, desc: string) => {
      const r = call(v10, 'hamlet', { ...base, narrow });
      refused(v10, r, `Invalid narrow operator: ${desc}`, 'BAD_NARROW', { desc });
    };
    it('refuses unknown operators and unknown operands', () => {
      for (const op of ['', 'foo', 'channel:verona', '__init__'])
        bad([{ operator: op, operand: '3' }], `unknown operator ${op}`);
      bad([['has', 'Link']], "unknown 'has' operand Link");
      bad([['in', 'elsewhere']], "unknown 'in' operand elsewhere");
      bad([['is', 'nothing']], "unknown 'is' operand nothing");
      bad([['channels', 'private']], 'unknown channels operand private');
      bad([['channel', 'non-existent channel']], 'unknown channel non-existent channel');
      bad([{ operator: 'channel', operand: 1232891381239 }], 'unknown channel 1232891381239');
      bad([['sender', 'nobody@zulip.com']], 'unknown user nobody@zulip.com');
      bad([['sender', 'me']], 'unknown user me');
      bad([['dm', ' ,,, ,,, ,']], 'unknown user in  ,,, ,,, ,');
      bad([{ operator: 'dm', operand: [1, 99] }], 'unknown user in [1, 99]');
      bad([['dm-including', 'nobody@zulip.com']], 'unknown user nobody@zulip.com');
      for (const operand of ['', 'notanint', '-1', 2147483648])
        bad([{ operator: 'id', operand }], 'Invalid message ID');
    });

    it('refuses a narrow that is both channel and DM, and accepts negated combinations', () => {
      const both = 'No message can be both a channel message and direct message';
      bad(
        [
          { operator: 'is', operand: 'dm', negated: true },
          { operator: 'dm', operand: 'othello@zulip.com' },
        ],
        both,
      );
      bad(
        [
          ['dm', 'othello@zulip.com'],
          ['topic', 'bogus'],
        ],
        both,
      );
      bad(
        [
          ['dm', 'othello@zulip.com'],
          ['channels', 'public'],
        ],
        both,
      );
      bad(
        [
          ['channel', 'Verona'],
          ['is', 'dm'],
        ],
        both,
      );
      // The conflict is found before the channel is looked up.
      bad(
        [
          ['dm', 'othello@zulip.com'],
          ['channel', 'nowhere'],
        ],
        both,
      );
      const r = call(v10, 'hamlet', {
        ...base,
        narrow: [
          { operator: 'is', operand: 'dm', negated: true },
          { operator: 'channels', operand: 'public' },
        ],
      });
      expect(ok(r)).toMatchObject({ processed_count: 10 });
      expect(
        ok(
          call(v10, 'hamlet', {
            ...base,
            narrow: [{ operator: 'channel', operand: 'Verona', negated: true }, ['is', 'dm']],
          }),
        ),
      ).toMatchObject({ processed_count: 0 });
    });

    it('matches topics case-insensitively, channels by name or id, and general chat as the empty topic', () => {
      expect(
        ok(
          call(v10, 'hamlet', {
            ...base,
            narrow: [
              ['channel', ' verona '],
              ['topic', 'TOPIC 1'],
            ],
          }),
        ),
      ).toMatchObject({ processed_count: 5, updated_count: 5 });
      expect(
        ok(call(v10, 'hamlet', { ...base, narrow: [{ operator: 'stream', operand: VERONA }] })),
      ).toMatchObject({ processed_count: 10 });
      const gc = realmWith([
        {
          id: 1,
          sender_id: cordelia,
          stream_id: VERONA,
          topic: '',
          content: 'a',
          timestamp: 1,
          flags: { [hamlet]: [] },
        },
        {
          id: 2,
          sender_id: cordelia,
          stream_id: VERONA,
          topic: '',
          content: 'b',
          timestamp: 2,
          flags: { [hamlet]: [] },
        },
        {
          id: 3,
          sender_id: cordelia,
          stream_id: VERONA,
          topic: 'other',
          content: 'c',
          timestamp: 3,
          flags: { [hamlet]: [] },
        },
      ]);
      expect(
        ok(
          call(gc, 'hamlet', {
            ...base,
            narrow: [
              ['channel', 'Verona'],
              ['topic', 'general chat'],
            ],
          }),
        ),
      ).toMatchObject({ processed_count: 2 });
      // Only the first topic term is renamed.
      expect(
        ok(
          call(gc, 'hamlet', {
            ...base,
            narrow: [
              ['topic', 'other'],
              ['topic', 'general chat'],
            ],
          }),
        ),
      ).toMatchObject({ processed_count: 0 });
      // A negated topic also keeps the DMs.
      const dmCount = ok(
        call(devRealm(), 'hamlet', { ...base, flag: 'starred', narrow: [['is', 'dm']] }),
      ).processed_count;
      expect(dmCount).toBeGreaterThan(0);
      expect(
        ok(
          call(devRealm(), 'hamlet', {
            ...base,
            flag: 'starred',
            narrow: [{ operator: 'topic', operand: 'lunch', negated: true }, ['is', 'dm']],
          }),
        ),
      ).toMatchObject({ processed_count: dmCount });
    });

    it('selects by sender (email case-insensitively, or id), has:, id and is: operands', () => {
      const dev = devRealm();
      const count = (narrow: unknown, who: CastName = 'hamlet') =>
        Number(ok(call(dev, who, { ...base, flag: 'starred', narrow })).processed_count);
      expect(count([['sender', 'OTHELLO@zulip.com']])).toBe(
        count([{ operator: 'sender', operand: othello }]),
      );
      expect(count([['has', 'link']])).toBeGreaterThan(0);
      expect(count([['has', 'reaction']])).toBeGreaterThan(0);
      expect(count([{ operator: 'id', operand: 101 }])).toBe(1);
      expect(
        count([
          { operator: 'id', operand: '101' },
          { operator: 'id', operand: 102 },
        ]),
      ).toBe(0);
      expect(count([['is', 'resolved']])).toBe(
        count([
          ['channel', 'Denmark'],
          ['topic', '✔ fixed bug'],
        ]),
      );
      expect(count([['is', 'unread']]) + count([{ operator: 'is', operand: 'unread', negated: true }])).toBe(
        count([]),
      );
      expect(count([['is', 'dm']]) + count([{ operator: 'is', operand: 'private', negated: true }])).toBe(
        count([]),
      );
      expect(count([['is', 'followed']])).toBe(2);
      expect(count([['is', 'alerted']])).toBe(0);
      expect(count([['is', 'mentioned']], 'iago')).toBe(2);
      expect(count([['near', '5'], { operator: 'in', operand: 'all', negated: true }])).toBe(count([]));
    });

    it('accepts the legacy operator spellings (stream, streams, pm_with, group_pm_with, is:private)', () => {
      const dev = devRealm();
      const count = (narrow: unknown) =>
        Number(ok(call(dev, 'hamlet', { ...base, flag: 'starred', narrow })).processed_count);
      expect(count([['streams', 'public']])).toBe(count([['channels', 'public']]));
      expect(count([['stream', 'Denmark']])).toBe(count([['channel', 'Denmark']]));
      expect(count([['pm_with', 'cordelia@zulip.com']])).toBe(count([['dm', 'cordelia@zulip.com']]));
      expect(count([['group_pm_with', 'iago@zulip.com']])).toBe(count([['group-pm-with', 'iago@zulip.com']]));
      expect(count([['is', 'private']])).toBe(count([['is', 'dm']]));
      expect(count([['has', 'image']])).toBe(count([['has', 'attachment']]));
      expect(
        count([{ operator: 'channels', operand: 'web-public', negated: true }]) +
          count([['channels', 'web-public']]),
      ).toBe(count([]));
    });

    it('is:unread selects only unread messages', () => {
      const s = realmWith(verona10(M.slice(0, 5)));
      expect(ok(call(s, 'hamlet', { ...base, narrow: [['is', 'unread']] }))).toMatchObject({
        processed_count: 5,
        updated_count: 5,
        first_processed_id: M[5],
      });
    });

    it('has:reaction matches messages with any reaction', () => {
      const msgs = verona10();
      msgs[2] = {
        ...msgs[2]!,
        reactions: [{ user_id: iago, emoji_name: '+1', emoji_code: '1f44d', reaction_type: 'unicode_emoji' }],
      };
      expect(ok(call(realmWith(msgs), 'hamlet', { ...base, narrow: [['has', 'reaction']] }))).toMatchObject({
        processed_count: 1,
        first_processed_id: M[2],
      });
    });

    describe('direct messages', () => {
      const dms = realmWith([
        {
          id: 1,
          sender_id: othello,
          to: [hamlet],
          content: 'hi',
          timestamp: 1,
          flags: { [hamlet]: ['read'], [othello]: ['read'] },
        },
        {
          id: 2,
          sender_id: hamlet,
          to: [othello],
          content: 'yo',
          timestamp: 2,
          flags: { [hamlet]: ['read'], [othello]: [] },
        },
        {
          id: 3,
          sender_id: othello,
          to: [hamlet, cordelia],
          content: 'group',
          timestamp: 3,
          flags: { [hamlet]: [], [othello]: ['read'], [cordelia]: [] },
        },
        {
          id: 4,
          sender_id: hamlet,
          to: [hamlet],
          content: 'note to self',
          timestamp: 4,
          flags: { [hamlet]: ['read'] },
        },
        {
          id: 5,
          sender_id: cordelia,
          stream_id: VERONA,
          topic: 't',
          content: 'x',
          timestamp: 5,
          flags: { [hamlet]: [] },
        },
        {
          id: 6,
          sender_id: cordelia,
          to: [othello],
          content: 'not mine',
          timestamp: 6,
          flags: { [cordelia]: ['read'], [othello]: [] },
        },
      ]);
      const ids = (narrow: unknown) => {
        const r = call(dms, 'hamlet', { ...base, flag: 'starred', narrow });
        return (r.events[0]!.event as unknown as { messages: number[] }).messages;
      };
      it('dm: the 1:1 conversation both ways, the group DM with exactly that set, self DMs', () => {
        expect(ids([['dm', 'hamlet@zulip.com,othello@zulip.com']])).toEqual([1, 2]);
        expect(ids([{ operator: 'dm', operand: [othello] }])).toEqual([1, 2]);
        expect(ids([['pm-with', 'othello@zulip.com,cordelia@zulip.com']])).toEqual([3]);
        expect(ids([['dm', 'hamlet@zulip.com']])).toEqual([4]);
        expect(ids([{ operator: 'dm', operand: [cordelia, iago] }])).toEqual([]);
        expect(ids([{ operator: 'dm', operand: [cordelia, iago], negated: true }])).toEqual([1, 2, 3, 4, 5]);
        expect(ids([{ operator: 'dm', operand: [] }])).toEqual([]);
        expect(ids([{ operator: 'dm', operand: [], negated: true }])).toEqual([1, 2, 3, 4, 5]);
      });
      it('dm-including and group-pm-with', () => {
        expect(ids([{ operator: 'dm-including', operand: hamlet }])).toEqual([1, 2, 3, 4]);
        expect(ids([['dm-including', 'othello@zulip.com']])).toEqual([1, 2, 3]);
        expect(ids([['dm-including', 'cordelia@zulip.com']])).toEqual([3]);
        expect(ids([['group-pm-with', 'othello@zulip.com']])).toEqual([3]);
        expect(ids([{ operator: 'group-pm-with', operand: othello, negated: true }])).toEqual([1, 2, 4, 5]);
      });
      it('an unread event carries message_details for DMs', () => {
        const r = call(dms, 'hamlet', {
          ...base,
          op: 'remove',
          narrow: [{ operator: 'dm', operand: [othello] }],
        });
        expect(ok(r)).toMatchObject({ processed_count: 2, updated_count: 2 });
        expect(r.events).toEqual([
          {
            event: {
              type: 'update_message_flags',
              op: 'remove',
              operation: 'remove',
              flag: 'read',
              messages: [1, 2],
              all: false,
              message_details: {
                '1': { type: 'private', user_ids: [othello] },
                '2': { type: 'private', user_ids: [othello] },
              },
            },
            users: [hamlet],
          },
        ]);
        const self = call(dms, 'hamlet', { ...base, op: 'remove', narrow: [['dm', 'hamlet@zulip.com']] });
        expect((self.events[0]!.event as Record<string, unknown>)['message_details']).toEqual({
          '4': { type: 'private', user_ids: [] },
        });
      });
    });

    it('search: all search terms are joined and ANDed (approximate full text)', () => {
      const s = realmWith([
        {
          id: 1,
          sender_id: cordelia,
          stream_id: VERONA,
          topic: 'meetings',
          content: 'discuss lunch after lunch',
          timestamp: 1,
          flags: { [hamlet]: [] },
        },
        {
          id: 2,
          sender_id: cordelia,
          stream_id: VERONA,
          topic: 'lunch plans',
          content: 'I am hungry!',
          timestamp: 2,
          flags: { [hamlet]: [] },
        },
        {
          id: 3,
          sender_id: cordelia,
          stream_id: VERONA,
          topic: 'x',
          content: 'please bring laptops https://google.com',
          timestamp: 3,
          flags: { [hamlet]: [] },
        },
      ]);
      const count = (narrow: unknown) => ok(call(s, 'hamlet', { ...base, narrow })).processed_count;
      expect(
        count([
          ['search', 'discuss'],
          ['search', 'after'],
        ]),
      ).toBe(1);
      expect(count([['search', 'lunch']])).toBe(2);
      expect(count([['search', '"hungry!"']])).toBe(1);
      expect(count([['search', 'https://google.com']])).toBe(1);
      expect(count([['search', 'laptop']])).toBe(1);
    });
  });

  describe('muting', () => {
    const muted = realmWith(
      [
        {
          id: 1,
          sender_id: cordelia,
          stream_id: VERONA,
          topic: 'muted',
          content: 'a',
          timestamp: 1,
          flags: { [hamlet]: [] },
        },
        {
          id: 2,
          sender_id: cordelia,
          stream_id: VERONA,
          topic: 'ok',
          content: 'b',
          timestamp: 2,
          flags: { [hamlet]: ['read'] },
        },
        {
          id: 3,
          sender_id: cordelia,
          stream_id: VERONA,
          topic: 'ok',
          content: 'c',
          timestamp: 3,
          flags: { [hamlet]: [] },
        },
        {
          id: 4,
          sender_id: cordelia,
          stream_id: DENMARK,
          topic: 'hi',
          content: 'd',
          timestamp: 4,
          flags: { [hamlet]: [] },
        },
        {
          id: 5,
          sender_id: cordelia,
          stream_id: DENMARK,
          topic: 'other',
          content: 'e',
          timestamp: 5,
          flags: { [hamlet]: [] },
        },
        { id: 6, sender_id: othello, to: [hamlet], content: 'dm', timestamp: 6, flags: { [hamlet]: [] } },
      ],
      (s) => {
        s['user_topics'] = [
          { user_id: hamlet, stream_id: VERONA, topic_name: 'MUTED', visibility_policy: 1 },
          { user_id: hamlet, stream_id: DENMARK, topic_name: 'hi', visibility_policy: 3 },
        ];
        (s['subscriptions'] as Array<Record<string, unknown>>).forEach((x) => {
          if (x['user_id'] === hamlet && x['stream_id'] === DENMARK) x['is_muted'] = true;
        });
      },
    );
    const ids = (params: Record<string, unknown>) =>
      (
        call(muted, 'hamlet', { ...base, flag: 'starred', ...params }).events[0]!.event as unknown as {
          messages: number[];
        }
      ).messages;

    it("first_unread skips muted topics (only that channel's topics with a channel term)", () => {
      const r = call(muted, 'hamlet', {
        ...base,
        anchor: 'first_unread',
        num_after: 0,
        narrow: [['channel', 'Verona']],
      });
      expect(ok(r)).toMatchObject({ processed_count: 1, updated_count: 1, first_processed_id: 3 });
      expect(isRead(r.state, hamlet, 1)).toBe(false);
      // With a channel term, channel muting is off: Denmark's first unread is 4.
      expect(ids({ anchor: 'first_unread', num_after: 0, narrow: [['channel', 'Denmark']] })).toEqual([4]);
      // Without one, in:home rules: muted topic and muted channel (except followed topic 'hi').
      expect(ids({ anchor: 'first_unread', num_after: 0, narrow: [] })).toEqual([3]);
      expect(ids({ anchor: 'first_unread', num_after: 0, narrow: [['is', 'dm']] })).toEqual([6]);
    });
    it('first_unread is newest when nothing is unread', () => {
      const r = call(muted, 'hamlet', {
        ...base,
        anchor: 'first_unread',
        num_before: 1,
        num_after: 5,
        narrow: [['id', '2']],
      });
      expect(ok(r)).toMatchObject({
        processed_count: 1,
        found_newest: true,
        found_oldest: false,
        first_processed_id: 2,
      });
    });
    it('in:home excludes muted topics and channels, keeps followed topics even with a channel term', () => {
      expect(ids({ narrow: [['in', 'home']] })).toEqual([2, 3, 4, 6]);
      expect(
        ids({
          narrow: [
            ['in', 'home'],
            ['channel', 'Denmark'],
          ],
        }),
      ).toEqual([4]);
      expect(ids({ narrow: [{ operator: 'in', operand: 'home', negated: true }] })).toEqual([1, 5]);
      expect(ids({ narrow: [['is', 'muted']] })).toEqual([1, 5]);
      expect(ids({ narrow: [{ operator: 'is', operand: 'muted', negated: true }] })).toEqual([2, 3, 4, 6]);
      expect(ids({ narrow: [['is', 'followed']] })).toEqual([4]);
    });
    it('marks unread with unmuted_stream_msg and mentions in message_details', () => {
      const r = call(muted, 'hamlet', { ...base, op: 'remove', narrow: [['channel', 'Denmark']] });
      const read = call(muted, 'hamlet', { ...base, narrow: [['channel', 'Denmark']] });
      const back = call(read.state, 'hamlet', { ...base, op: 'remove', narrow: [['channel', 'Denmark']] });
      ok(r);
      ok(back);
      // Zulip's is_row_muted (zerver/lib/message.py): the followed topic 'hi' in the muted channel
      // Denmark is not muted; the other topic is.
      expect((back.events[0]!.event as Record<string, unknown>)['message_details']).toEqual({
        '4': { type: 'stream', stream_id: DENMARK, topic: 'hi', unmuted_stream_msg: true },
        '5': { type: 'stream', stream_id: DENMARK, topic: 'other', unmuted_stream_msg: false },
      });
    });
    it('unmuted_stream_msg follows topic muting over channel muting (Zulip: GetUnreadMsgsTest)', () => {
      // test_message_flags.py GetUnreadMsgsTest (test_raw_unread_stream and its muting cases):
      // a muted topic in an unmuted channel is muted, and its wildcard mention does not count.
      const read = call(muted, 'hamlet', { ...base, narrow: [['channel', 'Verona']] });
      const back = call(read.state, 'hamlet', { ...base, op: 'remove', narrow: [['channel', 'Verona']] });
      expect((back.events[0]!.event as Record<string, unknown>)['message_details']).toEqual({
        '1': { type: 'stream', stream_id: VERONA, topic: 'muted', unmuted_stream_msg: false },
        '2': { type: 'stream', stream_id: VERONA, topic: 'ok', unmuted_stream_msg: true },
        '3': { type: 'stream', stream_id: VERONA, topic: 'ok', unmuted_stream_msg: true },
      });
    });
  });

  describe('access and history', () => {
    const rome3 = realmWith(
      [1, 2, 3].map((id) => ({
        id,
        sender_id: iago,
        stream_id: ROME,
        topic: 'forum',
        content: `r${id}`,
        timestamp: id,
        flags: { [iago]: ['read'] },
      })),
    );
    it('history mode: marking never-received public messages read is a counted no-op', () => {
      const r = call(rome3, 'hamlet', { ...base, narrow: [['channel', 'Rome']], num_after: 10 });
      expect(ok(r)).toMatchObject({
        processed_count: 3,
        updated_count: 0,
        found_oldest: true,
        found_newest: true,
      });
      expect(r.state).toBe(rome3);
      expect(r.events[0]!.event).toMatchObject({ messages: [] });
    });
    it('history mode: starring creates historical rows (read, starred, historical)', () => {
      const r = call(rome3, 'hamlet', {
        ...base,
        flag: 'starred',
        narrow: [['channel', 'Rome']],
        num_after: 10,
      });
      expect(ok(r)).toMatchObject({ processed_count: 3, updated_count: 3 });
      for (const id of [1, 2, 3])
        expect(flagsOf(r.state, hamlet, id)).toBe(FLAG_BITS.read | FLAG_BITS.starred | FLAG_BITS.historical);
      expect(flagsOf(rome3, hamlet, 1)).toBeUndefined();
      const c = call(rome3, 'hamlet', { ...base, flag: 'collapsed', narrow: [['channel', 'Rome']] });
      expect(flagsOf(c.state, hamlet, 1)).toBe(FLAG_BITS.read | FLAG_BITS.collapsed | FLAG_BITS.historical);
      // Unstarring them again leaves the rows.
      const un = call(r.state, 'hamlet', {
        ...base,
        flag: 'starred',
        op: 'remove',
        narrow: [['channel', 'Rome']],
      });
      expect(ok(un)).toMatchObject({ updated_count: 3 });
      expect(flagsOf(un.state, hamlet, 1)).toBe(FLAG_BITS.read | FLAG_BITS.historical);
    });
    it('history mode: marking unread in a subscribed channel creates unread historical rows', () => {
      const r = call(rome3, 'hamlet', { ...base, op: 'remove', narrow: [['channel', 'Rome']] });
      expect(ok(r)).toMatchObject({
        processed_count: 3,
        updated_count: 3,
        ignored_because_not_subscribed_channels: [],
      });
      expect(flagsOf(r.state, hamlet, 1)).toBe(FLAG_BITS.historical);
      // Cordelia left Rome: her unread request is skipped.
      const c = call(rome3, 'cordelia', { ...base, op: 'remove', narrow: [['channel', 'Rome']] });
      expect(ok(c)).toMatchObject({
        processed_count: 3,
        updated_count: 0,
        ignored_because_not_subscribed_channels: [ROME],
      });
    });
    it('an is: term turns history mode off', () => {
      expect(
        ok(
          call(rome3, 'hamlet', {
            ...base,
            flag: 'starred',
            narrow: [
              ['channel', 'Rome'],
              ['is', 'unread'],
            ],
          }),
        ),
      ).toMatchObject({ processed_count: 0 });
      expect(
        ok(
          call(rome3, 'hamlet', {
            ...base,
            flag: 'starred',
            narrow: [
              ['channel', 'Rome'],
              ['is', 'resolved'],
            ],
          }),
        ),
      ).toMatchObject({ processed_count: 0 });
    });
    it('guests get no history mode for channels:public', () => {
      const r = call(rome3, 'polonius', { ...base, flag: 'starred', narrow: [['channels', 'public']] });
      expect(ok(r)).toMatchObject({ processed_count: 0 });
      expect(
        ok(call(rome3, 'hamlet', { ...base, flag: 'starred', narrow: [['channels', 'public']] })),
      ).toMatchObject({ processed_count: 3 });
    });
    it('channels:web-public turns history on for a non-guest (Zulip: narrow.py ok_to_include_history)', () => {
      // Zulip's `ok_to_include_history` accepts `channels:public` and `channels:web-public` for a
      // user who can access public channels: Rome's messages count without the user's own rows.
      const r = call(rome3, 'hamlet', { ...base, flag: 'starred', narrow: [['channels', 'web-public']] });
      expect(ok(r)).toMatchObject({ processed_count: 3, updated_count: 3 });
      const own = call(rome3, 'iago', { ...base, flag: 'starred', narrow: [['channels', 'web-public']] });
      expect(ok(own)).toMatchObject({ processed_count: 3, updated_count: 3 });
      // A guest cannot access public channels, so no history.
      const guest = call(rome3, 'polonius', {
        ...base,
        flag: 'starred',
        narrow: [['channels', 'web-public']],
      });
      expect(ok(guest)).toMatchObject({ processed_count: 0 });
    });
    it('rows from a private channel the user left are excluded', () => {
      const s = realmWith(
        [
          {
            id: 1,
            sender_id: cordelia,
            stream_id: SECRETS,
            topic: 'p',
            content: 'a',
            timestamp: 1,
            flags: { [hamlet]: [], [cordelia]: ['read'] },
          },
          {
            id: 2,
            sender_id: cordelia,
            stream_id: SECRETS,
            topic: 'p',
            content: 'b',
            timestamp: 2,
            flags: { [hamlet]: [], [cordelia]: ['read'] },
          },
          {
            id: 3,
            sender_id: othello,
            to: [hamlet],
            content: 'dm',
            timestamp: 3,
            flags: { [hamlet]: [], [othello]: ['read'] },
          },
        ],
        (snap) =>
          (snap['subscriptions'] as unknown[]).push({ user_id: hamlet, stream_id: SECRETS, active: false }),
      );
      const r = call(s, 'hamlet', { ...base, flag: 'starred' });
      expect(ok(r)).toMatchObject({ processed_count: 1, updated_count: 1, first_processed_id: 3 });
      // Not even through the channel term (no history access to a protected-history channel).
      expect(
        ok(call(s, 'hamlet', { ...base, flag: 'starred', narrow: [['channel', 'secrets']] })),
      ).toMatchObject({ processed_count: 0 });
    });
    it('any role may call: bots and guests', () => {
      const s = realmWith(verona10(), (snap) => {
        (snap['messages'] as Msg[]).forEach(
          (m) => ((m['flags'] as Record<string, string[]>)[cast.defaultBot] = []),
        );
        (snap['messages'] as Msg[]).forEach(
          (m) => ((m['flags'] as Record<string, string[]>)[polonius] = m['id'] === M[9] ? [] : ['read']),
        );
      });
      expect(
        ok(call(s, 'defaultBot', { ...base, anchor: 'newest', num_before: 1, num_after: 0 })),
      ).toMatchObject({ processed_count: 1, found_newest: true, found_oldest: false });
      expect(
        ok(call(s, 'polonius', { ...base, anchor: 'newest', num_before: 50, num_after: 0 })),
      ).toMatchObject({ processed_count: 10, updated_count: 1, found_oldest: true });
    });
  });

  describe('windows', () => {
    const sparse = realmWith(
      [7, 8, 9, 10, 11, 12, 13, 15, 50, 100, 150, 200].map((id) => ({
        id,
        sender_id: cordelia,
        stream_id: VERONA,
        topic: 't',
        content: 'x',
        timestamp: id,
        flags: { [hamlet]: [] },
      })),
    );
    const win = (anchor: string, numBefore: number, numAfter: number, includeAnchor = true) =>
      ok(
        call(sparse, 'hamlet', {
          ...base,
          flag: 'starred',
          anchor,
          num_before: numBefore,
          num_after: numAfter,
          include_anchor: includeAnchor,
        }),
      );
    it("follows Zulip's range selection", () => {
      expect(win('10', 2, 2)).toMatchObject({
        processed_count: 5,
        first_processed_id: 8,
        last_processed_id: 12,
        found_oldest: false,
        found_newest: false,
      });
      expect(win('14', 2, 2)).toMatchObject({
        processed_count: 4,
        first_processed_id: 12,
        last_processed_id: 50,
        found_oldest: false,
        found_newest: false,
      });
      expect(win('100', 1, 10)).toMatchObject({
        processed_count: 4,
        first_processed_id: 50,
        found_oldest: false,
        found_newest: true,
      });
      expect(win('7', 5, 0)).toMatchObject({ processed_count: 1, found_oldest: true, found_newest: false });
      expect(win('7', 0, 3, false)).toMatchObject({
        processed_count: 3,
        first_processed_id: 8,
        found_oldest: false,
        found_newest: false,
      });
      expect(win('oldest', 0, 3, false)).toMatchObject({
        processed_count: 3,
        first_processed_id: 7,
        found_oldest: true,
        found_newest: false,
      });
      expect(win('oldest', 5, 0)).toMatchObject({
        processed_count: 0,
        found_oldest: true,
        found_newest: false,
      });
      expect(win('newest', 0, 3)).toMatchObject({
        processed_count: 0,
        found_oldest: false,
        found_newest: true,
      });
      expect(win('300', 2, 2)).toMatchObject({
        processed_count: 2,
        first_processed_id: 150,
        found_newest: true,
      });
    });
  });

  it('keeps the old state unchanged (copy on write)', () => {
    const before = M.map((id) => flagsOf(v10, hamlet, id));
    const r = call(v10, 'hamlet', { ...base, num_after: 5000 });
    expect(ok(r)).toMatchObject({ updated_count: 10 });
    expect(M.map((id) => flagsOf(v10, hamlet, id))).toEqual(before);
    expect(r.state.messages.rows.get(cordelia)).toBe(v10.messages.rows.get(cordelia));
  });

  it('never throws; errors keep the state and send nothing (property)', () => {
    const dev = devRealm();
    const actors = [...Object.values(cast).map((userId) => ({ userId })), { anonymous: true as const }];
    const term = fc.oneof(
      fc.anything(),
      fc.tuple(
        fc.constantFrom('channel', 'topic', 'is', 'dm', 'sender', 'has', 'id', 'in', 'search', 'with'),
        fc.string(),
      ),
      fc.record({
        operator: fc.constantFrom(
          'channel',
          'stream',
          'topic',
          'is',
          'dm',
          'dm-including',
          'group-pm-with',
          'sender',
          'has',
          'id',
          'in',
          'near',
          'channels',
          'search',
          'bogus',
        ),
        operand: fc.oneof(
          fc.string(),
          fc.integer(),
          fc.array(fc.integer({ min: -2, max: 20 })),
          fc.constantFrom('Verona', 'dm', 'unread', 'home', 'public', 'link', 'hamlet@zulip.com'),
        ),
        negated: fc.oneof(fc.boolean(), fc.anything()),
      }),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...actors),
        fc.record(
          {
            anchor: fc.oneof(
              fc.constantFrom('newest', 'oldest', 'first_unread', '120', '-3', 'x'),
              fc.anything(),
            ),
            flag: fc.oneof(fc.constantFrom('read', 'starred', 'collapsed', 'mentioned'), fc.anything()),
            include_anchor: fc.oneof(fc.boolean(), fc.anything()),
            narrow: fc.oneof(fc.array(term, { maxLength: 4 }), fc.anything()),
            num_before: fc.oneof(fc.nat({ max: 6000 }), fc.anything()),
            num_after: fc.oneof(fc.nat({ max: 6000 }), fc.anything()),
            op: fc.oneof(fc.constantFrom('add', 'remove'), fc.anything()),
          },
          { requiredKeys: [] },
        ),
        (actor, params) => {
          const r = loose(updateMessageFlagsForNarrow)(dev, actor, params, testCtx());
          expectValidResponse(OP, r.status, r.body);
          if (r.status !== 200) {
            expect(r.state).toBe(dev);
            expect(r.events).toEqual([]);
          } else for (const e of r.events) expectValidEvent(e.event);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('updateMessageFlagsForNarrow: the with operator (update_narrow_terms_containing_with_operator)', () => {
  const s = realmWith(verona10());
  it("marks the message's conversation, wherever the other terms point", () => {
    const r = call(s, 'hamlet', {
      ...base,
      narrow: [
        { operator: 'channel', operand: 'Denmark' },
        { operator: 'with', operand: 1003 },
      ],
    });
    expect(ok(r)).toMatchObject({
      processed_count: 5,
      updated_count: 5,
      first_processed_id: 1001,
      last_processed_id: 1009,
    });
  });
  it('refuses a second with term and an unusable one', () => {
    refused(
      s,
      call(s, 'hamlet', {
        ...base,
        narrow: [
          ['with', '1000'],
          ['with', '1001'],
        ],
      }),
      "Invalid narrow operator combination: Duplicate 'with' operators.",
      'BAD_NARROW',
      { desc: "Duplicate 'with' operators." },
    );
    refused(
      s,
      call(s, 'hamlet', { ...base, narrow: [['with', '99999']] }),
      "Invalid narrow operator: Invalid 'with' operator",
      'BAD_NARROW',
      { desc: "Invalid 'with' operator" },
    );
  });
});
