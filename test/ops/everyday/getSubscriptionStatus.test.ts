import { describe, expect, it } from 'vitest';
import { getSubscriptionStatus } from '../../../src/ops/channels/getSubscriptionStatus';
import { expectValidResponse } from '../../support/openapi';
import { as, cast, devRealm, wire } from '../../support/realm';

const state = devRealm();
const status = (who: Parameters<typeof as>[0], user_id: number, stream_id: number) =>
  getSubscriptionStatus(state, as(who), { user_id, stream_id }).body;

describe('getSubscriptionStatus (zerver/views/streams.py get_subscription_backend)', () => {
  it('answers whether the user is subscribed', () => {
    expect(status('hamlet', cast.hamlet, 1)).toEqual({ result: 'success', msg: '', is_subscribed: true });
    expectValidResponse('get-subscription-status', 200, status('hamlet', cast.hamlet, 1));
    expect(status('hamlet', cast.hamlet, 10)).toMatchObject({ is_subscribed: false });
    expect(wire(state, 'hamlet', 'GET', `/users/${cast.cordelia}/subscriptions/7`).body).toMatchObject({
      msg: 'Invalid channel ID',
    });
  });

  it("Zulip's errors: unknown or deactivated user, private channel without access, archived channel", () => {
    expect(status('hamlet', 9999, 1)).toEqual({ result: 'error', msg: 'No such user', code: 'BAD_REQUEST' });
    expect(status('hamlet', cast.exEmployee, 1)).toMatchObject({ msg: 'No such user' });
    expect(status('hamlet', cast.cordelia, 7)).toMatchObject({ msg: 'Invalid channel ID' });
    expect(status('hamlet', cast.hamlet, 8)).toMatchObject({ msg: 'Invalid channel ID' });
    expect(status('hamlet', cast.hamlet, 999)).toMatchObject({ msg: 'Invalid channel ID' });
  });
});
