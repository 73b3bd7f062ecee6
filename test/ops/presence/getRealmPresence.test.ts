import { describe, expect, it } from 'vitest';
import { getRealmPresence } from '../../../src/ops/presence/getRealmPresence';
import { updatePresence } from '../../../src/ops/presence/updatePresence';
import { PresenceTable } from '../../../src/host/presence-table';
import { expectValidResponse } from '../../support/openapi';
import { as, cast, devRealm, testCtx, wire } from '../../support/realm';

const state = devRealm();
const NOW = 1795219200;

describe('getRealmPresence (zerver/views/presence.py get_statuses_for_realm)', () => {
  it('answers the legacy format keyed by email, without presence_last_update_id', () => {
    const table = new PresenceTable();
    table.apply(updatePresence(state, as('iago'), { status: 'idle' }, testCtx({ presence: table })).effects);
    const r = getRealmPresence(state, as('hamlet'), {}, testCtx({ now: NOW + 300, presence: table }));
    expect(r.body).toEqual({
      result: 'success',
      msg: '',
      presences: {
        [state.users.get(cast.iago)!.email]: {
          // Never active: the active time defaults to date_joined, so the user shows idle.
          aggregated: { client: 'website', status: 'idle', timestamp: NOW },
          website: { client: 'website', status: 'idle', timestamp: NOW, pushable: false },
        },
      },
      server_timestamp: NOW + 300,
    });
    expectValidResponse('get-presence', 200, r.body);
  });

  it('is empty without a host presence table, and routed at GET /realm/presence', () => {
    const r = wire(state, 'hamlet', 'GET', '/realm/presence');
    expect(r.body).toMatchObject({ result: 'success', presences: {} });
    expect(wire(state, null, 'GET', '/realm/presence').status).toBe(401);
  });
});
