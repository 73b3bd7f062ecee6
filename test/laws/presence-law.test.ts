/**
 * The presence law (the register law for `presences`, which Zulip keeps current by polling rather
 * than by events): a client that registered, then polls `POST /users/me/presence` with the
 * `presence_last_update_id` it holds and merges the answer, holds exactly what a fresh register
 * answers — whatever pings happened in between. And no ping ever changes the realm.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { registerState } from '../../src/core/register/register-state';
import { PresenceTable } from '../../src/host/presence-table';
import { updatePresence } from '../../src/ops/presence/updatePresence';
import { cast, devRealm, testCtx, wire, type CastName } from '../support/realm';
import { fcParams } from './runs';

const state = devRealm();
const HUMANS = [cast.iago, cast.hamlet, cast.cordelia, cast.othello, cast.polonius];
const START = 1795219200;

const arbPing = fc.record({
  user: fc.constantFrom(...HUMANS),
  status: fc.constantFrom('active' as const, 'idle' as const),
  dt: fc.integer({ min: 0, max: 200 }),
});

type Presences = Record<string, unknown>;

describe('presence law', () => {
  it('register + incremental polls = register after', () => {
    fc.assert(
      fc.property(
        fc.array(arbPing, { maxLength: 20 }),
        fc.array(arbPing, { maxLength: 20 }),
        (before, after) => {
          const table = new PresenceTable();
          let now = START;
          const run = (pings: typeof before) => {
            for (const p of pings) {
              now += p.dt;
              const r = updatePresence(
                state,
                { userId: p.user },
                { status: p.status, ping_only: true },
                testCtx({ now, presence: table }),
              );
              expect(r.state).toBe(state);
              table.apply(r.effects);
            }
          };
          run(before);
          const options = { event_types: ['presence'], slim_presence: true, presence: table };
          const first = registerState(state, cast.hamlet, options, now);
          run(after);
          // The poll is itself a ping: its answer includes the poller's own new row.
          const poll = updatePresence(
            state,
            { userId: cast.hamlet },
            { status: 'idle', last_update_id: first['presence_last_update_id'] as number },
            testCtx({ now, presence: table }),
          );
          table.apply(poll.effects);
          const merged = { ...(first['presences'] as Presences), ...(poll.body['presences'] as Presences) };
          const fresh = registerState(state, cast.hamlet, options, now);
          expect(merged).toEqual(fresh['presences']);
          expect(poll.body['presence_last_update_id']).toBe(fresh['presence_last_update_id']);
        },
      ),
      fcParams(100),
    );
  });
});

/** Totality for the everyday endpoints (live operations are outside `OPERATIONS`' laws). */
const ROUTES: ReadonlyArray<readonly [string, string]> = [
  ['POST', '/users/me/presence'],
  ['GET', '/realm/presence'],
  ['GET', '/users/5/presence'],
  ['GET', '/users/hamlet@zulip.com/presence'],
  ['POST', '/typing'],
  ['GET', '/realm/emoji'],
  ['GET', '/users/me/alert_words'],
  ['GET', '/users/4/subscriptions/1'],
];
const NAMES = [
  'status',
  'ping_only',
  'last_update_id',
  'slim_presence',
  'history_limit_days',
  'type',
  'op',
  'to',
  'stream_id',
  'topic',
  'x',
];
const VALUES = [
  '',
  'active',
  'idle',
  'true',
  'false',
  '1',
  '-1',
  '5',
  '[5]',
  '[]',
  '[9999]',
  'start',
  'stop',
  'channel',
  'direct',
  'null',
  '{"a":1}',
  '"s"',
  'é',
];

describe('everyday endpoints: totality and failure purity', () => {
  it('every request answers a Zulip status, and failures leave the state as it was', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ROUTES),
        fc.constantFrom<CastName>('hamlet', 'polonius', 'defaultBot', 'iago'),
        fc.dictionary(fc.constantFrom(...NAMES), fc.constantFrom(...VALUES), { maxKeys: 5 }),
        ([method, path], who, params) => {
          const r = wire(state, who, method, path, params, testCtx({ presence: new PresenceTable() }));
          expect([200, 400, 401, 403, 404, 405]).toContain(r.status);
          expect(r.state).toBe(state);
          if (r.status !== 200) expect(r.events).toEqual([]);
        },
      ),
      fcParams(200),
    );
  });
});
