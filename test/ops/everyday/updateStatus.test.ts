import { describe, expect, it } from 'vitest';
import { registerState } from '../../../src/core/register/register-state';
import { updateStatus } from '../../../src/ops/users/updateStatus';
import { expectRefused } from '../../support/expect-result';
import { expectValidEvent, expectValidResponse } from '../../support/openapi';
import { as, cast, devRealm, testCtx, wire } from '../../support/realm';

const OP = 'update-status';
const NOW = 1795219200;
const state = devRealm();
const update = (s = state, p: Record<string, unknown>, who: 'hamlet' | 'defaultBot' = 'hamlet') =>
  updateStatus(s, as(who), p as never, testCtx());

describe('updateStatus (zerver/views/presence.py update_user_status_backend; test_user_status.py)', () => {
  it('sets text and emoji: user_status to who can access the user, register shows it (test_endpoints)', () => {
    const r = update(state, {
      status_text: ' in a meeting ',
      emoji_name: 'car',
      emoji_code: '1f697',
      reaction_type: 'unicode_emoji',
    });
    expect(r.status).toBe(200);
    expectValidResponse(OP, 200, r.body);
    const event = {
      type: 'user_status',
      user_id: cast.hamlet,
      status_text: 'in a meeting',
      emoji_name: 'car',
      emoji_code: '1f697',
      reaction_type: 'unicode_emoji',
    };
    expect(r.events).toHaveLength(1);
    expect(r.events[0]?.event).toEqual(event);
    expect(r.events[0]?.users).toContain(cast.iago);
    expectValidEvent(r.events[0]!.event);
    expect(
      registerState(r.state, cast.iago, { fetch_event_types: ['user_status'] }, NOW)['user_status'],
    ).toEqual({
      [String(cast.hamlet)]: {
        status_text: 'in a meeting',
        emoji_name: 'car',
        emoji_code: '1f697',
        reaction_type: 'unicode_emoji',
      },
    });
  });

  it('looks a Unicode emoji up by name when code and type are missing (emoji_name_to_emoji_code)', () => {
    const r = update(state, { emoji_name: 'car' });
    expectValidResponse(OP, r.status, r.body);
    expect(r.state.userStatuses.get(cast.hamlet)).toMatchObject({
      emoji_name: 'car',
      emoji_code: '1f697',
      reaction_type: 'unicode_emoji',
    });
  });

  it('keeps parts not given; an empty emoji_name clears the emoji; an empty status drops the row', () => {
    const a = update(state, { status_text: 'busy', emoji_name: 'zulip' });
    expect(a.state.userStatuses.get(cast.hamlet)).toMatchObject({
      emoji_code: 'zulip',
      reaction_type: 'zulip_extra_emoji',
    });
    const b = update(a.state, { away: true });
    expect(b.events[0]?.event).toEqual({ type: 'user_status', user_id: cast.hamlet, away: true });
    expect(b.state.userStatuses.get(cast.hamlet)).toMatchObject({ status_text: 'busy', away: true });
    const c = update(b.state, { away: false, status_text: '', emoji_name: '' });
    expect(c.events[0]?.event).toEqual({
      type: 'user_status',
      user_id: cast.hamlet,
      away: false,
      status_text: '',
      emoji_name: '',
      emoji_code: '',
      reaction_type: 'unicode_emoji',
    });
    expect(c.state.userStatuses.get(cast.hamlet)).toBeUndefined();
    const same = update(c.state, { status_text: '' });
    expect(same.state).toBe(c.state);
    expect(same.events).toEqual([]);
  });

  it("Zulip's errors, in its order (test_user_status.py test_endpoints)", () => {
    expectRefused(OP, update(state, {}), state, 'Client did not pass any new values.');
    expectRefused(
      OP,
      update(state, { status_text: 'x'.repeat(61) }),
      state,
      'status_text is too long (limit: 60 characters)',
    );
    expectRefused(
      OP,
      update(state, { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'bogus' }),
      state,
      'Invalid emoji type.',
    );
    expectRefused(
      OP,
      update(state, { emoji_name: 'zulip', emoji_code: 'x', reaction_type: 'zulip_extra_emoji' }),
      state,
      'Invalid emoji code.',
    );
    // check_emoji_request, as for reactions: the code must exist and the name must be its own.
    expectRefused(
      OP,
      update(state, { emoji_name: 'car', emoji_code: 'ffff0', reaction_type: 'unicode_emoji' }),
      state,
      'Invalid emoji code.',
    );
    expectRefused(
      OP,
      update(state, { emoji_name: 'octopus', emoji_code: '1f697', reaction_type: 'unicode_emoji' }),
      state,
      'Invalid emoji name.',
    );
    expectRefused(
      OP,
      update(state, { emoji_name: 'car', emoji_code: '1', reaction_type: 'realm_emoji' }),
      state,
      'Invalid custom emoji.',
    );
    expectRefused(
      OP,
      update(state, { emoji_name: 'no_such_emoji' }),
      state,
      "Emoji 'no_such_emoji' does not exist",
    );
    expectRefused(
      OP,
      update(state, { status_text: 'hi' }, 'defaultBot'),
      state,
      'This endpoint does not accept bot requests.',
    );
  });

  it('over the wire: away as JSON, the rest raw', () => {
    const r = wire(
      state,
      'hamlet',
      'POST',
      '/users/me/status',
      { away: 'true', status_text: 'out' },
      testCtx(),
    );
    expect(r.status).toBe(200);
    expect(r.state.userStatuses.get(cast.hamlet)).toMatchObject({ away: true, status_text: 'out' });
  });
});
