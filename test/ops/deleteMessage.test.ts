import { describe, expect, it } from 'vitest';
import { deleteMessage } from '../../src/ops/messages/deleteMessage';
import { createRealm } from '../../src/core/snapshot/create';
import { seededRandom } from '../../src/core/context';
import { getMessage } from '../../src/core/messages/store';
import { getRowFlags } from '../../src/core/messages/rows';
import { firstMessageIdInChannel } from '../../src/core/messages/query';
import type { OpResult } from '../../src/core/result';
import type { RealmState } from '../../src/core/state';
import { EventQueues } from '../../src/host/event-queues';
import { expectValidEvent, expectValidResponse } from '../support/openapi';
import { expectRefused } from '../support/expect-result';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import {
  as,
  devRealm,
  devSnapshot,
  testCtx,
  wire,
  type CastName,
  type EditableSnapshot,
} from '../support/realm';

/**
 * DELETE /messages/{message_id}. Rules from zerver/views/message_edit.py
 * (`validate_can_delete_message`, `delete_message_backend`), zerver/actions/message_delete.py
 * (`_process_grouped_messages_deletion`, `check_update_first_message_id`) and their tests in
 * zerver/tests/test_message_delete.py.
 */
const OP = 'delete-message';
const state = devRealm();
const VERONA = Array.from({ length: 11 }, (_, i) => i + 1);

/** The dev realm with a change to its snapshot. */
function realmWith(change: (s: EditableSnapshot) => void): RealmState {
  const snap = devSnapshot();
  change(snap);
  return createRealm(snap, { random: seededRandom(1) });
}

const del = (s: RealmState, id: number | string, who: CastName, now = 1795219200) =>
  wire(s, who, 'DELETE', `/messages/${id}`, {}, testCtx({ now }));

function ok(r: OpResult): void {
  expect(r.body).toEqual({ result: 'success', msg: '' });
  expect(r.status).toBe(200);
  expectValidResponse(OP, 200, r.body);
  for (const e of r.events) expectValidEvent(e.event);
  expect(r.effects).toEqual([]);
}

const hasRow = (s: RealmState, userId: number, id: number) => {
  const rows = s.messages.rows.get(userId);
  return rows !== undefined && getRowFlags(rows, id) !== undefined;
};

const DENIED = "You don't have permission to delete this message";
const LATE = 'The time limit for deleting this message has passed';

