import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getStreamById } from '../../src/ops/channels/getStreamById';
import { getStreams } from '../../src/ops/live/getStreams';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { expectRead, expectRefused } from '../support/read-ops';
import { as, devRealm, testCtx, wire } from '../support/realm';

const OP = 'get-stream-by-id';
const state = devRealm();

describe('getStreamById', () => {
  it('answers the channel as GET /streams lists it (test_subs.py: test_get_stream_by_id)', () => {
    const body = expectRead(OP, wire(state, 'hamlet', 'GET', '/streams/1'), state);
    const listed = getStreams(state, as('hamlet'), {}, testCtx()).body as unknown as {
      streams: Array<{ stream_id: number }>;
    };
    expect(body['stream']).toEqual(listed.streams.find((s) => s.stream_id === 1));
  });

  it('lets administrators see private channels they are not in (require_content_access=False)', () => {
    expect(
      expectRead(OP, getStreamById(state, as('iago'), { stream_id: 7 }, testCtx()), state)['stream'],
    ).toMatchObject({
      name: 'secrets',
      invite_only: true,
    });
  });

  it('answers Invalid channel ID for a missing or hidden channel', () => {
    expectRefused(OP, getStreamById(state, as('hamlet'), { stream_id: 7 }), state, 'Invalid channel ID');
    expectRefused(OP, getStreamById(state, as('hamlet'), { stream_id: 999 }), state, 'Invalid channel ID');
    expectRefused(OP, getStreamById(state, as('polonius'), { stream_id: 2 }), state, 'Invalid channel ID');
  });

  it('is total and pure on failure', () => {
    checkLibraryLaws(getStreamById, state, arbParams(['stream_id'], [fc.integer({ min: 0, max: 11 })]));
    checkWireLaws(getStreamById, state, arbWireParams(['stream_id']));
  });
});
