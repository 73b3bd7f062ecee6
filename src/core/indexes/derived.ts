/**
 * Derived indexes over the realm's persistent collections, cached per collection *instance*.
 *
 * A collection (`state.users`, `state.subscriptions`, ...) never changes once built, so anything
 * computed from it alone can be cached in a `WeakMap` keyed by it and stays valid for as long as the
 * collection lives. The first lookup on a collection nobody has indexed yet builds the index from
 * scratch (O(n), once); the draft mutators of `state-edit.ts`, when they replace a collection with a
 * changed copy, `carry` the index forward by applying just the change (O(log n)) — but only when the
 * old collection already had one. A state assembled any other way (the snapshot loader, tests,
 * `simulateRealm`) simply misses the cache and rebuilds, so correctness never depends on the
 * bookkeeping: a carried index must equal the rebuilt one (test/core/indexes.test.ts checks it).
 */
export interface Derived<K extends object, V, C> {
  /** The index of `source`: cached, or built now and cached. */
  get(source: K): V;
  /** The cached index of `source`, if any (never builds). */
  peek(source: K): V | undefined;
  /**
   * `to` is `from` with `change` applied: when `from` has an index, derive the index of `to` from it
   * and cache that. Nothing happens when `from` has none (the next `get(to)` builds it).
   */
  carry(from: K, to: K, change: C): void;
  /** Builds the index of `source` from scratch, bypassing the cache (for tests). */
  rebuild(source: K): V;
}

/**
 * A derived index built by `build` and carried forward by `step` (the index of the changed
 * collection from the old index and the change). Without `step`, `carry` does nothing: every new
 * collection instance is indexed from scratch on first use.
 */
export function derived<K extends object, V, C = never>(
  build: (source: K) => V,
  step?: (index: V, change: C) => V,
): Derived<K, V, C> {
  const cache = new WeakMap<K, V>();
  return {
    get(source) {
      let index = cache.get(source);
      if (index === undefined) {
        index = build(source);
        cache.set(source, index);
      }
      return index;
    },
    peek: (source) => cache.get(source),
    carry(from, to, change) {
      if (step === undefined || from === to || cache.has(to)) return;
      const index = cache.get(from);
      if (index !== undefined) cache.set(to, step(index, change));
    },
    rebuild: build,
  };
}
