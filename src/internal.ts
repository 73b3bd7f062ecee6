/**
 * `chat-realm/internal`: building blocks the engine itself uses, for advanced hosts and tools
 * (narrow planning, persistent maps, snapshot text). No stability promise: these may change in
 * any release. Everything a host normally needs is in `chat-realm`.
 *
 * @example
 * ```ts
 * import { parseNarrow, IntMap } from 'chat-realm/internal';
 * const r = parseNarrow([{ operator: 'channel', operand: 'Verona' }]);
 * expect(r.ok).toBe(true);
 * expect(IntMap.empty<string>().set(1, 'a').get(1)).toBe('a');
 * ```
 */
export { IntMap } from './core/collections/int-map';
export { StrMap } from './core/collections/str-map';
export { snapshotText } from './simulate/snapshot-text';
export {
  parseNarrow,
  buildNarrow,
  selectWindow,
  firstUnreadAnchor,
  type NarrowTerm,
  type NarrowPlan,
  type Selection,
} from './narrow';
export {
  defineOperation,
  returns,
  invoke,
  runDecoded,
  resolveActor,
  type AnyOperationDef,
  type OpCall,
} from './core/operation';
export { success, failure } from './core/result';
export { errors, zulipError } from './core/errors';
export { parseParams, param, rawParam, accepts, declareParams, type ParamSpec } from './core/params';
