/**
 * Small assertions shared by the issue-24 operation tests (read endpoints, flags by id, the
 * mark-as-read family, bot storage): a success validated against Zulip's schema for the
 * operation, and a refusal with Zulip's exact body that leaves the state untouched.
 */
import { expect } from 'vitest';
import type { OpResult } from '../../src/core/result';
import type { RealmState } from '../../src/core/state';
import { expectValidEvent, expectValidResponse } from './openapi';

/** A 200 whose body matches the operation's schema and whose events match theirs. */
export function expectOk(operationId: string, r: OpResult): Record<string, unknown> {
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expectValidResponse(operationId, 200, r.body);
  for (const e of r.events) expectValidEvent(e.event);
  expect(r.effects).toEqual([]);
  return r.body as Record<string, unknown>;
}

/** A read-only success: the same state and no events. */
export function expectRead(operationId: string, r: OpResult, before: RealmState): Record<string, unknown> {
  const body = expectOk(operationId, r);
  expect(r.state).toBe(before);
  expect(r.events).toEqual([]);
  return body;
}

/** Zulip's error body; the same state, no events, no effects. */
export function expectRefused(
  operationId: string,
  r: OpResult,
  before: RealmState,
  msg: string,
  code = 'BAD_REQUEST',
  status = 400,
): void {
  expect(r.body).toMatchObject({ result: 'error', msg, code });
  expect(r.status).toBe(status);
  expectValidResponse(operationId, status, r.body);
  expect(r.state).toBe(before);
  expect(r.events).toEqual([]);
  expect(r.effects).toEqual([]);
}
