/**
 * Testing an application against a simulated organization: the kind of suite a host writes with
 * `chat-realm/testing`. In a project that depends on the package the imports read
 * `from 'chat-realm'` and `from 'chat-realm/testing'`.
 */
import { describe, expect, it } from 'vitest';
import { snapshotRealm, updateMessageFlagsForNarrow, createRealm, type RealmState } from 'chat-realm';
import { HEAVY_USER_ID, actAs, assertSuccess, eventsFor, simulateRealm } from 'chat-realm/testing';

// 40 people, 8 channels, 1500 messages; the same every run for a given seed.
const org = simulateRealm({ preset: 'small', seed: 2024 });
const now = org.now ?? 0;

/** How many of the user's messages match a narrow, read through the API itself (state untouched). */
function count(
  state: RealmState,
  userId: number,
  narrow: Array<{ operator: string; operand: string | number; negated?: boolean }>,
): number {
  const r = updateMessageFlagsForNarrow(
    state,
    { userId },
    { anchor: 'oldest', num_before: 0, num_after: 5000, narrow, op: 'add', flag: 'read' },
    { now },
  );
  return assertSuccess(r)['processed_count'] as number;
}

const firstChannel = (state: RealmState, userId: number): number => {
  const subs = [...state.channels.keys()].filter(
    (id) => state.subscriptions.get(id)?.get(userId)?.active ?? false,
  );
  return subs[0]!;
};

describe('a simulated organization', () => {
  it('starts with unread messages for the user who reads nothing', () => {
    expect(count(org, HEAVY_USER_ID, [{ operator: 'is', operand: 'unread' }])).toBeGreaterThan(100);
  });

  it('marks one channel as read, and only that channel', () => {
    const channel = firstChannel(org, HEAVY_USER_ID);
    const me = actAs(org, HEAVY_USER_ID, { now });
    const before = count(org, HEAVY_USER_ID, [{ operator: 'is', operand: 'unread' }]);
    const inChannel = count(org, HEAVY_USER_ID, [
      { operator: 'channel', operand: channel },
      { operator: 'is', operand: 'unread' },
    ]);

    const r = me.run('updateMessageFlagsForNarrow', {
      anchor: 'oldest',
      num_before: 0,
      num_after: 5000,
      narrow: [{ operator: 'channel', operand: channel }],
      op: 'add',
      flag: 'read',
    });
    expect(assertSuccess(r)).toMatchObject({ updated_count: inChannel, found_newest: true });

    // The flags changed for this user only, and the change was announced to them alone.
    expect(
      count(me.state, HEAVY_USER_ID, [
        { operator: 'channel', operand: channel },
        { operator: 'is', operand: 'unread' },
      ]),
    ).toBe(0);
    expect(count(me.state, HEAVY_USER_ID, [{ operator: 'is', operand: 'unread' }])).toBe(before - inChannel);
    const [event] = eventsFor(r, HEAVY_USER_ID);
    expect(event).toMatchObject({ type: 'update_message_flags', op: 'add', flag: 'read', all: false });
    expect(r.events.every((e) => e.users.length === 1 && e.users[0] === HEAVY_USER_ID)).toBe(true);
    // The organization we started from is unchanged.
    expect(count(org, HEAVY_USER_ID, [{ operator: 'is', operand: 'unread' }])).toBe(before);
  });

  it('marks everything as read in 5000-message requests, and the flags survive a snapshot', () => {
    let state = org;
    let anchor: number | 'oldest' = 'oldest';
    for (;;) {
      const r = updateMessageFlagsForNarrow(
        state,
        { userId: HEAVY_USER_ID },
        {
          anchor,
          include_anchor: anchor === 'oldest',
          num_before: 0,
          num_after: 5000,
          narrow: [],
          op: 'add',
          flag: 'read',
        },
        { now },
      );
      const body = assertSuccess(r);
      state = r.state;
      if (body['found_newest'] === true || body['last_processed_id'] === null) break;
      anchor = body['last_processed_id'] as number;
    }
    expect(count(state, HEAVY_USER_ID, [{ operator: 'is', operand: 'unread' }])).toBe(0);
    const reloaded = createRealm(snapshotRealm(state));
    expect(count(reloaded, HEAVY_USER_ID, [{ operator: 'is', operand: 'unread' }])).toBe(0);
  });

  it('stars a topic and unstars it again', () => {
    const channel = firstChannel(org, HEAVY_USER_ID);
    const me = actAs(org, HEAVY_USER_ID, { now });
    const inChannel = count(org, HEAVY_USER_ID, [{ operator: 'channel', operand: channel }]);
    const star = (op: 'add' | 'remove') =>
      me.run('updateMessageFlagsForNarrow', {
        anchor: 'newest',
        num_before: 5000,
        num_after: 0,
        narrow: [{ operator: 'channel', operand: channel }],
        op,
        flag: 'starred',
      });

    star('add');
    expect(
      count(me.state, HEAVY_USER_ID, [
        { operator: 'channel', operand: channel },
        { operator: 'is', operand: 'starred' },
      ]),
    ).toBe(inChannel);
    star('remove');
    expect(
      count(me.state, HEAVY_USER_ID, [
        { operator: 'channel', operand: channel },
        { operator: 'is', operand: 'starred' },
      ]),
    ).toBe(0);
  });

  it('refuses a flag the client may not edit, leaving the state alone', () => {
    const r = updateMessageFlagsForNarrow(
      org,
      { userId: HEAVY_USER_ID },
      { anchor: 'oldest', num_before: 0, num_after: 10, narrow: [], op: 'add', flag: 'mentioned' },
      { now },
    );
    expect(r.body).toEqual({ result: 'error', msg: "Flag not editable: 'mentioned'", code: 'BAD_REQUEST' });
    expect(r.state).toBe(org);
    expect(r.events).toEqual([]);
  });
});
