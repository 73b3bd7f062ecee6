import { describe, expect, it } from 'vitest';
import { getCustomProfileFields } from '../../src/ops/users/getCustomProfileFields';
import { register } from '../../src/ops/live/register';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { expectRead } from '../support/read-ops';
import { as, devRealm, testCtx, wire } from '../support/realm';

const OP = 'get-custom-profile-fields';
const state = devRealm();

describe('getCustomProfileFields', () => {
  it("lists the fields in order, as register's custom_profile_fields (test_custom_profile_data.py: test_list)", () => {
    const body = expectRead(OP, wire(state, 'hamlet', 'GET', '/realm/profile_fields'), state);
    const reg = register(state, as('hamlet'), { fetch_event_types: ['custom_profile_fields'] }, testCtx());
    expect(body['custom_fields']).toEqual((reg.body as Record<string, unknown>)['custom_profile_fields']);
    expect((body['custom_fields'] as unknown[]).length).toBeGreaterThan(0);
  });

  it('serves guests too', () => {
    expectRead(OP, getCustomProfileFields(state, as('polonius')), state);
  });

  it('is total and pure on failure', () => {
    checkLibraryLaws(getCustomProfileFields, state, arbParams([]), 40);
    checkWireLaws(getCustomProfileFields, state, arbWireParams([]), 30);
  });
});
