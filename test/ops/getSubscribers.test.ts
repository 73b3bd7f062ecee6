import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getSubscribers } from '../../src/ops/channels/getSubscribers';
import { subscriberIds } from '../../src/core/permissions/channels';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { expectRead, expectRefused } from '../support/read-ops';
import { as, devRealm, wire } from '../support/realm';

const OP = 'get-subscribers';
const state = devRealm();

describe('getSubscribers', () => {
  it('lists the active subscribers, ascending (test_subs.py: test_json_get_subscribers)', () => {
    const body = expectRead(OP, wire(state, 'hamlet', 'GET', '/streams/2/members'), state);
    expect(body).toEqual({ result: 'success', msg: '', subscribers: [1, 2, 4, 5, 6, 7, 9] });
    expect(body['subscribers']).toEqual(subscriberIds(state, 2));
  });

  it('serves private channels to subscribers and administrators (test_json_get_subscribers_for_private_stream...)', () => {
    expect(getSubscribers(state, as('cordelia'), { stream_id: 7 }).body).toMatchObject({
      subscribers: [1, 5],
    });
    expect(getSubscribers(state, as('iago'), { stream_id: 7 }).body).toMatchObject({ subscribers: [1, 5] });
    expectRefused(OP, getSubscribers(state, as('hamlet'), { stream_id: 7 }), state, 'Invalid channel ID');
  });

  it('serves a guest only channels it is subscribed to, and web-public ones (validate_user_access_to_subscribers_helper)', () => {
    expect(getSubscribers(state, as('polonius'), { stream_id: 10 }).status).toBe(200);
    expect(getSubscribers(state, as('polonius'), { stream_id: 4 }).status).toBe(200);
    expectRefused(OP, getSubscribers(state, as('polonius'), { stream_id: 2 }), state, 'Invalid channel ID');
  });

  it('answers Invalid channel ID for a missing channel', () => {
    expectRefused(OP, wire(state, 'hamlet', 'GET', '/streams/999/members'), state, 'Invalid channel ID');
  });

  it('is total and pure on failure', () => {
    checkLibraryLaws(getSubscribers, state, arbParams(['stream_id'], [fc.integer({ min: 0, max: 11 })]));
    checkWireLaws(getSubscribers, state, arbWireParams(['stream_id']));
  });
});
