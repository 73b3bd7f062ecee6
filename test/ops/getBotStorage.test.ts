import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getBotStorage } from '../../src/ops/bots/getBotStorage';
import { createRealm } from '../../src/core/snapshot/create';
import { seededRandom } from '../../src/core/context';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { expectRead, expectRefused } from '../support/read-ops';
import { as, cast, devSnapshot, wire } from '../support/realm';

const OP = 'get-bot-storage';
const PATH = '/bot_storage';

function realmWithStorage() {
  const snap = devSnapshot();
  snap['bot_storage'] = [
    { bot_id: cast.embeddedBot, key: 'key 1', value: 'value 1' },
    { bot_id: cast.embeddedBot, key: 'key 2', value: 'value 2' },
    { bot_id: cast.defaultBot, key: 'foo', value: 'bar' },
  ];
  return createRealm(snap, { random: seededRandom(1) });
}
const state = realmWithStorage();

describe('getBotStorage', () => {
  it('answers every entry without keys, or null keys (test_bot_storage.py: test_get_storage)', () => {
    for (const params of [{}, { keys: 'null' }]) {
      const body = expectRead(OP, wire(state, 'embeddedBot', 'GET', PATH, params), state);
      expect(body).toEqual({
        result: 'success',
        msg: '',
        storage: { 'key 1': 'value 1', 'key 2': 'value 2' },
      });
    }
  });

  it('answers the listed keys only, and nothing for an empty list', () => {
    const body = expectRead(OP, getBotStorage(state, as('embeddedBot'), { keys: ['key 2'] }), state);
    expect(body['storage']).toEqual({ 'key 2': 'value 2' });
    expect(expectRead(OP, getBotStorage(state, as('embeddedBot'), { keys: [] }), state)['storage']).toEqual(
      {},
    );
    expect(expectRead(OP, wire(state, 'outgoingBot', 'GET', PATH), state)['storage']).toEqual({});
  });

  it("refuses an unknown key, or another bot's key (StateError: Key does not exist.)", () => {
    expectRefused(
      OP,
      wire(state, 'embeddedBot', 'GET', PATH, { keys: '["key 1", "nope"]' }),
      state,
      'Key does not exist.',
    );
    expectRefused(
      OP,
      getBotStorage(state, as('embeddedBot'), { keys: ['foo'] }),
      state,
      'Key does not exist.',
    );
  });

  it('refuses keys that are not a JSON list of strings', () => {
    expectRefused(
      OP,
      wire(state, 'embeddedBot', 'GET', PATH, { keys: 'key 1' }),
      state,
      'keys is not valid JSON',
    );
    expectRefused(
      OP,
      wire(state, 'embeddedBot', 'GET', PATH, { keys: '[1]' }),
      state,
      'keys[0] is not a string',
    );
  });

  it('refuses humans before reading parameters (FL494: BotRequiredError)', () => {
    for (const who of ['iago', 'hamlet', 'polonius'] as const)
      expectRefused(
        OP,
        wire(state, who, 'GET', PATH, { keys: 'not json' }),
        state,
        'Must be a bot user',
        'PERMISSION_DENIED',
      );
  });

  it('refuses anonymous callers', () => {
    expect(wire(state, null, 'GET', PATH).status).toBe(401);
  });

  it('is total and pure on failure', () => {
    checkLibraryLaws(
      getBotStorage,
      state,
      arbParams(['keys'], [fc.array(fc.constantFrom('key 1', 'foo', 'x'))]),
    );
    checkWireLaws(getBotStorage, state, arbWireParams(['keys']));
  });
});
