/**
 * Shared fast-check laws for one operation: totality (no input makes it throw) and failure purity
 * (an error returns the same state, no events, no effects), for the library call and the wire.
 * Every body produced along the way is checked against Zulip's schemas.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { Actor, DefinedOperation } from '../../src/core/operation';
import type { OpResult } from '../../src/core/result';
import type { RealmState } from '../../src/core/state';
import { expectValidEvent, expectValidResponse } from './openapi';
import { cast, testCtx, wire, type CastName } from './realm';
import { loose } from './loose';

/** Every cast member, an unknown user id and the anonymous spectator. */
export const ACTORS: readonly Actor[] = [
  ...Object.values(cast).map((userId) => ({ userId })),
  { userId: 999 },
  { anonymous: true },
];
export const CAST_NAMES = Object.keys(cast) as CastName[];

/** Checks the laws every result must satisfy. */
export function expectLawful(op: DefinedOperation, before: RealmState, r: OpResult): void {
  expectValidResponse(op.def.operationId, r.status, r.body);
  for (const e of r.events) expectValidEvent(e.event);
  if (r.status >= 400) {
    expect(r.state).toBe(before);
    expect(r.events).toEqual([]);
    expect(r.effects).toEqual([]);
  }
}

/** Arbitrary decoded params: anything at all, and objects with the operation's names holding anything. */
export function arbParams(
  names: readonly string[],
  shaped: fc.Arbitrary<unknown>[] = [],
): fc.Arbitrary<unknown> {
  const value = fc.oneof(fc.anything(), ...shaped);
  const record = fc.dictionary(fc.constantFrom(...names, 'extra'), value, { maxKeys: names.length + 1 });
  return fc.oneof(fc.anything(), record);
}

/** Arbitrary wire params: strings for the operation's names (JSON-ish or not). */
export function arbWireParams(
  names: readonly string[],
  shaped: fc.Arbitrary<string>[] = [],
): fc.Arbitrary<Record<string, string>> {
  const text = fc.oneof(
    fc.string(),
    fc.json(),
    fc.constantFrom('', 'null', '[]', 'true', '1', '"x"'),
    ...shaped,
  );
  return fc.dictionary(fc.constantFrom(...names, 'extra'), text, { maxKeys: names.length + 1 });
}

export function checkLibraryLaws(
  op: DefinedOperation,
  state: RealmState,
  params: fc.Arbitrary<unknown>,
  numRuns = 150,
): void {
  fc.assert(
    fc.property(fc.constantFrom(...ACTORS), params, (actor, p) => {
      expectLawful(op, state, loose(op)(state, actor, p, testCtx()));
    }),
    { numRuns },
  );
}

export function checkWireLaws(
  op: DefinedOperation,
  state: RealmState,
  params: fc.Arbitrary<Record<string, string>>,
  numRuns = 100,
): void {
  const { method, path } = op.def;
  fc.assert(
    fc.property(fc.constantFrom<CastName | null>(...CAST_NAMES, null), params, (who, p) => {
      expectLawful(op, state, wire(state, who, method, path, p));
    }),
    { numRuns },
  );
}
