import { describe, expect, it } from 'vitest';
import { updatePresence } from '../../../src/ops/presence/updatePresence';
import { PresenceTable } from '../../../src/host/presence-table';
import { expectValidEvent, expectValidResponse } from '../../support/openapi';
import { as, cast, devRealm, testCtx, wire } from '../../support/realm';
import { createRealm } from '../../../src/core/snapshot/create';
import { devSnapshot } from '../../support/realm';

const OP = 'update-presence';
const state = devRealm();
const NOW = 1795219200;

/** Runs a ping at `now` against `table` and stores its effects, as the host does. */
function ping(
  table: PresenceTable,
  who: keyof typeof cast,
  params: Parameters<typeof updatePresence>[2],
  now = NOW,
) {
  const r = updatePresence(state, as(who), params, testCtx({ now, presence: table }));
  table.apply(r.effects);
  return r;
}

describe('updatePresence (zerver/views/presence.py update_active_status_backend)', () => {
  it('a first ping creates the row, answers every presence and sends a legacy presence event', () => {
    const table = new PresenceTable();
    const r = ping(table, 'hamlet', { status: 'active' });
    expect(r.status).toBe(200);
    expect(r.state).toBe(state);
    expect(r.body).toEqual({
      result: 'success',
      msg: '',
      presences: {
        [state.users.get(cast.hamlet)!.email]: {
          aggregated: { client: 'website', status: 'active', timestamp: NOW },
          website: { client: 'website', status: 'active', timestamp: NOW, pushable: false },
        },
      },
      server_timestamp: NOW,
      presence_last_update_id: 1,
    });
    expectValidResponse(OP, 200, r.body);
    expect(table.get(cast.hamlet)).toEqual({
      user_id: cast.hamlet,
      last_active_time: NOW,
      last_connected_time: NOW,
      last_update_id: 1,
    });
    expect(r.events).toHaveLength(1);
    const { event, users } = r.events[0]!;
    expect(event).toMatchObject({ type: 'presence', user_id: cast.hamlet, server_timestamp: NOW });
    const { modern_presence: _modern, ...legacy } = event as Record<string, unknown>;
    expectValidEvent(legacy);
    // `active_user_ids(realm)`: bots included, deactivated users not.
    expect(users).toContain(cast.defaultBot);
    expect(users).not.toContain(cast.exEmployee);
  });

  it('ping_only answers nothing but success', () => {
    const r = ping(new PresenceTable(), 'hamlet', { status: 'idle', ping_only: true });
    expect(r.body).toEqual({ result: 'success', msg: '' });
    expectValidResponse(OP, 200, r.body);
    expect(r.effects).toEqual([
      {
        type: 'update_presence',
        row: { user_id: cast.hamlet, last_active_time: null, last_connected_time: NOW, last_update_id: 1 },
      },
    ]);
  });

  it('pings within PRESENCE_UPDATE_MIN_FREQ_SECONDS (55 s) change nothing; later ones take the next id', () => {
    const table = new PresenceTable();
    ping(table, 'hamlet', { status: 'active', ping_only: true });
    const soon = ping(table, 'hamlet', { status: 'active', ping_only: true }, NOW + 50);
    expect(soon.effects).toEqual([]);
    expect(soon.events).toEqual([]);
    const later = ping(table, 'hamlet', { status: 'active', ping_only: true }, NOW + 60);
    expect(later.effects).toHaveLength(1);
    // Still online: no event (test_presence.py test_send_presence_changed).
    expect(later.events).toEqual([]);
    expect(table.get(cast.hamlet)).toMatchObject({ last_active_time: NOW + 60, last_update_id: 2 });
  });

  it('coming back online after 70 s of inactivity sends an event again', () => {
    const table = new PresenceTable();
    ping(table, 'hamlet', { status: 'active', ping_only: true });
    ping(table, 'hamlet', { status: 'idle', ping_only: true }, NOW + 60);
    expect(ping(table, 'hamlet', { status: 'active', ping_only: true }, NOW + 200).events).toHaveLength(1);
  });

  it('last_update_id asks for the modern format and only newer rows', () => {
    const table = new PresenceTable();
    ping(table, 'cordelia', { status: 'active', ping_only: true });
    const all = ping(table, 'hamlet', { status: 'active', last_update_id: -1 });
    expect(all.body).toMatchObject({
      presences: {
        [String(cast.cordelia)]: { active_timestamp: NOW, idle_timestamp: NOW },
        [String(cast.hamlet)]: { active_timestamp: NOW, idle_timestamp: NOW },
      },
      presence_last_update_id: 2,
    });
    expectValidResponse(OP, 200, all.body);
    const none = ping(table, 'hamlet', { status: 'active', last_update_id: 2 }, NOW + 10);
    expect(none.body).toMatchObject({ presences: {}, presence_last_update_id: 2 });
  });

  it('slim_presence keys by user id; history_limit_days leaves out older rows', () => {
    const table = new PresenceTable();
    ping(table, 'cordelia', { status: 'active', ping_only: true }, NOW - 3 * 86400);
    const r = ping(table, 'hamlet', { status: 'active', slim_presence: true, history_limit_days: 1 });
    expect(Object.keys(r.body['presences'] as object)).toEqual([String(cast.hamlet)]);
  });

  it('a user with presence_enabled off (invisible) updates nothing', () => {
    const snap = devSnapshot();
    const users = snap['users'] as Array<Record<string, unknown>>;
    const hamlet = users.find((u) => u['user_id'] === cast.hamlet)!;
    hamlet['settings'] = { ...(hamlet['settings'] as object), presence_enabled: false };
    const invisible = createRealm(snap);
    const table = new PresenceTable();
    const r = updatePresence(invisible, as('hamlet'), { status: 'active' }, testCtx({ presence: table }));
    expect(r.effects).toEqual([]);
    expect(r.events).toEqual([]);
    expect(r.body['presences']).toEqual({});
    expect(r.body['presence_last_update_id']).toBe(-1);
  });

  it("refuses an unknown status, a missing one, and bots (Zulip's errors)", () => {
    expect(wire(state, 'hamlet', 'POST', '/users/me/presence', { status: 'away' }).body).toEqual({
      result: 'error',
      msg: 'Invalid status: away',
      code: 'BAD_REQUEST',
    });
    expect(wire(state, 'hamlet', 'POST', '/users/me/presence', {}).body).toMatchObject({
      msg: "Missing 'status' argument",
    });
    expect(wire(state, 'defaultBot', 'POST', '/users/me/presence', { status: 'active' }).body).toMatchObject({
      msg: 'This endpoint does not accept bot requests.',
    });
    expect(
      wire(state, 'hamlet', 'POST', '/users/me/presence', { status: 'active', ping_only: '"x"' }).body,
    ).toMatchObject({
      msg: 'ping_only is not a boolean',
    });
  });
});
