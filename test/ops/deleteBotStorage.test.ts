import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deleteBotStorage } from '../../src/ops/bots/deleteBotStorage';
import { createRealm } from '../../src/core/snapshot/create';
import { seededRandom } from '../../src/core/context';
import type { OpResult } from '../../src/core/result';
import type { RealmState } from '../../src/core/state';
import { expectValidResponse } from '../support/openapi';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { as, cast, devSnapshot, testCtx, wire } from '../support/realm';

const OP = 'remove-bot-storage';
const PATH = '/bot_storage';

/** The embedded bot's storage as in Zulip's test: four keys. */
function realmWithStorage(): RealmState {
  const snap = devSnapshot();
  snap['bot_storage'] = [
    ...[1, 2, 3, 4].map((i) => ({ bot_id: cast.embeddedBot, key: `key ${i}`, value: `value ${i}` })),
    { bot_id: cast.defaultBot, key: 'foo', value: 'bar' },
  ];
  return createRealm(snap, { random: seededRandom(1) });
}
const state = realmWithStorage();
const keysOf = (s: RealmState, id: number) => (s.botStorage.get(id) ?? []).map((r) => r.key);

function ok(r: OpResult): void {
  expect(r.status).toBe(200);
  expectValidResponse(OP, 200, r.body);
  expect(r.events).toEqual([]);
  expect(r.effects).toEqual([]);
}

function refused(r: OpResult, before: RealmState, msg: string, code = 'BAD_REQUEST', status = 400): void {
  expect(r.status).toBe(status);
  expect(r.body).toEqual({ result: 'error', msg, code });
  expectValidResponse(OP, status, r.body);
  expect(r.state).toBe(before);
  expect(r.events).toEqual([]);
  expect(r.effects).toEqual([]);
}

