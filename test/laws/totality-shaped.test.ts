import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Actor, DefinedOperation } from '../../src/core/operation';
import type { OpResult } from '../../src/core/result';
import type { RealmState } from '../../src/core/state';
import { OPERATIONS } from '../../src/ops/index';
import { basicAuthHeader } from '../../src/wire/auth';
import { matchRoute } from '../../src/wire/routes';
import { handleApiRequest } from '../../src/wire/handle';
import { expectValidEvent, expectValidResponse } from '../support/openapi';
import { testCtx } from '../support/realm';
import { fcParams } from './runs';
import { arbActor, arbRealmCase, arbShapedParams, arbShapedWireParams } from './shapes';
import { loose } from '../support/loose';
import { encodePathSegment } from '../support/path-segment';

/**
 * Totality over the whole input space, shaped: every operation, on arbitrary valid realms (the dev
 * fixture and random snapshots), called by arbitrary actors (every role, bots, deactivated users,
 * unknown ids, the spectator) with schema-shaped parameters that are often bent (wrong types, huge
 * numbers, unicode, empty strings, duplicates), through the library call and through the wire.
 *
 * Laws: no exception; a 2xx or 4xx status; bodies and events valid against Zulip's schemas;
 * an error returns the same state object with no events and no effects; every event goes to
 * existing users of the resulting realm (not always active ones: Zulip itself addresses a bot's
 * deactivated owner in `realm_bot` events; nobody receives those, as a deactivated user has no queue).
 */
function expectLawful(op: DefinedOperation, before: RealmState, r: OpResult, viaWire: boolean): void {
  expect(r.status === 200 || (r.status >= 400 && r.status < 500)).toBe(true);
  expect(JSON.parse(JSON.stringify(r.body))).toEqual(r.body);
  if (r.body.result === 'error') {
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.state).toBe(before);
    expect(r.events).toEqual([]);
    expect(r.effects).toEqual([]);
    // Authentication errors come from the wire layer, not the operation's documented errors.
    if (!viaWire || r.status !== 401) expectValidResponse(op.def.operationId, r.status, r.body);
    return;
  }
  expect(r.status).toBe(200);
  expectValidResponse(op.def.operationId, r.status, r.body);
  for (const e of r.events) {
    expectValidEvent(e.event);
    for (const id of e.users) expect(r.state.users.has(id), `recipient ${id} is a user`).toBe(true);
  }
}

function callWire(
  op: DefinedOperation,
  state: RealmState,
  actor: Actor,
  params: Record<string, string>,
): { op: DefinedOperation; result: OpResult } {
  const { method } = op.def;
  // Path parameters come from the params when present, else a small id.
  let path = op.def.path;
  const query = { ...params };
  for (const name of op.def.pathParams ?? []) {
    const value = query[name] ?? '1';
    delete query[name];
    path = path.replace(`{${name}}`, encodePathSegment(value));
  }
  const user = 'userId' in actor ? state.users.get(actor.userId) : undefined;
  const headers: Record<string, string> = user
    ? { authorization: basicAuthHeader(user.delivery_email, user.api_key) }
    : {};
  const qs = new URLSearchParams(query).toString();
  const isGet = method === 'GET';
  const match = matchRoute(method, path.replace(/\/+$/, '') || '/');
  const routed = match.kind === 'found' ? (match.op as DefinedOperation) : op;
  const result = handleApiRequest(
    state,
    { method, url: `/api/v1${path}${isGet && qs ? `?${qs}` : ''}`, headers, ...(isGet ? {} : { body: qs }) },
    testCtx(),
  );
  return { op: routed, result };
}

describe.each(OPERATIONS.map((op) => [op.def.name, op] as const))('%s (shaped)', (_name, op) => {
  it('library: never throws on any realm, actor and shaped params; errors change nothing; deterministic', () => {
    fc.assert(
      fc.property(
        arbRealmCase().chain((realm) =>
          fc.tuple(fc.constant(realm), arbActor(realm.state), arbShapedParams(op)),
        ),
        ([{ state }, actor, params]) => {
          const input = JSON.stringify(params);
          const r = loose(op)(state, actor, params, testCtx());
          expectLawful(op, state, r, false);
          // Pure: the params are not modified, and the same call gives the same answer.
          expect(JSON.stringify(params)).toBe(input);
          const again = loose(op)(state, actor, params, testCtx());
          expect({
            status: again.status,
            body: again.body,
            events: again.events,
            effects: again.effects,
          }).toEqual({
            status: r.status,
            body: r.body,
            events: r.events,
            effects: r.effects,
          });
        },
      ),
      fcParams(20),
    );
  });

  it('wire: never throws on any realm, actor and shaped wire params; errors change nothing', () => {
    fc.assert(
      fc.property(
        arbRealmCase().chain((realm) =>
          fc.tuple(fc.constant(realm), arbActor(realm.state), arbShapedWireParams(op)),
        ),
        ([{ state }, actor, params]) => {
          // A fuzzed path segment may route to a neighbour (an empty stream id is GET /streams, a
          // digits-only email is GET /users/{user_id}): hold the answer to the routed operation's schema.
          const { op: routed, result } = callWire(op, state, actor, params);
          expectLawful(routed, state, result, true);
        },
      ),
      fcParams(15),
    );
  });
});
