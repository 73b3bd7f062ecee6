import { describe, expect, it } from 'vitest';
import { getUserPresence } from '../../../src/ops/presence/getUserPresence';
import { updatePresence } from '../../../src/ops/presence/updatePresence';
import { PresenceTable } from '../../../src/host/presence-table';
import { expectValidResponse } from '../../support/openapi';
import { as, cast, devRealm, testCtx, wire } from '../../support/realm';

const state = devRealm();
const NOW = 1795219200;
const table = new PresenceTable();
table.apply(updatePresence(state, as('othello'), { status: 'active' }, testCtx({ presence: table })).effects);
const ctx = (now = NOW) => testCtx({ now, presence: table });

describe('getUserPresence (zerver/views/presence.py get_presence_backend)', () => {
  it('answers by id or by email, without client and pushable', () => {
    const byId = getUserPresence(state, as('hamlet'), { user_id_or_email: String(cast.othello) }, ctx());
    expect(byId.body).toEqual({
      result: 'success',
      msg: '',
      presence: {
        aggregated: { status: 'active', timestamp: NOW },
        website: { status: 'active', timestamp: NOW },
      },
    });
    expectValidResponse('get-user-presence', 200, byId.body);
    const email = state.users.get(cast.othello)!.email;
    expect(getUserPresence(state, as('hamlet'), { user_id_or_email: email }, ctx()).body).toEqual(byId.body);
  });

  it('reports offline once the timestamp is older than OFFLINE_THRESHOLD_SECS (140 s)', () => {
    const r = getUserPresence(
      state,
      as('hamlet'),
      { user_id_or_email: String(cast.othello) },
      ctx(NOW + 141),
    );
    expect(r.body['presence']).toMatchObject({
      aggregated: { status: 'offline' },
      website: { status: 'idle' },
    });
  });

  it("Zulip's errors: no such user, bots, no data", () => {
    const err = (key: string) => getUserPresence(state, as('hamlet'), { user_id_or_email: key }, ctx()).body;
    expect(err('9999')).toEqual({ result: 'error', msg: 'No such user', code: 'BAD_REQUEST' });
    expect(err(String(cast.exEmployee))).toMatchObject({ msg: 'No such user' });
    expect(err('nobody@example.com')).toMatchObject({ msg: 'No such user' });
    expect(err(String(cast.defaultBot))).toMatchObject({ msg: 'Presence is not supported for bot users.' });
    expect(err(String(cast.cordelia))).toMatchObject({ msg: `No presence data for ${cast.cordelia}` });
  });

  it('is routed with an id or an email in the path; /users/me/presence stays POST-only', () => {
    const email = state.users.get(cast.cordelia)!.email;
    expect(wire(state, 'hamlet', 'GET', `/users/${encodeURIComponent(email)}/presence`).body).toMatchObject({
      msg: `No presence data for ${email}`,
    });
    expect(wire(state, 'hamlet', 'GET', '/users/me/presence').status).toBe(405);
  });
});
