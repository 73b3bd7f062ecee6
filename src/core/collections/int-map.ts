/**
 * A persistent (immutable, structurally shared) map from non-negative 31-bit integers to values.
 *
 * Why not a plain object or `Map` changed with immer: copying a 10,000-entry object to change one
 * user costs time proportional to the organization. This radix trie (32-way, depth growing with the
 * largest key) copies only the O(log32 n) nodes on the path to the changed key, and iterates in key
 * order, which is the order Zulip lists most things in.
 */
const BITS = 5;
const WIDTH = 1 << BITS;
const MASK = WIDTH - 1;

type Node<V> = Array<Node<V> | V | undefined>;

/**
 * A persistent map keyed by non-negative integers: `set` and `delete` return a new map sharing
 * all untouched nodes; iteration is in ascending key order. The realm's users, groups, channels and
 * most other collections are `IntMap`s.
 *
 * @example
 * ```ts
 * const a = IntMap.from<string>([[3, 'c'], [1, 'a']]);
 * const b = a.set(2, 'b');
 * expect([...b.keys()]).toEqual([1, 2, 3]);
 * expect(a.has(2)).toBe(false); // `a` is unchanged
 * expect(b.maxKey() + 1).toBe(4); // the next id
 * expect(realm.users.get(4)?.full_name).toBe('King Hamlet');
 * ```
 */
export class IntMap<V> {
  private constructor(
    private readonly root: Node<V> | undefined,
    /** Bits above the root's slot index; 0 means the root holds values directly. */
    private readonly shift: number,
    readonly size: number,
  ) {}

  private static readonly EMPTY = new IntMap<never>(undefined, 0, 0);

  static empty<V>(): IntMap<V> {
    return IntMap.EMPTY as IntMap<V>;
  }

  /** Builds a map from entries; later duplicates win. */
  static from<V>(entries: Iterable<readonly [number, V]>): IntMap<V> {
    let map = IntMap.empty<V>();
    for (const [k, v] of entries) map = map.set(k, v);
    return map;
  }

  private capacityShift(key: number): number {
    let shift = this.shift;
    while (!fits(key, shift)) shift += BITS;
    return shift;
  }

  get(key: number): V | undefined {
    if (!isKey(key) || this.root === undefined) return undefined;
    if (!fits(key, this.shift)) return undefined;
    let node: Node<V> = this.root;
    for (let shift = this.shift; shift > 0; shift -= BITS) {
      const next = node[(key >>> shift) & MASK];
      if (next === undefined) return undefined;
      node = next as Node<V>;
    }
    return node[key & MASK] as V | undefined;
  }

  has(key: number): boolean {
    return this.get(key) !== undefined;
  }

  set(key: number, value: V): IntMap<V> {
    return this.setWith(key, replacedBy<V>, value);
  }

  /**
   * The map with `key` set to `fn(its value or undefined, arg)`, in one walk down the key's path
   * (a `get` and then a `set` walked it twice). `arg` rather than a closure: a send appends its
   * message id to three lists this way, and a closure per call was an allocation each.
   */
  setWith<A>(key: number, fn: (old: V | undefined, arg: A) => V, arg: A): IntMap<V> {
    if (!isKey(key)) throw new RangeError(`IntMap key must be a non-negative 31-bit integer, got ${key}`);
    let root = this.root ?? [];
    let shift = this.shift;
    const wanted = this.capacityShift(key);
    while (shift < wanted) {
      root = this.root === undefined ? [] : [root];
      shift += BITS;
    }
    // One walk down the path, copying each node and learning at the leaf whether the key was there.
    const newRoot = root.slice();
    let node = newRoot;
    let from: Node<V> = root;
    for (let s = shift; s > 0; s -= BITS) {
      const i = (key >>> s) & MASK;
      const child = from[i] as Node<V> | undefined;
      const copy = child === undefined ? [] : child.slice();
      node[i] = copy;
      node = copy;
      from = copy;
    }
    const i = key & MASK;
    const old = node[i] as V | undefined;
    node[i] = fn(old, arg);
    return new IntMap(newRoot, shift, old !== undefined ? this.size : this.size + 1);
  }

