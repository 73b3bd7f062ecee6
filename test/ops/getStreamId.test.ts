import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getStreamId } from '../../src/ops/channels/getStreamId';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { expectRead, expectRefused } from '../support/read-ops';
import { as, devRealm, wire } from '../support/realm';

const OP = 'get-stream-id';
const state = devRealm();

describe('getStreamId', () => {
  it('finds a channel by name, case-insensitively (test_subs.py: test_get_stream_id)', () => {
    expect(
      expectRead(OP, wire(state, 'hamlet', 'GET', '/get_stream_id', { stream: 'Verona' }), state),
    ).toEqual({
      result: 'success',
      msg: '',
      stream_id: 1,
    });
    expect(getStreamId(state, as('hamlet'), { stream: 'DENMARK' }).body).toMatchObject({ stream_id: 2 });
    // Archived channels are found; a subscriber finds its private channel.
    expect(getStreamId(state, as('hamlet'), { stream: 'old announcements' }).body).toMatchObject({
      stream_id: 8,
    });
    expect(getStreamId(state, as('cordelia'), { stream: 'secrets' }).body).toMatchObject({ stream_id: 7 });
  });

  it('answers Invalid channel name for a missing or inaccessible channel alike (access_stream_by_name)', () => {
    expectRefused(
      OP,
      getStreamId(state, as('hamlet'), { stream: 'nope' }),
      state,
      "Invalid channel name 'nope'",
    );
    expectRefused(
      OP,
      getStreamId(state, as('hamlet'), { stream: 'secrets' }),
      state,
      "Invalid channel name 'secrets'",
    );
    // A guest sees no public channel it is not subscribed to.
    expectRefused(
      OP,
      getStreamId(state, as('polonius'), { stream: 'Denmark' }),
      state,
      "Invalid channel name 'Denmark'",
    );
    expect(getStreamId(state, as('polonius'), { stream: 'Rome' }).status).toBe(200);
  });

  it('requires the stream parameter', () => {
    expectRefused(
      OP,
      wire(state, 'hamlet', 'GET', '/get_stream_id'),
      state,
      "Missing 'stream' argument",
      'REQUEST_VARIABLE_MISSING',
    );
  });

  it('is total and pure on failure', () => {
    const names = fc.constantFrom('Verona', 'secrets', 'nope', '');
    checkLibraryLaws(getStreamId, state, arbParams(['stream'], [names]));
    checkWireLaws(getStreamId, state, arbWireParams(['stream'], [names]));
  });
});
