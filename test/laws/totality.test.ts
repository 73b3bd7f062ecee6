import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/ops/index';
import type { Actor } from '../../src/core/operation';
import { cast, devRealm, testCtx } from '../support/realm';
import { fcParams } from './runs';
import { loose } from '../support/loose';

/**
 * Totality and failure purity for all 20 operations: no params and no actor make an operation
 * throw, and every error answer returns the same state object with no events and no effects.
 */
const state = devRealm();
const actors: Actor[] = [
  ...Object.values(cast).map((userId) => ({ userId })),
  { anonymous: true },
  { userId: 999 },
];

/** Values shaped like Zulip params but often wrong: the names ops read, with odd values. */
const oddValue = fc.oneof(
  fc.anything(),
  fc.constantFrom(
    '',
    ' ',
    'true',
    '[]',
    '{}',
    'null',
    '-1',
    '1e309',
    '\u0000',
    '💥'.repeat(70),
    'general chat',
    '(no topic)',
  ),
  fc.integer({ min: -3, max: 20 }),
  fc.constantFrom(0, -1, 2 ** 31, Number.MAX_SAFE_INTEGER, 1.5, Number.NaN),
  fc.array(fc.oneof(fc.integer({ min: -1, max: 20 }), fc.string({ maxLength: 3 })), { maxLength: 4 }),
  fc.record(
    { new: fc.oneof(fc.integer({ min: -1, max: 110 }), fc.anything()), old: fc.anything() },
    { requiredKeys: [] },
  ),
);

describe.each(OPERATIONS.map((op) => [op.def.name, op] as const))('%s', (_name, op) => {
  const names = [...op.def.params.map((p) => p.name), 'unknown_param'];
  const params = fc.oneof(fc.anything(), fc.dictionary(fc.constantFrom(...names), oddValue, { maxKeys: 6 }));

  it('never throws, and refuses without changing anything', () => {
    fc.assert(
      fc.property(fc.constantFrom(...actors), params, (actor, p) => {
        const r = loose(op)(state, actor, p, testCtx());
        expect(typeof r.status).toBe('number');
        expect(['success', 'error']).toContain(r.body.result);
        if (r.body.result === 'error') {
          expect(r.state).toBe(state);
          expect(r.events).toEqual([]);
          expect(r.effects).toEqual([]);
          expect(r.status).toBeGreaterThanOrEqual(400);
          expect(r.status).toBeLessThan(500);
        }
        // The answer is plain JSON.
        expect(JSON.parse(JSON.stringify(r.body))).toEqual(r.body);
      }),
      fcParams(150),
    );
  });
});
