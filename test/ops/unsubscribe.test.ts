import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unsubscribe } from '../../src/ops/channels/unsubscribe';
import { createRealm } from '../../src/core/snapshot/create';
import { seededRandom } from '../../src/core/context';
import { FLAG_BITS } from '../../src/core/messages/flags';
import { channelMessageIds } from '../../src/core/messages/query';
import { getRowFlags } from '../../src/core/messages/rows';
import { isSubscribed } from '../../src/core/permissions/channels';
import type { OpResult } from '../../src/core/result';
import type { RealmState } from '../../src/core/state';
import { expectValidEvent, expectValidResponse } from '../support/openapi';
import { expectRefused } from '../support/expect-result';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { as, cast, devRealm, devSnapshot, testCtx, wire, type CastName } from '../support/realm';

const OP = 'unsubscribe';
const state = devRealm();
/** Active accounts of the dev realm (ex-employee 14 is deactivated); polonius (10) is the only guest. */
const ACTIVE = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16];
const NON_GUESTS = ACTIVE.filter((id) => id !== 10);
const without = (ids: readonly number[], ...gone: number[]) => ids.filter((id) => !gone.includes(id));

function ok(r: OpResult, removed: string[], notRemoved: string[] = []): void {
  expect(r.body).toEqual({ result: 'success', msg: '', removed, not_removed: notRemoved });
  expect(r.status).toBe(200);
  expectValidResponse(OP, 200, r.body);
  for (const e of r.events) expectValidEvent(e.event);
  expect(r.effects).toEqual([]);
}

function refused(r: OpResult, before: RealmState, msg: string, code?: string, extra?: object): void {
  expectRefused(OP, r, before, msg, code, extra);
}

const del = (s: RealmState, params: Record<string, string>, who: CastName = 'hamlet') =>
  wire(s, who, 'DELETE', '/users/me/subscriptions', params, testCtx());

const subs = (...names: string[]) => JSON.stringify(names);

/** The user's unread messages in a channel, in the given state. */
function unreadIn(s: RealmState, userId: number, streamId: number): number[] {
  const rows = s.messages.rows.get(userId);
  if (!rows) return [];
  return channelMessageIds(s.messages, streamId).filter((id) => {
    const f = getRowFlags(rows, id);
    return f !== undefined && (f & FLAG_BITS.read) === 0;
  });
}

const readEvent = (userId: number, messages: number[]) => ({
  event: { type: 'update_message_flags', op: 'add', operation: 'add', flag: 'read', messages, all: false },
  users: [userId],
});

function realmWith(edit: (snap: ReturnType<typeof devSnapshot>) => void): RealmState {
  const snap = devSnapshot();
  edit(snap);
  return createRealm(snap, { random: seededRandom(1) });
}

type Rec = Record<string, unknown>;
const channelsOf = (snap: ReturnType<typeof devSnapshot>) => snap['channels'] as Rec[];
const setChannel = (snap: ReturnType<typeof devSnapshot>, id: number, fields: Rec) => {
  Object.assign(
    channelsOf(snap).find((c) => c['stream_id'] === id)!,
    fields,
  );
};

