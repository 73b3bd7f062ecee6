/**
 * A large flag event as a queue nobody is reading holds it (issue 31). A mark-unread event over
 * 5,000 messages is, as objects, an array of 5,000 ids and a 5,000-key `message_details`
 * dictionary; a never-read queue kept dozens of them (up to its 16 MiB budget) and every
 * scavenge copied each one out of the young generation: the pauses other users' requests waited
 * behind. Packed, the ids and which entry each message has are typed arrays, whose memory lies
 * outside the collected heap (V8 keeps only typed arrays of at most 64 bytes in it), and the
 * entries themselves are the few objects the operation shares between the messages of one
 * conversation. Serializing the event to JSON text instead would cost more than the whole
 * operation (a 5,000-key dictionary is the slowest thing `JSON.stringify` meets) and hold more
 * memory (the text is 2–3× the objects): measured in bench/README.md.
 *
 * `unpack` gives back an event whose JSON is byte for byte the original's: its fields in their
 * order, the ids in their order, `message_details` rebuilt from the same keys and entries.
 */
import { intKeyedObject, intKeyedParts } from '../core/collections/int-keyed';

type Ids = Int32Array | Float64Array;

/** Events with fewer ids stay objects: their arrays are small, the typed arrays' wrappers cost as much. */
export const PACK_MIN_IDS = 64;

type Event = Readonly<Record<string, unknown>> & { readonly type: string };

export class PackedEvent {
  private constructor(
    /** The event's fields in their order; `messages` and `message_details` are null here. */
    private readonly rest: Event,
    private readonly messages: Ids,
    private readonly details:
      { readonly keys: Ids; readonly entries: readonly unknown[]; readonly entryOf: Int32Array } | undefined,
  ) {}

  /**
   * The event packed, or undefined when it is not a flag event with at least `PACK_MIN_IDS`
   * integer ids, or its `message_details` was not built by `intKeyedObject` (its exact keys are
   * then unknown without walking it).
   */
  static of(event: Event): PackedEvent | undefined {
    if (event.type !== 'update_message_flags') return undefined;
    const messages = event['messages'];
    if (!Array.isArray(messages) || messages.length < PACK_MIN_IDS) return undefined;
    const ids = toIds(messages as readonly unknown[]);
    if (ids === undefined) return undefined;
    const details = event['message_details'];
    if (details === undefined) return new PackedEvent({ ...event, messages: null }, ids, undefined);
    const parts = typeof details === 'object' && details !== null ? intKeyedParts(details) : undefined;
    if (parts === undefined) return undefined;
    const keys = sameIds(parts.keys, ids) ? ids : toIds(parts.keys);
    if (keys === undefined) return undefined;
    // Each distinct entry once (the operation shares one per conversation), and each key's index.
    const index = new Map<unknown, number>();
    const entries: unknown[] = [];
    const entryOf = new Int32Array(parts.keys.length);
    let last: unknown = undefined;
    let lastAt = -1;
    for (let k = 0; k < entryOf.length; k++) {
      const value = parts.values[k];
      // Neighbours often share their entry (one conversation): skip the lookup then.
      if (value !== last || lastAt < 0) {
        let at = index.get(value);
        if (at === undefined) {
          at = entries.length;
          entries.push(value);
          index.set(value, at);
        }
        last = value;
        lastAt = at;
      }
      entryOf[k] = lastAt;
    }
    return new PackedEvent({ ...event, messages: null, message_details: null }, ids, {
      keys,
      entries,
      entryOf,
    });
  }

  /** A fresh event equal to the packed one (the same JSON), which the caller may change. */
  unpack(): Record<string, unknown> & { type: string } {
    // Assigning keys that the copy has keeps them in their places.
    const out: Record<string, unknown> & { type: string } = { ...this.rest };
    out['messages'] = Array.from(this.messages);
    const d = this.details;
    if (d !== undefined) {
      const values = new Array<unknown>(d.entryOf.length);
      for (let k = 0; k < values.length; k++) values[k] = d.entries[d.entryOf[k]!];
      out['message_details'] = intKeyedObject(Array.from(d.keys), values);
    }
    return out;
  }
}

/** Safe integers in a typed array that holds them exactly, or undefined for anything else. */
function toIds(values: readonly unknown[]): Ids | undefined {
  let small = true;
  for (const v of values) {
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) return undefined;
    if (v < -0x80000000 || v > 0x7fffffff) small = false;
  }
  // The constructors copy an array natively (`from` goes through the iterator protocol).
  return small ? new Int32Array(values as readonly number[]) : new Float64Array(values as readonly number[]);
}

function sameIds(a: readonly number[], b: Ids): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}
