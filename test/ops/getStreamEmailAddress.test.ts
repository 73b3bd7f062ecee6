import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/context';
import { createRealm } from '../../src/core/snapshot/create';
import { snapshotRealm } from '../../src/core/snapshot/export';
import { encodeEmailAddress } from '../../src/core/channels/email-address';
import { getStreamEmailAddress } from '../../src/ops/channels/getStreamEmailAddress';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { expectRead, expectRefused } from '../support/read-ops';
import { as, cast, devRealm, devSnapshot, testCtx, wire } from '../support/realm';

const OP = 'get-stream-email-address';

/** The dev realm with an email gateway, as Zulip's test server has one (`%s@testserver`). */
function gatewayRealm(extra: (s: ReturnType<typeof devSnapshot>) => void = () => {}) {
  const snap = devSnapshot();
  snap.server = { ...snap.server, email_gateway_pattern: '%s@testserver' };
  extra(snap);
  return createRealm(snap, { random: seededRandom(1) });
}
const state = gatewayRealm();
const email = (r: { body: unknown }) => (r.body as { email: string }).email;

describe('getStreamEmailAddress', () => {
  it('answers the show-sender address of the channel (test_subs.py: test_get_stream_email_address)', () => {
    const body = expectRead(OP, wire(state, 'hamlet', 'GET', '/streams/1/email_address'), state);
    expect(body['email']).toMatch(/^verona\.[0-9a-f]{32}\.show-sender@testserver$/);
  });

  it('is stable, and differs by caller and by sender (one token per creator and sender)', () => {
    const a = getStreamEmailAddress(state, as('hamlet'), { stream_id: 1 }, testCtx());
    const b = getStreamEmailAddress(state, as('hamlet'), { stream_id: 1 }, testCtx());
    const c = getStreamEmailAddress(state, as('cordelia'), { stream_id: 1 }, testCtx());
    const self = getStreamEmailAddress(state, as('hamlet'), { stream_id: 1, sender_id: cast.hamlet });
    expect(email(a)).toBe(email(b));
    expect(email(c)).not.toBe(email(a));
    expect(email(self)).not.toBe(email(a));
  });

  it('takes the Email Gateway bot as the default sender', () => {
    const gateway = state.server.email_gateway_bot_id;
    const a = getStreamEmailAddress(state, as('hamlet'), { stream_id: 1 });
    const b = getStreamEmailAddress(state, as('hamlet'), { stream_id: 1, sender_id: gateway });
    expect(email(b)).toBe(email(a));
  });

  it('takes sender_id from the query string, as clients send it', () => {
    const r = wire(state, 'hamlet', 'GET', '/streams/1/email_address', {
      sender_id: String(cast.defaultBot),
    });
    const lib = getStreamEmailAddress(state, as('hamlet'), { stream_id: 1, sender_id: cast.defaultBot });
    expect(expectRead(OP, r, state)['email']).toBe(email(lib));
    expectRefused(
      OP,
      wire(state, 'hamlet', 'GET', '/streams/1/email_address', { sender_id: String(cast.cordelia) }),
      state,
      'No such bot',
    );
  });

  it("accepts one's own bot, and any bot for an administrator (access_bot_by_id)", () => {
    expectRead(
      OP,
      getStreamEmailAddress(state, as('hamlet'), { stream_id: 1, sender_id: cast.defaultBot }),
      state,
    );
    expectRead(
      OP,
      getStreamEmailAddress(state, as('iago'), { stream_id: 1, sender_id: cast.defaultBot }),
      state,
    );
  });

  it("refuses someone else's bot and anyone who is not a bot (test_subs.py: sender_id cases)", () => {
    expectRefused(
      OP,
      getStreamEmailAddress(state, as('cordelia'), { stream_id: 1, sender_id: cast.defaultBot }),
      state,
      'Insufficient permission',
    );
    expectRefused(
      OP,
      getStreamEmailAddress(state, as('hamlet'), { stream_id: 1, sender_id: cast.cordelia }),
      state,
      'No such bot',
    );
    expectRefused(
      OP,
      getStreamEmailAddress(state, as('hamlet'), { stream_id: 1, sender_id: 9999 }),
      state,
      'No such bot',
    );
  });

  it('answers Invalid channel ID without content access, before looking at the sender', () => {
    // Private channel hamlet is not in (7), a missing one, a public channel for a guest.
    expectRefused(
      OP,
      getStreamEmailAddress(state, as('hamlet'), { stream_id: 7 }),
      state,
      'Invalid channel ID',
    );
    expectRefused(
      OP,
      getStreamEmailAddress(state, as('hamlet'), { stream_id: 999, sender_id: 9999 }),
      state,
      'Invalid channel ID',
    );
    expectRefused(
      OP,
      getStreamEmailAddress(state, as('polonius'), { stream_id: 2 }),
      state,
      'Invalid channel ID',
    );
    // Administrators have only metadata access to private channels they are not in.
    expectRefused(
      OP,
      getStreamEmailAddress(state, as('iago'), { stream_id: 7 }),
      state,
      'Invalid channel ID',
    );
  });

  it('answers an empty address when no gateway is configured (encode_email_address)', () => {
    const plain = devRealm();
    expect(plain.server.email_gateway_pattern).toBe('');
    expect(expectRead(OP, getStreamEmailAddress(plain, as('hamlet'), { stream_id: 1 }), plain)['email']).toBe(
      '',
    );
  });

  it("uses the channel's stored email_token, which snapshots keep", () => {
    const withToken = gatewayRealm((s) => {
      s.channels[0] = { ...s.channels[0]!, email_token: 'a-secret' };
    });
    const a = email(getStreamEmailAddress(withToken, as('hamlet'), { stream_id: 1 }));
    expect(a).not.toBe(email(getStreamEmailAddress(state, as('hamlet'), { stream_id: 1 })));
    const again = createRealm(snapshotRealm(withToken), { random: seededRandom(1) });
    expect(again.channels.get(1)?.email_token).toBe('a-secret');
    expect(again.server.email_gateway_pattern).toBe('%s@testserver');
    expect(email(getStreamEmailAddress(again, as('hamlet'), { stream_id: 1 }))).toBe(a);
  });

  it("names the channel as Zulip's encoder does (test_email_mirror.py: test_encode_decode)", () => {
    const p = '%s@testserver';
    expect(encodeEmailAddress(p, 'dev. help', 'T', false)).toBe('dev-help.T@testserver');
    expect(encodeEmailAddress(p, 'Verona', 'T', true)).toBe('verona.T.show-sender@testserver');
    // Names that do not survive conversion to ASCII whole are left out.
    expect(encodeEmailAddress(p, 'Тестовый канал', 'T', false)).toBe('channel.T@testserver');
    expect(encodeEmailAddress(p, '#test', 'T', false)).toBe('channel.T@testserver');
    expect(encodeEmailAddress('', 'Verona', 'T', false)).toBe('');
  });

  it('is total and pure on failure', () => {
    checkLibraryLaws(
      getStreamEmailAddress,
      state,
      arbParams(
        ['stream_id', 'sender_id'],
        [fc.integer({ min: 0, max: 11 }), fc.integer({ min: 0, max: 20 })],
      ),
    );
    checkWireLaws(getStreamEmailAddress, state, arbWireParams(['stream_id', 'sender_id']));
  });
});
