import { describe, expect, it } from 'vitest';
import { getUserStatus } from '../../../src/ops/users/getUserStatus';
import { updateStatus } from '../../../src/ops/users/updateStatus';
import { expectRefused } from '../../support/expect-result';
import { expectValidResponse } from '../../support/openapi';
import { as, cast, devRealm, testCtx, wire } from '../../support/realm';

const OP = 'get-user-status';
const state = devRealm();

describe('getUserStatus (zerver/views/presence.py get_status_backend; test_user_status.py)', () => {
  it('answers only the parts that are set (get_user_status)', () => {
    expect(getUserStatus(state, as('iago'), { user_id: cast.hamlet }).body).toEqual({
      result: 'success',
      msg: '',
      status: {},
    });
    const set = updateStatus(state, as('hamlet'), { status_text: 'out', away: true }, testCtx()).state;
    const r = getUserStatus(set, as('iago'), { user_id: cast.hamlet });
    expect(r.body).toEqual({ result: 'success', msg: '', status: { away: true, status_text: 'out' } });
    expectValidResponse(OP, 200, r.body);
    expect(wire(set, 'iago', 'GET', `/users/${cast.hamlet}/status`).body).toEqual(r.body);
  });

  it('No such user for unknown ids and bots; User is deactivated (access_user_by_id allow_bots=False)', () => {
    const get = (id: number) => getUserStatus(state, as('iago'), { user_id: id });
    expectRefused(OP, get(999), state, 'No such user');
    expectRefused(OP, get(cast.defaultBot), state, 'No such user');
    expectRefused(OP, get(cast.exEmployee), state, 'User is deactivated');
  });
});
