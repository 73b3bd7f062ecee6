import { expect } from 'vitest';
import type { OpResult } from '../../src/core/result';
import type { RealmState } from '../../src/core/state';
import { expectValidResponse } from './openapi';

/**
 * A refused call: Zulip's exact error body and status (validated against the endpoint's schema),
 * the same state object, no events and no effects.
 */
export function expectRefused(
  operationId: string,
  r: OpResult,
  before: RealmState,
  msg: string,
  code = 'BAD_REQUEST',
  extra: object = {},
): void {
  expect(r.body).toEqual({ result: 'error', msg, code, ...extra });
  expect(r.status).toBe(400);
  expectValidResponse(operationId, 400, r.body);
  expect(r.state).toBe(before);
  expect(r.events).toEqual([]);
  expect(r.effects).toEqual([]);
}