describe('deleteBotStorage', () => {
  it('removes the listed keys (scenario: remove some keys)', () => {
    const r = wire(state, 'embeddedBot', 'DELETE', PATH, { keys: '["key 1", "key 2"]' });
    ok(r);
    expect(r.body).toEqual({ result: 'success', msg: '' });
    expect(r.state.botStorage.get(cast.embeddedBot)).toEqual([
      { bot_id: cast.embeddedBot, key: 'key 3', value: 'value 3' },
      { bot_id: cast.embeddedBot, key: 'key 4', value: 'value 4' },
    ]);
    expect(keysOf(r.state, cast.defaultBot)).toEqual(['foo']);
    expect(keysOf(state, cast.embeddedBot)).toHaveLength(4);
  });

  it('removes everything without keys (scenarios: no keys, keys null)', () => {
    for (const params of [{}, { keys: 'null' }]) {
      const r = wire(state, 'embeddedBot', 'DELETE', PATH, params);
      ok(r);
      expect(r.state.botStorage.get(cast.embeddedBot)).toBeUndefined();
      expect(keysOf(r.state, cast.defaultBot)).toEqual(['foo']);
    }
    const lib = deleteBotStorage(state, as('embeddedBot'), { keys: null }, testCtx());
    ok(lib);
    expect(lib.state.botStorage.get(cast.embeddedBot)).toBeUndefined();
  });

  it('removes the last listed key and leaves no empty list behind', () => {
    const r = deleteBotStorage(state, as('defaultBot'), { keys: ['foo'] });
    ok(r);
    expect(r.state.botStorage.get(cast.defaultBot)).toBeUndefined();
  });

  it('empties an embedded bot storage {a: 1} (scenario: bots use it too)', () => {
    const snap = devSnapshot();
    snap['bot_storage'] = [{ bot_id: cast.embeddedBot, key: 'a', value: '1' }];
    const s = createRealm(snap, { random: seededRandom(1) });
    const r = wire(s, 'embeddedBot', 'DELETE', PATH, { keys: '["a"]' });
    ok(r);
    expect(r.state.botStorage.get(cast.embeddedBot)).toBeUndefined();
  });

  it('treats an empty list and empty storage as no-ops (same state)', () => {
    const empty = deleteBotStorage(state, as('embeddedBot'), { keys: [] });
    ok(empty);
    expect(empty.state).toBe(state);
    const none = wire(state, 'outgoingBot', 'DELETE', PATH);
    ok(none);
    expect(none.state).toBe(state);
  });

  it('refuses an unknown key and deletes nothing (scenario: key 3 and a nonexistent key)', () => {
    refused(
      wire(state, 'embeddedBot', 'DELETE', PATH, { keys: '["key 3", "nonexistent key"]' }),
      state,
      'Key does not exist.',
    );
    // Another bot's key is unknown to this bot.
    refused(deleteBotStorage(state, as('embeddedBot'), { keys: ['foo'] }), state, 'Key does not exist.');
    refused(deleteBotStorage(state, as('outgoingBot'), { keys: ['x'] }), state, 'Key does not exist.');
  });

  it('refuses a key listed twice (scenario: repeated key)', () => {
    refused(
      wire(state, 'embeddedBot', 'DELETE', PATH, { keys: '["key 1", "key 1"]' }),
      state,
      'Key does not exist.',
    );
  });

  it('refuses keys that are not JSON or not strings (scenarios: keys not JSON, element not a string)', () => {
    refused(wire(state, 'embeddedBot', 'DELETE', PATH, { keys: 'key 1' }), state, 'keys is not valid JSON');
    refused(wire(state, 'embeddedBot', 'DELETE', PATH, { keys: '' }), state, 'keys is not valid JSON');
    refused(wire(state, 'embeddedBot', 'DELETE', PATH, { keys: '[1]' }), state, 'keys[0] is not a string');
    refused(
      wire(state, 'embeddedBot', 'DELETE', PATH, { keys: '["a", null]' }),
      state,
      'keys[1] is not a string',
    );
    refused(wire(state, 'embeddedBot', 'DELETE', PATH, { keys: '"key 1"' }), state, 'keys is not a list');
    refused(wire(state, 'embeddedBot', 'DELETE', PATH, { keys: '{"a": 1}' }), state, 'keys is not a list');
  });

  it('refuses humans of every role before reading parameters (FL494: bots only)', () => {
    // Zulip's TestServiceBotStateHandler.test_bot_storage_restrictions (zerver/tests): a human's
    // DELETE /bot_storage is `assert_json_error(result, "Must be a bot user")` (status 400), code
    // PERMISSION_DENIED (BotRequiredError, Zulip PR #38786).
    for (const who of ['desdemona', 'iago', 'shiva', 'hamlet', 'othello', 'polonius'] as const) {
      refused(
        wire(state, who, 'DELETE', PATH, { keys: 'not json' }),
        state,
        'Must be a bot user',
        'PERMISSION_DENIED',
      );
    }
  });

  it('serves every kind of bot that can authenticate', () => {
    for (const who of ['defaultBot', 'outgoingBot', 'embeddedBot', 'welcomeBot'] as const)
      ok(wire(state, who, 'DELETE', PATH, { keys: '[]' }));
  });

  it('reports unknown parameters as ignored', () => {
    const r = wire(state, 'embeddedBot', 'DELETE', PATH, { keys: '[]', storage: '{}' });
    expect(r.body).toEqual({ result: 'success', msg: '', ignored_parameters_unsupported: ['storage'] });
    expectValidResponse(OP, 200, r.body);
  });

  it('refuses anonymous callers', () => {
    expect(deleteBotStorage(state, { anonymous: true }).status).toBe(401);
    expect(wire(state, null, 'DELETE', PATH).status).toBe(401);
  });

  it('is total and pure on failure (library)', () => {
    const shaped = [
      fc.array(fc.constantFrom('key 1', 'key 2', 'key 3', 'key 4', 'foo', 'x')),
      fc.constant(null),
    ];
    checkLibraryLaws(deleteBotStorage, state, arbParams(['keys'], shaped));
  });

  it('is total and pure on failure (wire)', () => {
    const shaped = [fc.array(fc.constantFrom('key 1', 'key 2', 'foo', 'x')).map((k) => JSON.stringify(k))];
    checkWireLaws(deleteBotStorage, state, arbWireParams(['keys'], shaped));
  });

  it('deletes exactly the listed keys when they all exist (property)', () => {
    const all = ['key 1', 'key 2', 'key 3', 'key 4'];
    fc.assert(
      fc.property(fc.subarray(all), (keys) => {
        const r = deleteBotStorage(state, as('embeddedBot'), { keys });
        expect(r.status).toBe(200);
        expect(keysOf(r.state, cast.embeddedBot)).toEqual(all.filter((k) => !keys.includes(k)));
      }),
      { numRuns: 50 },
    );
  });
});