describe('unsubscribe', () => {
  it('unsubscribes the caller (scenario: Unsubscribe self)', () => {
    expect(unreadIn(state, 4, 1)).toEqual([112, 123, 156]);
    const r = del(state, { subscriptions: subs('Verona') });
    ok(r, ['Verona']);
    expect(r.state.subscriptions.get(1)!.get(4)).toEqual({
      ...state.subscriptions.get(1)!.get(4),
      active: false,
    });
    expect(isSubscribed(state, 1, 4)).toBe(true);
    // Zulip's deferred worker marks the channel's unread messages as read.
    expect(unreadIn(r.state, 4, 1)).toEqual([]);
    expect(unreadIn(r.state, 5, 1)).toEqual(unreadIn(state, 5, 1));
    expect(r.events).toEqual([
      {
        event: { type: 'subscription', op: 'remove', subscriptions: [{ name: 'Verona', stream_id: 1 }] },
        users: [4],
      },
      // Verona has a guest subscriber (polonius), so it gets its own event: non-guests plus subscribers.
      {
        event: { type: 'subscription', op: 'peer_remove', stream_ids: [1], user_ids: [4] },
        users: without(ACTIVE, 4),
      },
      readEvent(4, [112, 123, 156]),
    ]);
  });

  it('accepts the library call with decoded params', () => {
    const r = unsubscribe(state, as('cordelia'), { subscriptions: ['Denmark'] }, testCtx());
    ok(r, ['Denmark']);
    expect(isSubscribed(r.state, 2, 5)).toBe(false);
    // Denmark has no guest subscriber: its event goes to every active non-guest but cordelia.
    expect(r.events[1]).toEqual({
      event: { type: 'subscription', op: 'peer_remove', stream_ids: [2], user_ids: [5] },
      users: without(NON_GUESTS, 5),
    });
    expect(r.events[2]).toEqual(readEvent(5, unreadIn(state, 5, 2)));
  });

  it('finds channels case-insensitively after trimming and answers canonical names (scenario: Canonical channel name)', () => {
    const r = del(state, { subscriptions: subs('  verona ') });
    ok(r, ['Verona']);
    expect(isSubscribed(r.state, 1, 4)).toBe(false);
  });

  it('lists a channel once however often it is named', () => {
    ok(del(state, { subscriptions: subs('Verona', 'VERONA', 'verona') }), ['Verona']);
  });

  it('reports channels the caller is not subscribed to in not_removed, without change', () => {
    const r = del(state, { subscriptions: subs('newcomers') });
    ok(r, [], ['newcomers']);
    expect(r.state).toBe(state);
    expect(r.events).toEqual([]);
  });

  it('finds a private channel without access (scenario: Self-unsubscribe leaks existence of a private channel)', () => {
    const r = del(state, { subscriptions: subs('secrets') });
    ok(r, [], ['secrets']);
    expect(r.state).toBe(state);
    expect(r.events).toEqual([]);
  });

  it('unsubscribes from an archived channel', () => {
    const r = del(state, { subscriptions: subs('old announcements') });
    ok(r, ['old announcements']);
    expect(isSubscribed(r.state, 8, 4)).toBe(false);
    expect(r.events).toEqual([
      {
        event: {
          type: 'subscription',
          op: 'remove',
          subscriptions: [{ name: 'old announcements', stream_id: 8 }],
        },
        users: [4],
      },
      {
        event: { type: 'subscription', op: 'peer_remove', stream_ids: [8], user_ids: [4] },
        users: without(NON_GUESTS, 4),
      },
    ]);
  });

  it('refuses unknown channels, naming them in request order (scenario: Nonexistent channel)', () => {
    refused(del(state, { subscriptions: subs('nosuch') }), state, 'Channel(s) (nosuch) do not exist');
    refused(
      del(state, { subscriptions: subs(' nosuch ', 'Verona', 'nope') }),
      state,
      'Channel(s) (nosuch, nope) do not exist',
    );
  });

  it.each([
    ['   ', "Channel name can't be empty."],
    ['', "Channel name can't be empty."],
    ['x'.repeat(61), 'Channel name too long (limit: 60 characters).'],
    ['ab\u0001c', 'Invalid character in channel name, at position 3.'],
    ['\u{1F600}a\u0085b', 'Invalid character in channel name, at position 3.'],
    ['a\ufffe', 'Invalid character in channel name, at position 2.'],
    ['a\ufdd0', 'Invalid character in channel name, at position 2.'],
    ['a\ud800b', 'Invalid character in channel name, at position 2.'],
  ])('validates channel name %j (scenario: Blank channel name)', (name, msg) => {
    refused(del(state, { subscriptions: JSON.stringify(['Verona', name]) }), state, msg);
  });

  it('counts name length in code points', () => {
    refused(
      del(state, { subscriptions: subs('\u{1F600}'.repeat(60)) }),
      state,
      `Channel(s) (${'\u{1F600}'.repeat(60)}) do not exist`,
    );
  });

  it('requires subscriptions (scenario: Missing subscriptions)', () => {
    refused(del(state, {}), state, "Missing 'subscriptions' argument", 'REQUEST_VARIABLE_MISSING', {
      var_name: 'subscriptions',
    });
  });

  it.each([
    ['"Verona"', 'subscriptions is not a list'],
    ['[1]', 'subscriptions[0] is not a string'],
    ['["Verona", null]', 'subscriptions[1] is not a string'],
    ['Verona', 'subscriptions is not valid JSON'],
  ])('refuses subscriptions=%s', (value, msg) => {
    refused(del(state, { subscriptions: value }), state, msg);
  });

  it.each([
    ['[5, "a@zulip.com"]', 'principals["list[str]"][0] is not a string'],
    ['["a@zulip.com", 5]', 'principals["list[str]"][1] is not a string'],
    ['[true]', 'principals["list[str]"][0] is not a string'],
    ['[1.5]', 'principals["list[str]"][0] is not a string'],
    ['5', 'principals["list[str]"] is not a list'],
    ['{"a": 1}', 'principals["list[str]"] is not a list'],
    ['x', 'principals is not valid JSON'],
  ])('refuses principals=%s (scenario: Mixed principals list)', (value, msg) => {
    refused(del(state, { subscriptions: subs('Verona'), principals: value }, 'iago'), state, msg);
  });

  it('parses principals before subscriptions', () => {
    refused(
      del(state, { principals: '[1, "x"]' }, 'iago'),
      state,
      'principals["list[str]"][0] is not a string',
    );
  });

  it('treats empty or null principals as the caller', () => {
    ok(del(state, { subscriptions: subs('Verona'), principals: '[]' }), ['Verona']);
    ok(del(state, { subscriptions: subs('Verona'), principals: 'null' }), ['Verona']);
    ok(unsubscribe(state, as('hamlet'), { subscriptions: ['Verona'], principals: null }, testCtx()), [
      'Verona',
    ]);
  });

  it('refuses an unknown principal (scenario: Unknown principal id)', () => {
    refused(del(state, { subscriptions: subs('Verona'), principals: '[99]' }, 'iago'), state, 'No such user');
    refused(
      del(state, { subscriptions: subs('Verona'), principals: '["nobody@zulip.com"]' }, 'iago'),
      state,
      'No such user',
    );
    refused(del(state, { subscriptions: subs('Verona'), principals: '[-1]' }, 'iago'), state, 'No such user');
  });

  it('refuses a deactivated principal (scenario: Deactivated principal)', () => {
    refused(
      del(state, { subscriptions: subs('Verona'), principals: '[14]' }, 'iago'),
      state,
      'User is deactivated',
    );
    refused(
      del(state, { subscriptions: subs('Verona'), principals: '["ex-employee@zulip.com"]' }, 'iago'),
      state,
      'User is deactivated',
    );
  });

  it('checks principals before channel names', () => {
    refused(del(state, { subscriptions: subs(''), principals: '[99]' }, 'iago'), state, 'No such user');
  });

  it('refuses a member removing another member (scenario: Member cannot remove another member)', () => {
    const r = del(state, { subscriptions: subs('Verona'), principals: `[${cast.cordelia}]` });
    refused(r, state, 'Insufficient permission');
    expect(isSubscribed(r.state, 1, 5)).toBe(true);
  });

  it('checks the permission before reporting unknown channels', () => {
    refused(
      del(state, { subscriptions: subs('nosuch', 'Verona'), principals: '[5]' }),
      state,
      'Insufficient permission',
    );
    // With no existing channel the check passes vacuously.
    refused(
      del(state, { subscriptions: subs('nosuch'), principals: '[5]' }),
      state,
      'Channel(s) (nosuch) do not exist',
    );
  });

  it('lets an admin remove a user from a private channel the admin is not on (scenario: Admin removes a user from a private channel)', () => {
    expect(isSubscribed(state, 7, cast.iago)).toBe(false);
    const r = del(state, { subscriptions: subs('secrets'), principals: `[${cast.cordelia}]` }, 'iago');
    ok(r, ['secrets']);
    expect(isSubscribed(r.state, 7, 5)).toBe(false);
    expect(r.events).toEqual([
      {
        event: { type: 'subscription', op: 'remove', subscriptions: [{ name: 'secrets', stream_id: 7 }] },
        users: [5],
      },
      // Cordelia can no longer see the private channel.
      {
        event: {
          type: 'stream',
          op: 'delete',
          streams: [{ stream_id: 7 }],
          stream_ids: [7],
          for_archiving: false,
        },
        users: [5],
      },
      // The remaining subscriber and the organization administrators.
      { event: { type: 'subscription', op: 'peer_remove', stream_ids: [7], user_ids: [5] }, users: [1, 2] },
      readEvent(5, [140, 162]),
    ]);
  });

  it('lets an admin remove others from public channels, by id or by email, several at once', () => {
    const r = del(state, { subscriptions: subs('Denmark'), principals: '[4, 5, 6, 7, 9]' }, 'iago');
    ok(r, ['Denmark', 'Denmark', 'Denmark', 'Denmark', 'Denmark']);
    expect(
      r.events.filter((e) => e.event.type === 'subscription' && e.event.op === 'remove').map((e) => e.users),
    ).toEqual([[4], [5], [6], [7], [9]]);
    expect(r.events.find((e) => e.event.type === 'subscription' && e.event.op === 'peer_remove')).toEqual({
      event: { type: 'subscription', op: 'peer_remove', stream_ids: [2], user_ids: [4, 5, 6, 7, 9] },
      users: without(NON_GUESTS, 4, 5, 6, 7, 9),
    });
    const byEmail = del(
      state,
      { subscriptions: subs('Denmark'), principals: '["cordelia@zulip.com", "  zoe@ZULIP.com "]' },
      'iago',
    );
    ok(byEmail, ['Denmark', 'Denmark']);
    expect(isSubscribed(byEmail.state, 2, 5)).toBe(false);
    expect(isSubscribed(byEmail.state, 2, 9)).toBe(false);
  });

  it('splits subscribed and unsubscribed principals between removed and not_removed', () => {
    const r = del(state, { subscriptions: subs('Denmark'), principals: '[5, 3]' }, 'iago');
    ok(r, ['Denmark'], ['Denmark']);
    const again = del(r.state, { subscriptions: subs('Denmark'), principals: '[5]' }, 'iago');
    ok(again, [], ['Denmark']);
    expect(again.state).toBe(r.state);
  });

  it("treats the caller's own id as unsubscribing themself", () => {
    const r = del(state, { subscriptions: subs('Verona'), principals: `[${cast.hamlet}]` });
    ok(r, ['Verona']);
    ok(del(r.state, { subscriptions: subs('Verona'), principals: `[${cast.hamlet}]` }), [], ['Verona']);
  });

  it('lets a member remove their own bot, even from a channel they cannot see (scenario: Member removes own bot)', () => {
    const r = del(state, { subscriptions: subs('Verona'), principals: `[${cast.defaultBot}]` });
    ok(r, ['Verona']);
    expect(isSubscribed(r.state, 1, cast.defaultBot)).toBe(false);
    ok(del(state, { subscriptions: subs('secrets'), principals: `[${cast.defaultBot}]` }), [], ['secrets']);
  });

  it("refuses a member removing someone else's bot", () => {
    refused(
      del(state, { subscriptions: subs('Verona'), principals: `[${cast.outgoingBot}]` }),
      state,
      'Insufficient permission',
    );
    refused(
      del(state, { subscriptions: subs('Verona'), principals: `[${cast.defaultBot}, ${cast.cordelia}]` }),
      state,
      'Insufficient permission',
    );
  });

  it('lets members of can_remove_subscribers_group remove others from public channels (scenario: Member of can_remove_subscribers_group)', () => {
    const s = realmWith((snap) => {
      setChannel(snap, 2, { can_remove_subscribers_group: { direct_members: [3], direct_subgroups: [] } });
      setChannel(snap, 1, { can_remove_subscribers_group: 103 });
      (snap['user_groups'] as Rec[]).find((g) => g['id'] === 102)!['members'] = [1, 2, 3];
    });
    ok(del(s, { subscriptions: subs('Denmark'), principals: '[5]' }, 'shiva'), ['Denmark']);
    // Through a subgroup: support ⊃ leadership ∋ shiva.
    ok(del(s, { subscriptions: subs('Verona', 'Denmark'), principals: '[5]' }, 'shiva'), [
      'Verona',
      'Denmark',
    ]);
    // Not for a channel whose group shiva is not in.
    refused(
      del(s, { subscriptions: subs('Denmark', 'Venice'), principals: '[4]' }, 'shiva'),
      s,
      'Insufficient permission',
    );
  });

  it('refuses a group member without metadata access to a private channel (scenario: Group member without metadata access)', () => {
    const s = realmWith((snap) =>
      setChannel(snap, 7, { can_remove_subscribers_group: { direct_members: [3], direct_subgroups: [] } }),
    );
    refused(
      del(s, { subscriptions: subs('secrets'), principals: '[5]' }, 'shiva'),
      s,
      'Insufficient permission',
    );
  });

  it('lets channel administrators remove others, but only if they administer every listed channel', () => {
    // hamlet administers Scotland (and is in its can_remove_subscribers_group).
    ok(del(state, { subscriptions: subs('Scotland'), principals: '[5]' }), ['Scotland']);
    refused(
      del(state, { subscriptions: subs('Scotland', 'Denmark'), principals: '[5]' }),
      state,
      'Insufficient permission',
    );
    const s = realmWith((snap) => setChannel(snap, 3, { can_remove_subscribers_group: 'role:nobody' }));
    ok(del(s, { subscriptions: subs('Scotland'), principals: '[5]' }), ['Scotland']);
  });

  it('never lets guests remove others', () => {
    refused(
      del(state, { subscriptions: subs('Rome'), principals: '[4]' }, 'polonius'),
      state,
      'Insufficient permission',
    );
    const s = realmWith((snap) => setChannel(snap, 4, { can_remove_subscribers_group: 'role:everyone' }));
    refused(
      del(s, { subscriptions: subs('Rome'), principals: '[4]' }, 'polonius'),
      s,
      'Insufficient permission',
    );
  });

  it('refuses principals a guest cannot see when user access is restricted', () => {
    const s = realmWith((snap) => {
      (snap['realm'] as Rec)['can_access_all_users_group'] = 'role:members';
    });
    // imported (15) shares no channel or conversation with polonius.
    refused(
      del(s, { subscriptions: subs('nosuch'), principals: '[15]' }, 'polonius'),
      s,
      'Insufficient permission',
    );
    refused(
      del(state, { subscriptions: subs('nosuch'), principals: '[15]' }, 'polonius'),
      state,
      'Channel(s) (nosuch) do not exist',
    );
    // Bots and users sharing a channel are visible.
    refused(
      del(s, { subscriptions: subs('nosuch'), principals: '[16, 7]' }, 'polonius'),
      s,
      'Channel(s) (nosuch) do not exist',
    );
  });

  describe('when guests may not see every user', () => {
    const restricted = (edit: (snap: ReturnType<typeof devSnapshot>) => void = () => {}) =>
      realmWith((snap) => {
        (snap['realm'] as Rec)['can_access_all_users_group'] = 'role:members';
        edit(snap);
      });
    const unknown = (userId: number, users: number[]) => ({
      event: { type: 'realm_user', op: 'remove', person: { user_id: userId, full_name: 'Unknown user' } },
      users,
    });

    it('tells a guest left behind that a user who shares nothing else with them is gone', () => {
      const s = restricted((snap) => {
        snap.subscriptions = snap.subscriptions.filter((x) => !(x.stream_id === 1 && x.user_id === 10));
      });
      const r = del(s, { subscriptions: subs('Rome') }, 'prospero');
      ok(r, ['Rome']);
      expect(r.events).toEqual([
        {
          event: { type: 'subscription', op: 'remove', subscriptions: [{ name: 'Rome', stream_id: 4 }] },
          users: [7],
        },
        {
          event: { type: 'subscription', op: 'peer_remove', stream_ids: [4], user_ids: [7] },
          users: without(ACTIVE, 7),
        },
        unknown(7, [10]),
        readEvent(7, unreadIn(s, 7, 4)),
      ]);
    });

    it('tells a removed guest about every user they no longer share anything with', () => {
      const s = restricted();
      const r = del(s, { subscriptions: subs('Verona'), principals: '[10]' }, 'iago');
      ok(r, ['Verona']);
      expect(r.events).toEqual([
        {
          event: { type: 'subscription', op: 'remove', subscriptions: [{ name: 'Verona', stream_id: 1 }] },
          users: [10],
        },
        {
          event: {
            type: 'stream',
            op: 'delete',
            streams: [{ stream_id: 1 }],
            stream_ids: [1],
            for_archiving: false,
          },
          users: [10],
        },
        {
          event: { type: 'subscription', op: 'peer_remove', stream_ids: [1], user_ids: [10] },
          users: without(NON_GUESTS),
        },
        // Polonius still shares Rome (iago, hamlet, prospero), newcomers (shiva, aaron, zoe) and a
        // conversation with hamlet: the others of Verona disappear for him.
        ...[1, 5, 6, 11].map((id) => unknown(id, [10])),
        readEvent(10, unreadIn(s, 10, 1)),
      ]);
    });

    it('sends nothing extra when everyone still sees the removed user', () => {
      const r = del(restricted(), { subscriptions: subs('Denmark') });
      ok(r, ['Denmark']);
      expect(r.events.some((e) => e.event.type === 'realm_user')).toBe(false);
    });
  });

  it('removes the last subscriber of a private channel without archiving it (scenario: Removing the last subscriber)', () => {
    const s = realmWith((snap) => {
      snap.subscriptions = snap.subscriptions.filter((x) => !(x.stream_id === 7 && x.user_id === 1));
    });
    const r = del(s, { subscriptions: subs('secrets') }, 'cordelia');
    ok(r, ['secrets']);
    expect(r.state.channels.get(7)).toBe(s.channels.get(7));
    expect([...r.state.subscriptions.get(7)!.values()].filter((x) => x.active)).toEqual([]);
    expect(r.events).toEqual([
      {
        event: { type: 'subscription', op: 'remove', subscriptions: [{ name: 'secrets', stream_id: 7 }] },
        users: [5],
      },
      {
        event: {
          type: 'stream',
          op: 'delete',
          streams: [{ stream_id: 7 }],
          stream_ids: [7],
          for_archiving: false,
        },
        users: [5],
      },
      { event: { type: 'subscription', op: 'peer_remove', stream_ids: [7], user_ids: [5] }, users: [1, 2] },
      readEvent(5, [140, 162]),
    ]);
  });

  it('batches peer_remove events by kind of channel and sends stream/delete only for channels the user can no longer see', () => {
    const names = ['Verona', 'Denmark', 'Rome', 'core team', 'Venice'];
    const r = del(state, { subscriptions: subs(...names), principals: '[4]' }, 'iago');
    ok(r, names);
    const subscriptions = [1, 2, 4, 6, 5].map((id) => ({
      name: state.channels.get(id)!.name,
      stream_id: id,
    }));
    expect(r.events).toEqual([
      { event: { type: 'subscription', op: 'remove', subscriptions }, users: [4] },
      {
        event: {
          type: 'stream',
          op: 'delete',
          streams: [{ stream_id: 6 }],
          stream_ids: [6],
          for_archiving: false,
        },
        users: [4],
      },
      // Private: remaining subscribers (desdemona, iago, the default bot) and admins.
      {
        event: { type: 'subscription', op: 'peer_remove', stream_ids: [6], user_ids: [4] },
        users: [1, 2, 11],
      },
      // Public with a guest subscriber: its own event.
      {
        event: { type: 'subscription', op: 'peer_remove', stream_ids: [1], user_ids: [4] },
        users: without(ACTIVE, 4),
      },
      // Web-public: every active user.
      {
        event: { type: 'subscription', op: 'peer_remove', stream_ids: [4], user_ids: [4] },
        users: without(ACTIVE, 4),
      },
      // Public without guest subscribers: one event, every active non-guest.
      {
        event: { type: 'subscription', op: 'peer_remove', stream_ids: [2, 5], user_ids: [4] },
        users: without(NON_GUESTS, 4),
      },
      ...[1, 2, 4, 6, 5]
        .map((id) => readEvent(4, unreadIn(state, 4, id)))
        .filter((e) => e.event.messages.length > 0),
    ]);
    for (const id of [1, 2, 4, 6, 5]) expect(unreadIn(r.state, 4, id)).toEqual([]);
  });

  it('sends private peer_remove to non-guest members of groups granting metadata access', () => {
    const s = realmWith((snap) =>
      setChannel(snap, 6, { can_add_subscribers_group: { direct_members: [6, 10], direct_subgroups: [] } }),
    );
    const r = del(s, { subscriptions: subs('core team') });
    ok(r, ['core team']);
    expect(r.events.slice(0, 3)).toEqual([
      {
        event: { type: 'subscription', op: 'remove', subscriptions: [{ name: 'core team', stream_id: 6 }] },
        users: [4],
      },
      {
        event: {
          type: 'stream',
          op: 'delete',
          streams: [{ stream_id: 6 }],
          stream_ids: [6],
          for_archiving: false,
        },
        users: [4],
      },
      {
        event: { type: 'subscription', op: 'peer_remove', stream_ids: [6], user_ids: [4] },
        users: [1, 2, 6, 11],
      },
    ]);
  });

  it('does not send stream/delete to a removed admin', () => {
    const r = del(state, { subscriptions: subs('core team') }, 'iago');
    ok(r, ['core team']);
    expect(r.events.map((e) => `${e.event.type}/${'op' in e.event ? String(e.event.op) : ''}`)).toEqual([
      'subscription/remove',
      'subscription/peer_remove',
      'update_message_flags/add',
    ]);
    expect(r.events[1]!.users).toEqual([1, 4, 11]);
  });

  it('lets guests and bots unsubscribe themselves', () => {
    const g = del(state, { subscriptions: subs('Rome') }, 'polonius');
    ok(g, ['Rome']);
    // A guest loses a public channel only when it is not web-public: Rome is.
    expect(g.events.map((e) => e.event.type)).toEqual([
      'subscription',
      'subscription',
      'update_message_flags',
    ]);
    const v = del(state, { subscriptions: subs('Verona') }, 'polonius');
    ok(v, ['Verona']);
    expect(v.events[1]).toEqual({
      event: {
        type: 'stream',
        op: 'delete',
        streams: [{ stream_id: 1 }],
        stream_ids: [1],
        for_archiving: false,
      },
      users: [10],
    });
    ok(del(state, { subscriptions: subs('Verona') }, 'defaultBot'), ['Verona']);
  });

  it('reports unknown parameters as ignored', () => {
    const r = del(state, { subscriptions: subs('Verona'), stream: 'x' });
    expect(r.body).toEqual({
      result: 'success',
      msg: '',
      removed: ['Verona'],
      not_removed: [],
      ignored_parameters_unsupported: ['stream'],
    });
    expectValidResponse(OP, 200, r.body);
  });

  it('refuses anonymous callers', () => {
    const r = unsubscribe(state, { anonymous: true }, { subscriptions: ['Verona'] });
    expect(r.status).toBe(401);
    expect(r.state).toBe(state);
  });

  it('is total and pure on failure (library)', () => {
    const shaped = [
      fc.array(fc.constantFrom('Verona', 'secrets', 'nosuch', ' rome ', ''), { maxLength: 3 }),
      fc.array(fc.integer({ min: -1, max: 17 }), { maxLength: 3 }),
      fc.array(fc.constantFrom('hamlet@zulip.com', 'zoe@zulip.com', 'x'), { maxLength: 2 }),
    ];
    checkLibraryLaws(unsubscribe, state, arbParams(['subscriptions', 'principals'], shaped));
  });

  it('is total and pure on failure (wire)', () => {
    const shaped = [
      fc
        .array(fc.constantFrom('Verona', 'Denmark', 'secrets', 'nosuch'), { maxLength: 3 })
        .map((xs) => JSON.stringify(xs)),
      fc.array(fc.integer({ min: 0, max: 17 }), { maxLength: 3 }).map((xs) => JSON.stringify(xs)),
    ];
    checkWireLaws(unsubscribe, state, arbWireParams(['subscriptions', 'principals'], shaped));
  });

  it('keeps removed + not_removed = targets × channels, and every removed pair inactive (property)', () => {
    const names = [
      'Verona',
      'Denmark',
      'Scotland',
      'Rome',
      'secrets',
      'core team',
      'old announcements',
      'newcomers',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom<CastName>('desdemona', 'iago', 'hamlet'),
        fc.uniqueArray(fc.constantFrom(...names), { minLength: 1, maxLength: 4 }),
        fc.uniqueArray(fc.constantFrom(1, 2, 4, 5, 6, 9, 10, 11), { maxLength: 3 }),
        (who, chosen, principals) => {
          const r = unsubscribe(state, as(who), { subscriptions: chosen, principals }, testCtx());
          if (r.status !== 200) {
            expect(r.state).toBe(state);
            return;
          }
          const body = r.body as unknown as { removed: string[]; not_removed: string[] };
          const targets = principals.length > 0 ? principals.length : 1;
          expect(body.removed.length + body.not_removed.length).toBe(targets * chosen.length);
          for (const e of r.events) expectValidEvent(e.event);
          for (const id of principals.length > 0 ? principals : [cast[who]]) {
            for (const name of chosen) {
              const c = [...state.channels.values()].find((x) => x.name === name)!;
              expect(isSubscribed(r.state, c.stream_id, id)).toBe(false);
            }
          }
        },
      ),
      { numRuns: 80 },
    );
  });
});