describe('deleteMessage', () => {
  it('an administrator deletes anyone’s message at any time (test_delete_message_by_admin)', () => {
    const r = del(state, 112, 'iago');
    ok(r);
    expect(getMessage(r.state.messages, 112)).toBeUndefined();
    expect(getMessage(state.messages, 112)).toBeDefined();
    for (const u of VERONA) expect(hasRow(r.state, u, 112)).toBe(false);
    expect(r.state.messages.count).toBe(state.messages.count - 1);
    expect(r.events).toEqual([
      {
        event: {
          type: 'delete_message',
          message_ids: [112],
          message_type: 'stream',
          stream_id: 1,
          topic: 'weather',
        },
        users: VERONA,
      },
    ]);
  });

  it("the channel's first message: first_message_id update before delete_message (check_update_first_message_id)", () => {
    const r = del(state, 101, 'iago');
    ok(r);
    expect(firstMessageIdInChannel(r.state.messages, 1)).toBe(112);
    expect(r.events.map((e) => e.event)).toEqual([
      {
        type: 'stream',
        op: 'update',
        property: 'first_message_id',
        value: 112,
        stream_id: 1,
        name: 'Verona',
      },
      { type: 'delete_message', message_ids: [101], message_type: 'stream', stream_id: 1, topic: 'lunch' },
    ]);
  });

  it('direct messages: the event goes to the participants, message_type private', () => {
    const r = del(state, 166, 'hamlet', 1735699560 + 10);
    ok(r);
    expect(r.events).toEqual([
      { event: { type: 'delete_message', message_ids: [166], message_type: 'private' }, users: [4, 5] },
    ]);
  });

  it('own messages within message_content_delete_limit_seconds only (test_delete_message_by_user)', () => {
    ok(del(state, 145, 'hamlet', 1735698300 + 600));
    expectRefused(OP, del(state, 145, 'hamlet', 1735698300 + 601), state, LATE);
    // A limit of null: no limit.
    const unlimited = realmWith((s) => {
      s.realm.message_content_delete_limit_seconds = null;
    });
    ok(del(unlimited, 145, 'hamlet'));
  });

  it("others' messages are refused, but a bot's owner may delete the bot's messages", () => {
    expectRefused(OP, del(state, 112, 'hamlet', 1735696320 + 5), state, DENIED);
    // Message 139 was sent by Zulip Default Bot (owned by hamlet) in core team.
    ok(del(state, 139, 'hamlet', 1735697940 + 5));
  });

  it('can_delete_own_message_group: the realm setting, or the channel setting for its messages (test_delete_message_according_to_can_delete_own_message_group)', () => {
    const admins = realmWith((s) => {
      s.realm.can_delete_own_message_group = 'role:administrators';
    });
    expectRefused(OP, del(admins, 145, 'hamlet', 1735698300 + 5), admins, DENIED);
    expectRefused(OP, del(admins, 166, 'hamlet', 1735699560 + 5), admins, DENIED);
    const channelGrants = realmWith((s) => {
      s.realm.can_delete_own_message_group = 'role:administrators';
      const verona = s.channels.find((c) => c.stream_id === 1)!;
      verona.can_delete_own_message_group = { direct_members: [4], direct_subgroups: [] };
    });
    ok(del(channelGrants, 145, 'hamlet', 1735698300 + 5));
    // The channel setting does not lift the time limit.
    expectRefused(OP, del(channelGrants, 145, 'hamlet'), channelGrants, LATE);
  });

  it("can_delete_any_message_group: the realm's, or the channel's for its messages, any time", () => {
    const moderators = realmWith((s) => {
      s.realm.can_delete_any_message_group = 'role:members';
    });
    ok(del(moderators, 112, 'hamlet'));
    const channel = realmWith((s) => {
      s.channels.find((c) => c.stream_id === 1)!.can_delete_any_message_group = {
        direct_members: [4],
        direct_subgroups: [],
      };
    });
    ok(del(channel, 112, 'hamlet'));
    expectRefused(OP, del(channel, 113, 'hamlet'), channel, DENIED);
  });

  it('Invalid message(s): unknown ids, messages the user cannot access, archived channels', () => {
    expectRefused(OP, del(state, 9999, 'iago'), state, 'Invalid message(s)');
    // Cordelia is not a participant of 133.
    expectRefused(OP, del(state, 133, 'cordelia'), state, 'Invalid message(s)');
    // Message 119 is in the archived channel "old announcements": even an administrator.
    expectRefused(OP, del(state, 119, 'iago'), state, 'Invalid message(s)');
    // A private channel the user is not in (secrets: hamlet).
    expectRefused(OP, del(state, 107, 'iago'), state, 'Invalid message(s)');
  });

  it('the id is a non-negative integer path parameter', () => {
    const r = wire(state, 'iago', 'DELETE', '/messages/abc');
    expect(r.status).toBe(404);
  });

  it('event queues split the event for clients without bulk_message_deletion', () => {
    const r = deleteMessage(state, as('iago'), { message_id: 112 }, testCtx());
    const queues = new EventQueues({ gcIntervalMs: 0 });
    const bulk = queues.create(4, { eventTypes: null, capabilities: { bulk_message_deletion: true } });
    const legacy = queues.create(5, { eventTypes: null });
    queues.deliver(r.events);
    expect(bulk.events.map(({ id: _id, ...e }) => e)).toEqual([
      { type: 'delete_message', message_ids: [112], message_type: 'stream', stream_id: 1, topic: 'weather' },
    ]);
    expect(legacy.events.map(({ id: _id, ...e }) => e)).toEqual([
      { type: 'delete_message', message_id: 112, message_type: 'stream', stream_id: 1, topic: 'weather' },
    ]);
  });

  it('laws: totality and failure purity, library and wire', () => {
    checkLibraryLaws(deleteMessage, state, arbParams(['message_id']), 100);
    checkWireLaws(deleteMessage, state, arbWireParams(['message_id']), 60);
  });
});
