import { IntMap } from './int-map';

/**
 * A persistent map from strings to values: a hash into an `IntMap` of small collision buckets.
 * Used for the few lookups by name or email that must not scan the organization (authentication,
 * channel names, group names). Iteration order is not meaningful.
 */
type Bucket<V> = ReadonlyArray<readonly [string, V]>;

/**
 * A persistent map keyed by strings (the realm's indexes by email, API key and name). Like
 * `IntMap`, changes return a new map and leave the old one intact; iteration order is not meaningful.
 *
 * @example
 * ```ts
 * const byName = StrMap.empty<number>().set('verona', 1);
 * const next = byName.delete('verona');
 * expect(byName.get('verona')).toBe(1);
 * expect(next.has('verona')).toBe(false);
 * expect(realm.usersByEmail.get('iago@zulip.com')).toBe(2);
 * ```
 */
export class StrMap<V> {
  /**
   * Answers `get` gave on this map (which never changes), by key: the engine's own string hash
   * instead of a hash of every character and a walk down seven trie levels (a cache miss each in
   * a large map). Made at the second lookup (a map looked up once, such as a topic interner the
   * next new topic replaces, makes none) and emptied when full, so it stays small. A private
   * field: invisible to readers and to deep equality.
   */
  #memo: Map<string, V | undefined> | undefined;
  #lookups = 0;

  private constructor(
    private readonly buckets: IntMap<Bucket<V>>,
    readonly size: number,
  ) {}

  static empty<V>(): StrMap<V> {
    return new StrMap<V>(IntMap.empty(), 0);
  }

  static from<V>(entries: Iterable<readonly [string, V]>): StrMap<V> {
    let map = StrMap.empty<V>();
    for (const [k, v] of entries) map = map.set(k, v);
    return map;
  }

  get(key: string): V | undefined {
    const memo = this.#memo;
    if (memo !== undefined) {
      const known = memo.get(key);
      if (known !== undefined || memo.has(key)) return known;
      if (memo.size >= MEMO_SIZE) memo.clear();
      const value = this.lookup(key);
      memo.set(key, value);
      return value;
    }
    const value = this.lookup(key);
    if (++this.#lookups > 1) (this.#memo = new Map()).set(key, value);
    return value;
  }

  private lookup(key: string): V | undefined {
    const bucket = this.buckets.get(hash(key));
    if (bucket === undefined) return undefined;
    // By index, no destructuring: a lookup is on every send's path (topics, names).
    for (let i = 0; i < bucket.length; i++) {
      const entry = bucket[i]!;
      if (entry[0] === key) return entry[1];
    }
    return undefined;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  set(key: string, value: V): StrMap<V> {
    const h = hash(key);
    const bucket = this.buckets.get(h) ?? [];
    const i = bucket.findIndex(([k]) => k === key);
    const next = bucket.slice();
    if (i >= 0) next[i] = [key, value];
    else next.push([key, value]);
    return new StrMap(this.buckets.set(h, next), i >= 0 ? this.size : this.size + 1);
  }

  delete(key: string): StrMap<V> {
    const h = hash(key);
    const bucket = this.buckets.get(h);
    if (bucket === undefined || !bucket.some(([k]) => k === key)) return this;
    const next = bucket.filter(([k]) => k !== key);
    const buckets = next.length === 0 ? this.buckets.delete(h) : this.buckets.set(h, next);
    return new StrMap(buckets, this.size - 1);
  }

  *entries(): IterableIterator<readonly [string, V]> {
    for (const bucket of this.buckets.values()) yield* bucket;
  }
}

/** The most answers a map's `get` memo keeps before it is emptied. */
const MEMO_SIZE = 64;

/** FNV-1a over UTF-16 code units, folded to 31 bits. */
function hash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h & 0x7fffffff;
}
