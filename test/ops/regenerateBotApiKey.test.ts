import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/context';
import type { OpResult } from '../../src/core/result';
import { createRealm } from '../../src/core/snapshot/create';
import type { RealmState } from '../../src/core/state';
import { regenerateBotApiKey } from '../../src/ops/bots/regenerateBotApiKey';
import { expectValidEvent, expectValidResponse } from '../support/openapi';
import { arbParams, arbWireParams, CAST_NAMES, checkLibraryLaws, expectLawful } from '../support/op-laws';
import { as, cast, devRealm, devSnapshot, testCtx, wire, type CastName } from '../support/realm';
import { handleApiRequest } from '../../src/wire/handle';
import { basicAuthHeader } from '../../src/wire/auth';
import { loose } from '../support/loose';

const OP = 'regenerate-bot-api-key';
const state = devRealm();
const regenerate = (s: RealmState, who: CastName, botId: number, params: Record<string, string> = {}) =>
  wire(s, who, 'POST', `/bots/${botId}/api_key/regenerate`, params);

function expectError(r: OpResult, before: RealmState, msg: string, code = 'BAD_REQUEST'): void {
  expect(r.body).toEqual({ result: 'error', msg, code });
  expect(r.status).toBe(400);
  expectValidResponse(OP, 400, r.body);
  expect(r.state).toBe(before);
  expect(r.events).toEqual([]);
  expect(r.effects).toEqual([]);
}

/** A success: a fresh 32-character key, stored and indexed, announced with the given recipients. */
function regenerated(r: OpResult, before: RealmState, botId: number, recipients: number[]): string {
  expect(r.status).toBe(200);
  expectValidResponse(OP, 200, r.body);
  const key = r.body['api_key'] as string;
  expect(key).toMatch(/^[A-Za-z0-9]{32}$/);
  const old = before.users.get(botId)!.api_key;
  expect(key).not.toBe(old);
  expect(r.state.users.get(botId)!.api_key).toBe(key);
  expect(r.state.usersByApiKey.get(key)).toBe(botId);
  expect(r.state.usersByApiKey.get(old)).toBeUndefined();
  expect(r.events).toEqual([
    { event: { type: 'realm_bot', op: 'update', bot: { user_id: botId, api_key: key } }, users: recipients },
  ]);
  expectValidEvent(r.events[0]!.event);
  return key;
}

/** Calls GET /users/me with a bot's email and key. */
const whoAmI = (s: RealmState, email: string, key: string) =>
  handleApiRequest(
    s,
    { method: 'GET', url: '/api/v1/users/me', headers: { authorization: basicAuthHeader(email, key) } },
    testCtx(),
  );

