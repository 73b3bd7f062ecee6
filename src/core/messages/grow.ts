/**
 * Appending to immutable arrays in O(1) amortized, for the message store's append path.
 *
 * A chunk's column is a typed-array *view* (`length` = what that state sees) over a buffer that may
 * be longer. The buffer's frontier (the end of what any view has written) is remembered here; an
 * append writes in place only when the view ends exactly at the frontier, so every older view keeps
 * seeing its own prefix and two states appending onto the same parent never write the same slot
 * (the second one copies). Buffers this module did not allocate have no frontier and are copied
 * into one that has room, once; after that appends are in place until the chunk is full.
 *
 * Plain arrays (message contents) follow the same rule with the array itself as the buffer: such
 * an array may be longer than its chunk's `ids`, so readers index it by position, never by length.
 */
type Typed = Int32Array | Uint16Array | Uint8Array | Float64Array;

const frontier = new WeakMap<object, number>();

/** `view` with `value` appended (in place when it ends at its buffer's frontier), growing toward `max`. */
export function appendTyped<T extends Typed>(view: T, value: number, max: number): T {
  const Ctor = view.constructor as new (buffer: ArrayBufferLike, offset: number, length: number) => T;
  const bytes = view.BYTES_PER_ELEMENT;
  const start = view.byteOffset / bytes;
  const end = start + view.length;
  const capacity = view.buffer.byteLength / bytes;
  if (frontier.get(view.buffer) === end && end < capacity) {
    const next = new Ctor(view.buffer, view.byteOffset, view.length + 1);
    next[view.length] = value;
    frontier.set(view.buffer, end + 1);
    return next;
  }
  const room = Math.min(max, Math.max(16, view.length * 2));
  const Plain = view.constructor as new (length: number) => T;
  const fresh = new Plain(Math.max(room, view.length + 1));
  fresh.set(view);
  fresh[view.length] = value;
  frontier.set(fresh.buffer, view.length + 1);
  return new Ctor(fresh.buffer, 0, view.length + 1);
}

/** `list` (whose first `length` entries are the caller's) with `value` at `length`. */
export function appendPlain<V>(list: readonly V[], length: number, value: V): readonly V[] {
  // An operation that edits the state through immer freezes every plain array it reaches (the
  // contents of the message chunks included): such an array is copied like any other.
  if (frontier.get(list) === length && Object.isExtensible(list)) {
    (list as V[])[length] = value;
    frontier.set(list, length + 1);
    return list;
  }
  const copy = list.slice(0, length);
  copy.push(value);
  frontier.set(copy, length + 1);
  return copy;
}

/** A one-element typed array with room to grow (a new chunk's first entry). */
export function startTyped<T extends Typed>(
  Ctor: new (length: number) => T,
  value: number,
  capacity: number,
): T {
  const buffer = new Ctor(capacity);
  buffer[0] = value;
  frontier.set(buffer.buffer, 1);
  return buffer.subarray(0, 1) as T;
}

/** A one-element plain array registered for in-place appends. */
export function startPlain<V>(value: V): readonly V[] {
  const list = [value];
  frontier.set(list, 1);
  return list;
}
