import type { IssueList } from './issues';

/**
 * Refuses what JSON cannot hold, so a snapshot that loads is one its own export writes back:
 * `undefined` in arrays, functions, symbols, BigInt, NaN and ±Infinity, holes in (sparse) arrays,
 * objects that are not plain (Dates, Maps, class instances) and cycles. `JSON.stringify` would
 * silently drop, null out or throw on each of them. A property whose value is `undefined` counts
 * as left out (it takes its default; required fields are then reported missing by the schema).
 */

/** Why a value is not JSON, or undefined when it is a JSON scalar or a plain object/array. */
export function nonJsonReason(v: unknown): string | undefined {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(v) ? undefined : `${String(v)} is not a JSON number`;
    case 'undefined':
      return 'undefined is not a JSON value';
    case 'bigint':
      return 'a BigInt is not a JSON value';
    case 'function':
    case 'symbol':
      return `a ${typeof v} is not a JSON value`;
    default:
      return v === null || isPlainContainer(v as object) ? undefined : notPlain(v as object);
  }
}

/** A hole in a sparse array (`[, 1]`, `new Array(3)`, `delete a[0]`). */
export const HOLE = 'a hole in a sparse array is not a JSON value';

function isPlainContainer(o: object): boolean {
  const proto: unknown = Object.getPrototypeOf(o);
  return Array.isArray(o) ? proto === Array.prototype : proto === Object.prototype || proto === null;
}

function notPlain(o: object): string {
  const name = (o as { constructor?: { name?: unknown } }).constructor?.name;
  const what = typeof name === 'string' && name !== '' ? `a ${name}` : 'an object with a prototype';
  return `${what} is not a plain JSON object${o instanceof Date ? ' (write dates as numbers or strings)' : ''}`;
}

/**
 * Walks `value` and reports every non-JSON value at its path. `skip(path)` prunes subtrees checked
 * elsewhere (the messages, which `checkMessage` checks by hand for speed).
 */
export function checkJsonValues(
  value: unknown,
  path: readonly PropertyKey[],
  issues: IssueList,
  skip: (path: readonly PropertyKey[]) => boolean = () => false,
): void {
  const ancestors = new Set<object>();
  const visit = (v: unknown, at: PropertyKey[]): void => {
    if (skip(at)) return;
    const reason = nonJsonReason(v);
    if (reason !== undefined) {
      issues.add(at, reason);
      return;
    }
    if (typeof v !== 'object' || v === null) return;
    if (ancestors.has(v)) {
      issues.add(at, 'a cycle (the value contains itself) is not JSON');
      return;
    }
    ancestors.add(v);
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const next = [...at, i];
        if (!(i in v)) {
          if (!skip(next)) issues.add(next, HOLE);
        } else visit(v[i], next);
      }
    } else {
      for (const key of Object.keys(v)) {
        const value = (v as Record<string, unknown>)[key];
        // A property set to undefined is a property left out (JSON.stringify drops it too): the
        // field takes its default, which is what the export writes back. Inside an array it is
        // refused (JSON.stringify would write null).
        if (value !== undefined) visit(value, [...at, key]);
      }
    }
    ancestors.delete(v);
  };
  visit(value, [...path]);
}