describe('regenerateBotApiKey', () => {
  it('lets the owner replace the key; the old one stops working (scenario: owner regenerates)', () => {
    const r = regenerate(state, 'hamlet', cast.defaultBot);
    const key = regenerated(r, state, cast.defaultBot, [1, 2, 4]);
    expect(r.body).toEqual({ result: 'success', msg: '', api_key: key });
    const old = state.users.get(cast.defaultBot)!.api_key;
    expect(whoAmI(state, 'default-bot@zulip.com', old).status).toBe(200);
    const refused = whoAmI(r.state, 'default-bot@zulip.com', old);
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ msg: 'Invalid API key' });
    expect(whoAmI(r.state, 'default-bot@zulip.com', key).body).toMatchObject({ user_id: cast.defaultBot });
    // Nothing else changed.
    expect(r.state.users.get(cast.hamlet)).toBe(state.users.get(cast.hamlet));
    expect(r.effects).toEqual([]);
  });

  it('draws keys from the context random source', () => {
    const a = regenerateBotApiKey(state, as('hamlet'), { bot_id: 11 }, testCtx({ random: seededRandom(7) }));
    const b = regenerateBotApiKey(state, as('hamlet'), { bot_id: 11 }, testCtx({ random: seededRandom(7) }));
    const c = regenerateBotApiKey(state, as('hamlet'), { bot_id: 11 }, testCtx({ random: seededRandom(8) }));
    expect(a.body['api_key']).toBe(b.body['api_key']);
    expect(a.body['api_key']).not.toBe(c.body['api_key']);
  });

  it('lets administrators regenerate any bot (scenario: admin may regenerate any bot)', () => {
    regenerated(regenerate(state, 'iago', cast.defaultBot), state, cast.defaultBot, [1, 2, 4]);
    regenerated(regenerate(state, 'desdemona', cast.embeddedBot), state, cast.embeddedBot, [1, 2, 6]);
    regenerated(
      regenerateBotApiKey(state, as('iago'), { bot_id: cast.outgoingBot }),
      state,
      cast.outgoingBot,
      [1, 2],
    );
    // A bot without an owner: only the administrators hear of it.
    regenerated(regenerate(state, 'iago', cast.welcomeBot), state, cast.welcomeBot, [1, 2]);
  });

  it('refuses other members (Othello regenerating Hamlet’s bot)', () => {
    expectError(regenerate(state, 'othello', cast.defaultBot), state, 'Insufficient permission');
    expectError(regenerate(state, 'shiva', cast.defaultBot), state, 'Insufficient permission');
  });

  it('refuses unknown ids and humans (scenario: unknown id)', () => {
    expectError(regenerate(state, 'hamlet', 1000), state, 'No such bot');
    expectError(regenerate(state, 'iago', cast.hamlet), state, 'No such bot');
    expectError(regenerateBotApiKey(state, as('iago'), { bot_id: 0 }), state, 'No such bot');
  });

  it('refuses guests first, then bots (scenarios: guests rejected first, bots rejected)', () => {
    expectError(regenerate(state, 'polonius', 1000), state, 'Not allowed for guest users');
    expectError(
      regenerate(state, 'defaultBot', cast.defaultBot),
      state,
      'This endpoint does not accept bot requests.',
    );
    expectError(
      loose(regenerateBotApiKey)(state, as('polonius'), { bot_id: 'x' }),
      state,
      'Not allowed for guest users',
    );
  });

  it('reports parameters as ignored (scenario: parameters are reported)', () => {
    const r = regenerate(state, 'hamlet', cast.defaultBot, { x: '1' });
    expect(r.body).toEqual({
      result: 'success',
      msg: '',
      api_key: r.body['api_key'],
      ignored_parameters_unsupported: ['x'],
    });
    regenerated(r, state, cast.defaultBot, [1, 2, 4]);
  });

  it('checks bot_id in library calls and routes only digits on the wire', () => {
    expect(loose(regenerateBotApiKey)(state, as('hamlet'), { bot_id: '11' }).body).toEqual({
      result: 'error',
      msg: 'bot_id is not an integer',
      code: 'BAD_REQUEST',
    });
    expect(loose(regenerateBotApiKey)(state, as('hamlet'), {}).body).toMatchObject({
      msg: "Missing 'bot_id' argument",
    });
    expect(wire(state, 'hamlet', 'POST', '/bots/abc/api_key/regenerate').status).toBe(404);
  });

  it('forgets the bot’s push devices', () => {
    const snap = devSnapshot();
    (snap['push_devices'] as unknown[]).push(
      { user_id: 11, kind: 'fcm', token: 'bot-token-local', registered_with_bouncer: false },
      {
        user_id: 11,
        kind: 'apns',
        token: 'bot-token-remote',
        ios_app_id: 'org.zulip.Zulip',
        registered_with_bouncer: true,
      },
    );
    (snap['server'] as Record<string, unknown>)['push_notifications'] = 'bouncer';
    const s = createRealm(snap, { random: seededRandom(1) });
    const r = regenerate(s, 'hamlet', 11);
    regenerated(r, s, 11, [1, 2, 4]);
    expect(r.state.pushDevices.get(11)).toBeUndefined();
    expect(r.state.pushDevices.get(4)).toBe(s.pushDevices.get(4));
    expect(r.effects).toEqual([
      { type: 'unregister_push_device', user_id: 11, kind: 'apns', token: 'bot-token-remote' },
    ]);
  });

  it('never throws and fails purely (property)', () => {
    const shaped = [fc.integer({ min: -1, max: 20 }), fc.constantFrom(11, 12, 13, 16)];
    checkLibraryLaws(regenerateBotApiKey, state, arbParams(['bot_id'], shaped), 150);
    // The wire takes bot_id from the path: vary the caller, the path id and stray parameters.
    fc.assert(
      fc.property(
        fc.constantFrom<CastName | null>(...CAST_NAMES, null),
        fc.integer({ min: 0, max: 20 }),
        arbWireParams(['bot_id', 'x']),
        (who, botId, params) => {
          expectLawful(
            regenerateBotApiKey,
            state,
            wire(state, who, 'POST', `/bots/${botId}/api_key/regenerate`, params),
          );
        },
      ),
      { numRuns: 80 },
    );
  });
});
