import type { OpContext } from '../../src/core/context';
import { runDecoded, type Actor, type AnyOperation, type AnyOperationDef } from '../../src/core/operation';
import type { OpResult } from '../../src/core/result';
import type { RealmState } from '../../src/core/state';

/** An operation called with parameters of any shape: for tests that send wrong input on purpose. */
export type LooseOperation = ((
  state: RealmState,
  actor: Actor,
  params?: unknown,
  ctx?: OpContext,
) => OpResult) & {
  readonly def: AnyOperationDef;
};

/** The same operation without its parameter types (the run-time checks are what is under test). */
export function loose(op: AnyOperation): LooseOperation {
  const call = (state: RealmState, actor: Actor, params?: unknown, ctx?: OpContext) =>
    runDecoded(op, state, actor, params, ctx);
  return Object.assign(call, { def: op.def });
}
