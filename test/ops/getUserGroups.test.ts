import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getUserGroups } from '../../src/ops/groups/getUserGroups';
import { register } from '../../src/ops/live/register';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { expectRead } from '../support/read-ops';
import { as, devRealm, testCtx, wire } from '../support/realm';

const OP = 'get-user-groups';
const state = devRealm();
type Groups = { user_groups: Array<{ id: number; name: string; members: number[]; deactivated: boolean }> };

describe('getUserGroups', () => {
  it("lists the realm's groups, system groups included, as register's realm_user_groups (test_user_groups.py: test_get_user_group)", () => {
    const body = expectRead(OP, wire(state, 'hamlet', 'GET', '/user_groups'), state) as unknown as Groups;
    const reg = register(state, as('hamlet'), { fetch_event_types: ['realm_user_groups'] }, testCtx());
    expect(body.user_groups).toEqual((reg.body as Record<string, unknown>)['realm_user_groups']);
    expect(body.user_groups.map((g) => g.id)).toEqual(
      [...body.user_groups.map((g) => g.id)].sort((a, b) => a - b),
    );
    expect(body.user_groups.find((g) => g.name === 'hamletcharacters')!.members).toEqual([4, 5]);
    expect(body.user_groups.find((g) => g.name === 'role:administrators')!.members).toEqual([2]);
  });

  it('serves guests too, and deactivated groups only on request', () => {
    const guest = expectRead(OP, getUserGroups(state, as('polonius'), {}), state) as unknown as Groups;
    const all = getUserGroups(state, as('polonius'), { include_deactivated_groups: true })
      .body as unknown as Groups;
    expect(guest.user_groups.every((g) => !g.deactivated)).toBe(true);
    expect(all.user_groups.length).toBeGreaterThanOrEqual(guest.user_groups.length);
  });

  it('is total and pure on failure', () => {
    checkLibraryLaws(getUserGroups, state, arbParams(['include_deactivated_groups'], [fc.boolean()]), 60);
    checkWireLaws(getUserGroups, state, arbWireParams(['include_deactivated_groups']), 40);
  });
});