  /**
   * Sets many keys at once (later duplicates win): each touched node is copied once, not once per
   * key, so setting k keys that share nodes (a message's recipients among the users) costs
   * O(k + touched nodes · 32) instead of O(k · depth · 32).
   */
  setAll(entries: ReadonlyArray<readonly [number, V]>): IntMap<V> {
    if (entries.length === 0) return this;
    let maxKey = 0;
    for (const [key] of entries) {
      if (!isKey(key)) throw new RangeError(`IntMap key must be a non-negative 31-bit integer, got ${key}`);
      if (key > maxKey) maxKey = key;
    }
    let root = this.root ?? [];
    let shift = this.shift;
    const wanted = this.capacityShift(maxKey);
    while (shift < wanted) {
      root = this.root === undefined ? [] : [root];
      shift += BITS;
    }
    // Nodes created by this call may be written in place; the others are copied on first touch.
    const owned = new Set<Node<V>>();
    const own = (node: Node<V> | undefined): Node<V> => {
      if (node !== undefined && owned.has(node)) return node;
      const copy = node === undefined ? [] : node.slice();
      owned.add(copy);
      return copy;
    };
    root = own(root);
    let size = this.size;
    for (const [key, value] of entries) {
      let node = root;
      for (let s = shift; s > 0; s -= BITS) {
        const i = (key >>> s) & MASK;
        const child = own(node[i] as Node<V> | undefined);
        node[i] = child;
        node = child;
      }
      const i = key & MASK;
      if (node[i] === undefined) size++;
      node[i] = value;
    }
    return new IntMap(root, shift, size);
  }

  /**
   * Replaces the value of each of `keys` by `fn(index, old value)`, copying each touched node once
   * when the keys ascend (a channel's subscribers): a node is known to be this call's own copy by
   * the key prefix it was copied for, so no side table is needed. Unordered keys stay correct (a
   * node left and re-entered is copied again). No tuple per key: a send calls this with its
   * recipients.
   */
  updateMany(keys: ArrayLike<number>, fn: (index: number, old: V | undefined) => V): IntMap<V> {
    const n = keys.length;
    if (n === 0) return this;
    let maxKey = 0;
    for (let k = 0; k < n; k++) {
      const key = keys[k]!;
      if (!isKey(key)) throw new RangeError(`IntMap key must be a non-negative 31-bit integer, got ${key}`);
      if (key > maxKey) maxKey = key;
    }
    let root: Node<V> = this.root ?? [];
    let shift = this.shift;
    const wanted = this.capacityShift(maxKey);
    while (shift < wanted) {
      root = this.root === undefined ? [] : [root];
      shift += BITS;
    }
    root = root.slice();
    // By depth (at most 7 levels for 31-bit keys): the node this call copied last, and the key
    // prefix it holds. Plain literals: a typed array here costs more than the rest of a small call.
    const ownedNode: Array<Node<V> | undefined> = [
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ];
    const ownedPrefix = [-1, -1, -1, -1, -1, -1, -1];
    let size = this.size;
    for (let k = 0; k < n; k++) {
      const key = keys[k]!;
      let node = root;
      let d = 1;
      for (let s = shift; s > 0; s -= BITS, d++) {
        const i = (key >>> s) & MASK;
        const prefix = key >>> s;
        let child: Node<V>;
        if (ownedPrefix[d] === prefix && node[i] === ownedNode[d]) child = ownedNode[d]!;
        else {
          const old = node[i] as Node<V> | undefined;
          child = old === undefined ? [] : old.slice();
          node[i] = child;
          ownedNode[d] = child;
          ownedPrefix[d] = prefix;
        }
        node = child;
      }
      const i = key & MASK;
      const old = node[i] as V | undefined;
      if (old === undefined) size++;
      node[i] = fn(k, old);
    }
    return new IntMap(root, shift, size);
  }

  /** Applies `fn` to the value at `key` (which must exist) and stores the result. */
  update(key: number, fn: (value: V) => V): IntMap<V> {
    const current = this.get(key);
    if (current === undefined) throw new RangeError(`IntMap.update: no key ${key}`);
    const next = fn(current);
    return next === current ? this : this.set(key, next);
  }

  delete(key: number): IntMap<V> {
    if (this.root === undefined || this.get(key) === undefined) return this;
    const newRoot = deleteIn(this.root, this.shift, key);
    if (this.size === 1) return IntMap.empty();
    return new IntMap(newRoot, this.shift, this.size - 1);
  }

