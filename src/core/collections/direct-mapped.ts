/**
 * A small direct-mapped memo for non-negative integer keys, put in front of a `Map` that a loop
 * asks thousands of times for a few hundred keys (a fetch's senders and topics): slot
 * `key & mask` remembers the last key that landed there and its value, so most reads are two
 * array reads instead of hashing the key. A collision only overwrites the slot; the map behind
 * it still answers, so the front never changes what is found.
 */
export class DirectMapped<V> {
  // A plain array of small integers, not an `Int32Array`: a request makes its fronts anew, and a
  // typed array of this size gets a separately allocated backing store (slower to make than
  // the whole front is to use for a short request, and counted as external memory by the GC).
  private readonly keys: number[];
  private readonly values: Array<V | undefined>;
  private readonly mask: number;

  /** `2^bits` slots. */
  constructor(bits: number) {
    const size = 1 << bits;
    this.keys = new Array<number>(size).fill(-1);
    this.values = new Array<V | undefined>(size).fill(undefined);
    this.mask = size - 1;
  }

  get(key: number): V | undefined {
    const i = key & this.mask;
    return this.keys[i] === key ? this.values[i] : undefined;
  }

  set(key: number, value: V): void {
    const i = key & this.mask;
    this.keys[i] = key;
    this.values[i] = value;
  }
}
