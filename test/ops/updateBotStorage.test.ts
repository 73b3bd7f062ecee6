import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getBotStorage } from '../../src/ops/bots/getBotStorage';
import { updateBotStorage } from '../../src/ops/bots/updateBotStorage';
import { USER_STATE_SIZE_LIMIT } from '../../src/ops/bots/bot-required';
import { createRealm } from '../../src/core/snapshot/create';
import { seededRandom } from '../../src/core/context';
import type { RealmState } from '../../src/core/state';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { expectOk, expectRefused } from '../support/read-ops';
import { as, cast, devSnapshot, wire } from '../support/realm';

const OP = 'update-bot-storage';
const PATH = '/bot_storage';

function realmWith(entries: Array<{ bot_id: number; key: string; value: string }>): RealmState {
  const snap = devSnapshot();
  snap['bot_storage'] = entries;
  return createRealm(snap, { random: seededRandom(1) });
}
const state = realmWith([{ bot_id: cast.embeddedBot, key: 'key 1', value: 'value 1' }]);
const stored = (s: RealmState, id: number = cast.embeddedBot) =>
  Object.fromEntries((s.botStorage.get(id) ?? []).map((r) => [r.key, r.value]));

describe('updateBotStorage', () => {
  it('stores new keys and replaces existing values (test_bot_storage.py: test_update_storage)', () => {
    const r = wire(state, 'embeddedBot', 'PUT', PATH, { storage: '{"key 1": "new", "key 2": "value 2"}' });
    expect(expectOk(OP, r)).toEqual({ result: 'success', msg: '' });
    expect(r.events).toEqual([]);
    expect(stored(r.state)).toEqual({ 'key 1': 'new', 'key 2': 'value 2' });
    expect(stored(state)).toEqual({ 'key 1': 'value 1' });
    // Read back through GET /bot_storage, as a bot's StateHandler does.
    expect(getBotStorage(r.state, as('embeddedBot'), {}).body).toMatchObject({
      storage: { 'key 1': 'new', 'key 2': 'value 2' },
    });
  });

  it('keeps bots apart, and leaves the state alone when nothing changes', () => {
    const r = updateBotStorage(state, as('defaultBot'), { storage: { a: '1' } });
    expectOk(OP, r);
    expect(stored(r.state, cast.defaultBot)).toEqual({ a: '1' });
    expect(stored(r.state)).toEqual({ 'key 1': 'value 1' });
    expect(updateBotStorage(state, as('embeddedBot'), { storage: { 'key 1': 'value 1' } }).state).toBe(state);
    expect(updateBotStorage(state, as('embeddedBot'), { storage: {} }).state).toBe(state);
  });

  it("refuses a request over Zulip's USER_STATE_SIZE_LIMIT and stores nothing (test_storage_limit)", () => {
    // Zulip counts characters of keys and values; an existing key's old size is replaced.
    const full = realmWith([
      { bot_id: cast.embeddedBot, key: 'fill', value: 'x'.repeat(USER_STATE_SIZE_LIMIT - 4) },
    ]);
    expectRefused(
      OP,
      updateBotStorage(full, as('embeddedBot'), { storage: { 'too much data': 'a few bits too long' } }),
      full,
      `Request exceeds storage limit by 32 characters. The limit is ${USER_STATE_SIZE_LIMIT} characters.`,
    );
    // Replacing the filling entry with a shorter one fits.
    expectOk(OP, updateBotStorage(full, as('embeddedBot'), { storage: { fill: 'short', other: 'x' } }));
    // Another bot has its own budget.
    expectOk(OP, updateBotStorage(full, as('defaultBot'), { storage: { normal: 'abcd' } }));
  });

  it('counts code points, as Python len() does', () => {
    const nearly = realmWith([
      { bot_id: cast.embeddedBot, key: 'k', value: 'x'.repeat(USER_STATE_SIZE_LIMIT - 2) },
    ]);
    expectOk(OP, updateBotStorage(nearly, as('embeddedBot'), { storage: { '😀': '' } }));
  });

  it('refuses a missing or malformed storage', () => {
    expectRefused(
      OP,
      wire(state, 'embeddedBot', 'PUT', PATH),
      state,
      "Missing 'storage' argument",
      'REQUEST_VARIABLE_MISSING',
    );
    expectRefused(
      OP,
      wire(state, 'embeddedBot', 'PUT', PATH, { storage: 'x' }),
      state,
      'storage is not valid JSON',
    );
    expectRefused(
      OP,
      wire(state, 'embeddedBot', 'PUT', PATH, { storage: '[]' }),
      state,
      'storage is not a dict',
    );
    expectRefused(
      OP,
      wire(state, 'embeddedBot', 'PUT', PATH, { storage: '{"a": 1}' }),
      state,
      'storage["a"] is not a string',
    );
  });

  it('refuses humans before reading parameters (FL494: BotRequiredError)', () => {
    for (const who of ['desdemona', 'hamlet', 'polonius'] as const)
      expectRefused(OP, wire(state, who, 'PUT', PATH), state, 'Must be a bot user', 'PERMISSION_DENIED');
  });

  it('is total and pure on failure', () => {
    const shaped = [fc.dictionary(fc.constantFrom('key 1', 'a', 'b'), fc.string({ maxLength: 4 }))];
    checkLibraryLaws(updateBotStorage, state, arbParams(['storage'], shaped));
    checkWireLaws(updateBotStorage, state, arbWireParams(['storage']));
  });
});