  /**
   * Whether any key lies in `[lo, hi]`: a walk down the trie that stops at the first value found
   * in range, so a reader can ask once per block of keys (a message chunk's ids) instead of once
   * per key.
   */
  hasKeyIn(lo: number, hi: number): boolean {
    if (this.root === undefined || hi < lo) return false;
    return anyKeyIn(this.root, this.shift, 0, lo, hi);
  }

  /** Values in ascending key order. */
  *values(): IterableIterator<V> {
    if (this.root !== undefined) yield* walkValues(this.root, this.shift);
  }

  /**
   * Calls `visit` with each value in ascending key order, as `values()` yields them, without an
   * iterator result per value (two nested generators allocate ~48 bytes per value: half a megabyte
   * for a register's walk of 10,000 users).
   */
  forEachValue(visit: (value: V) => void): void {
    if (this.root !== undefined) visitValues(this.root, this.shift, visit);
  }

  *keys(): IterableIterator<number> {
    for (const [k] of this.entries()) yield k;
  }

  *entries(): IterableIterator<[number, V]> {
    if (this.root !== undefined) yield* walkEntries(this.root, this.shift, 0);
  }

  [Symbol.iterator](): IterableIterator<[number, V]> {
    return this.entries();
  }

  /** The largest key, or 0 when empty: new ids are `maxKey() + 1`. */
  maxKey(): number {
    if (this.root === undefined) return 0;
    let node: Node<V> = this.root;
    let key = 0;
    for (let shift = this.shift; ; shift -= BITS) {
      let i = node.length - 1;
      while (i >= 0 && node[i] === undefined) i--;
      if (i < 0) return 0;
      key |= i << shift;
      if (shift === 0) return key;
      node = node[i] as Node<V>;
    }
  }

  toArray(): V[] {
    return [...this.values()];
  }
}

/** Whether a trie whose root sits at `shift` can hold `key` (JS shifts count modulo 32). */
function fits(key: number, shift: number): boolean {
  return shift + BITS >= 31 || key >>> (shift + BITS) === 0;
}

/** `set`'s `setWith` function: the new value, whatever was there. */
function replacedBy<V>(_old: V | undefined, value: V): V {
  return value;
}

function isKey(key: number): boolean {
  return Number.isInteger(key) && key >= 0 && key <= 0x7fffffff;
}

function deleteIn<V>(node: Node<V>, shift: number, key: number): Node<V> | undefined {
  const i = (key >>> shift) & MASK;
  const copy = node.slice();
  if (shift === 0) {
    copy[i] = undefined;
  } else {
    copy[i] = deleteIn(node[i] as Node<V>, shift - BITS, key);
  }
  return copy.some((x) => x !== undefined) ? copy : undefined;
}

/**
 * Whether `node` (its first key `base`, each slot spanning 2^shift keys) holds a key in
 * `[lo, hi]`. Spans are computed with multiplication: a root's span can reach 2^35, past what
 * 32-bit shifts express.
 */
function anyKeyIn<V>(node: Node<V>, shift: number, base: number, lo: number, hi: number): boolean {
  const span = 2 ** shift;
  const first = Math.max(0, Math.floor((lo - base) / span));
  for (let i = first; i < node.length; i++) {
    const childLo = base + i * span;
    if (childLo > hi) return false;
    const child = node[i];
    if (child === undefined) continue;
    if (shift === 0) return true;
    if (anyKeyIn(child as Node<V>, shift - BITS, childLo, lo, hi)) return true;
  }
  return false;
}

function* walkValues<V>(node: Node<V>, shift: number): IterableIterator<V> {
  for (let i = 0; i < node.length; i++) {
    const child = node[i];
    if (child === undefined) continue;
    if (shift === 0) yield child as V;
    else yield* walkValues(child as Node<V>, shift - BITS);
  }
}

function visitValues<V>(node: Node<V>, shift: number, visit: (value: V) => void): void {
  for (let i = 0; i < node.length; i++) {
    const child = node[i];
    if (child === undefined) continue;
    if (shift === 0) visit(child as V);
    else visitValues(child as Node<V>, shift - BITS, visit);
  }
}

function* walkEntries<V>(node: Node<V>, shift: number, prefix: number): IterableIterator<[number, V]> {
  for (let i = 0; i < node.length; i++) {
    const child = node[i];
    if (child === undefined) continue;
    const key = prefix | (i << shift);
    if (shift === 0) yield [key, child as V];
    else yield* walkEntries(child as Node<V>, shift - BITS, key);
  }
}
