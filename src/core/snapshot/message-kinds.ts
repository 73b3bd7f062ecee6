/** What a message id names: no message, a channel message, or a direct message. */
export const NO_MESSAGE = 0;
export const CHANNEL_MESSAGE = 1;
export const DIRECT_MESSAGE = 2;

/**
 * Message id → kind, for checking and marking tens of millions of rows (stream format 2 gives each
 * user's rows apart from the messages). Ids that are dense enough (the usual case: ids from 1 up)
 * get a byte per possible id, so a lookup is one array read; sparse ids a sorted array searched
 * by halves.
 */
export class MessageKinds {
  private constructor(
    /** Dense: kind by id. Sparse: kinds in the order of `sortedIds`. */
    private readonly kinds: Uint8Array,
    private readonly sortedIds: Int32Array | undefined,
  ) {}

  /** `ids` in any order, `direct[k]` whether message `ids[k]` is a direct message (duplicates: any wins). */
  static of(ids: ArrayLike<number>, direct: (k: number) => boolean): MessageKinds {
    const n = ids.length;
    let max = 0;
    for (let k = 0; k < n; k++) if (ids[k]! > max) max = ids[k]!;
    if (max <= 4 * n + (1 << 16)) {
      const kinds = new Uint8Array(max + 1);
      for (let k = 0; k < n; k++) kinds[ids[k]!] = direct(k) ? DIRECT_MESSAGE : CHANNEL_MESSAGE;
      return new MessageKinds(kinds, undefined);
    }
    const order = Array.from({ length: n }, (_, k) => k).sort((a, b) => ids[a]! - ids[b]!);
    const sortedIds = Int32Array.from(order, (k) => ids[k]!);
    const kinds = Uint8Array.from(order, (k) => (direct(k) ? DIRECT_MESSAGE : CHANNEL_MESSAGE));
    return new MessageKinds(kinds, sortedIds);
  }

  kindOf(id: number): number {
    const sorted = this.sortedIds;
    if (sorted === undefined) return this.kinds[id] ?? NO_MESSAGE;
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid]! < id) lo = mid + 1;
      else hi = mid;
    }
    return lo < sorted.length && sorted[lo] === id ? this.kinds[lo]! : NO_MESSAGE;
  }
}
