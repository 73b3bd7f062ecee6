import { expect } from 'vitest';
import { MessageStore } from '../../src/core/messages/store-types';

/** The columns of a `MessageChunk`. */
const COLUMNS = ['ids', 'recipient', 'topic', 'topicKey', 'sender', 'timestamp', 'bits', 'content'] as const;

/**
 * A message chunk whose columns are getters (the newest chunk as appends leave it: its views are
 * made when first read), which deep equality would otherwise see as an object without keys.
 */
function isLazyChunk(value: unknown): value is Record<(typeof COLUMNS)[number], unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return (
    proto !== Object.prototype &&
    proto !== null &&
    COLUMNS.every((c) => c in value && !Object.hasOwn(value, c))
  );
}

/**
 * Deep equality compares message chunks by their columns, whichever way each was made (a plain
 * object of typed arrays, or an appended chunk whose views are made when first read).
 */
expect.addEqualityTesters([
  function messageChunkColumns(
    this: { equals: (a: unknown, b: unknown) => boolean },
    a: unknown,
    b: unknown,
  ) {
    if (!isLazyChunk(a) && !isLazyChunk(b)) return undefined;
    if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return false;
    const x = a as Record<string, unknown>;
    const y = b as Record<string, unknown>;
    const n = (x['ids'] as ArrayLike<number> | undefined)?.length;
    // An appended chunk's content array is its tail's, shared and longer than the chunk.
    const own = (v: unknown) => (Array.isArray(v) ? v.slice(0, n) : v);
    return COLUMNS.every((c) =>
      this.equals(c === 'content' ? own(x[c]) : x[c], c === 'content' ? own(y[c]) : y[c]),
    );
  },
]);

/**
 * Deep equality compares message stores by every field, the chunk list included: a store's
 * `chunks` is a getter (put together when first read), which deep equality would otherwise skip.
 */
/** Vitest's equality tester type (its package's own type is not a dependency of ours). */
type Tester = Parameters<typeof expect.addEqualityTesters>[0][number];

const messageStoreFields: Tester = function (a, b, testers) {
  if (!(a instanceof MessageStore) && !(b instanceof MessageStore)) return undefined;
  if (!(a instanceof MessageStore) || !(b instanceof MessageStore)) return false;
  // With the testers: the chunks inside are compared by their columns.
  return this.equals(a.toJSON(), b.toJSON(), testers);
};
expect.addEqualityTesters([messageStoreFields]);
