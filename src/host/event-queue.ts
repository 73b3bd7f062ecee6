/**
 * One client's event queue (Zulip's `ClientDescriptor` + `EventQueue`, zerver/tornado/event_queue.py):
 * the events it accepts, numbered without gaps from 0, pruned as the client acknowledges them,
 * and at most one waiting long-poll.
 */
import type { ZulipEvent } from '../core/events';
import type { EventNarrowPredicate, NarrowedMessage } from '../core/register/narrow-events';
import type { ClientCapabilities } from '../core/register/options';
import type { ClientForm } from './client-payload';
import { PackedEvent } from './packed-event';
import { presenceForQueue } from './presence-events';

export type QueuedEvent = Readonly<Record<string, unknown>> & { readonly id: number; readonly type: string };

/** What a waiting long-poll is answered with. */
export type PollAnswer = { readonly events: readonly QueuedEvent[] };

export interface Waiter {
  resolve(answer: PollAnswer): void;
  timer: unknown;
}

/** Serialized bytes held by a set of queues (shared by every queue of one `EventQueues`). */
export interface ByteMeter {
  bytes: number;
}

/** How a queued event is finished for its client when read (client-payload.ts `finishedWhenRead`). */
export type Finish = (
  event: Readonly<Record<string, unknown>> & { readonly type: string },
) => Readonly<Record<string, unknown>>;

/** What `push` may be given besides the event, by a caller that knows it already. */
export interface PushExtras {
  /** The event as the client receives it, applied when it is read. `size` is then the finished event's. */
  readonly finish?: Finish | undefined;
  /**
   * The event packed (`PackedEvent`), or undefined when it stays an object: given by
   * `EventQueues.deliver` so that every queue holding the same event holds one packed copy.
   */
  readonly pack?: (() => PackedEvent | undefined) | undefined;
}

/**
 * One queued event. `value` is the event object (id included), or, for a large flag event that
 * came while no poll was waiting, the event packed without its id (packed-event.ts, issue 31: a
 * never-read queue flooded with ~205 KB mark-unread events kept them as object graphs that every
 * scavenge copied). A packed event is unpacked when read; the answer is byte for byte the same.
 */
interface Entry {
  readonly id: number;
  value: QueuedEvent | PackedEvent;
  /** Serialized size (UTF-8 bytes of the JSON the client receives, `id` included). */
  readonly size: number;
  /**
   * Applied when read, then forgotten (object entries keep the finished event): a mark-unread
   * event's `message_details` renamed for a client without `empty_topic_name` is a copy of a
   * 5,000-key dictionary, which cost more than the whole operation; a queue that is never read
   * never pays it, and a client that reads pays it in its own poll.
   */
  finish: Finish | undefined;
}

/** A pending merged flag event (`virtual` below): its fields without `id`, which is kept apart. */
interface Pending {
  readonly event: Record<string, unknown> & { readonly type: string; messages: number[] };
  id: number;
  /** Serialized size without `id`. */
  size: number;
}

export class EventQueue {
  /** Events in id order, without the pending virtual (merged) flag events. */
  private readonly queue: Entry[] = [];
  /**
   * Zulip's `virtual_events`: one pending event per full flag event type (`flags/add/read`...),
   * which later events of that type merge into (their `messages` appended, the newest id kept),
   * until the queue's contents are next read. `flags/remove/read` is never merged: its
   * `message_details` do not concatenate.
   */
  private readonly virtual = new Map<string, Pending>();
  /** Serialized bytes this queue holds (events and pending virtual events, ids included, exact). */
  bytes = 0;
  nextEventId = 0;
  newestPrunedId = -1;
  waiter: Waiter | undefined;

  constructor(
    readonly id: string,
    readonly userId: number,
    readonly eventTypes: ReadonlySet<string> | null,
    readonly capabilities: ClientCapabilities,
    /** Seconds of idleness after which the queue expires. */
    readonly timeoutSecs: number,
    /** Clock time (ms) of the last connection. */
    public lastConnection: number,
    /** The register request's `narrow`; `null` accepts every message event. */
    readonly narrow: EventNarrowPredicate | null = null,
    /** The register request's `apply_markdown` (Zulip's default: false). */
    readonly applyMarkdown = false,
    /** The register request's `all_public_streams`: public channels' messages it did not receive too. */
    readonly allPublicStreams = false,
    /** The register request's `client_gravatar` (Zulip's default: true). */
    readonly clientGravatar = true,
    /** The register request's `slim_presence`: presence events without `email`. */
    readonly slimPresence = false,
    /** Where the bytes of every queue of the process are added up. */
    private readonly meter: ByteMeter = { bytes: 0 },
  ) {
    this.form = { applyMarkdown, emptyTopicName: capabilities.empty_topic_name === true, clientGravatar };
  }

  /** How this client wants events finalized (client-payload.ts). */
  readonly form: ClientForm;

  /**
   * Every event the queue holds, in id order (Zulip's `contents`: pending virtual events are put
   * in their place first), as the client receives them.
   */
  get events(): readonly QueuedEvent[] {
    this.flush(true);
    return this.read(this.queue.length);
  }

  /** Whether the queue holds the event `id` (without reading any event). */
  holds(id: number): boolean {
    this.flush(true);
    return this.queue.some((e) => e.id === id);
  }

  /** Events held (pending virtual events included). */
  get length(): number {
    return this.queue.length + this.virtual.size;
  }

  /** Test hook: how many held events are packed (`Entry`), pending merged flag events not counted. */
  heldPacked(): number {
    let n = 0;
    for (const e of this.queue) if (e.value instanceof PackedEvent) n++;
    return n;
  }

  /**
   * The oldest events, as many as fit in `maxBytes` of JSON (at least one): what one poll
   * answers. The client acknowledges them and polls again for the rest.
   */
  head(maxBytes: number): QueuedEvent[] {
    this.flush(true);
    let n = 0;
    let total = 0;
    while (n < this.queue.length) {
      total += this.queue[n]!.size;
      if (n > 0 && total > maxBytes) break;
      n++;
    }
    return this.read(n);
  }

  /** Zulip's `accepts_event`, for the event types the operations send. */
  accepts(event: ZulipEvent | { readonly type: string }): boolean {
    const type = event.type;
    if (this.eventTypes !== null) {
      if (!this.eventTypes.has(type)) return false;
      if (type === 'muted_topics' && this.eventTypes.has('user_topic')) return false;
    }
    if (type === 'message') {
      if (this.narrow === null) return true;
      const e = event as { message?: NarrowedMessage; flags?: readonly string[] };
      return e.message !== undefined && this.narrow(e.message, e.flags ?? []);
    }
    if (
      this.capabilities.user_settings_object === true &&
      (type === 'update_display_settings' || type === 'update_global_notifications')
    )
      return false;
    // Channel typing notifications only reach clients that declared they handle them.
    if (type === 'typing' && 'stream_id' in event)
      return this.capabilities.stream_typing_notifications === true;
    if (type === 'stream') {
      // A client that receives archived channels never stopped seeing an unarchived one (it gets
      // the `is_archived` update instead) and keeps seeing an archived one: no create, no delete.
      const e = event as { op?: string; for_unarchiving?: boolean; for_archiving?: boolean };
      if (
        (e.op === 'create' && e.for_unarchiving === true) ||
        (e.op === 'delete' && e.for_archiving === true)
      )
        return this.capabilities.archived_channels !== true;
    }
    if (type === 'user_group') {
      const e = event as { op?: string; data?: Record<string, unknown> };
      if (e.op === 'remove') return this.capabilities.include_deactivated_groups !== true;
      // A reactivated group comes back as `add` to clients that dropped it when it was deactivated.
      if (e.op === 'add' && (event as { for_reactivation?: boolean }).for_reactivation === true)
        return this.capabilities.include_deactivated_groups !== true;
      if (e.op === 'update' && e.data !== undefined && 'deactivated' in e.data)
        return this.capabilities.include_deactivated_groups === true;
    }
    return true;
  }

  /**
   * Appends one event with the next id; `size` is its serialized size without the id (measured
   * once per event by the caller, see `jsonBytes`). Zulip sends `delete_message` one id at a time
   * to clients without `bulk_message_deletion`, and merges flag events (`virtual` above).
   * `extras.finish`, if given, gives the event as the client receives it, when it is read; `size`
   * is then the finished event's.
   */
  push(
    event: Readonly<Record<string, unknown>> & { readonly type: string },
    size = jsonBytes(event),
    extras: PushExtras = {},
  ): void {
    if (event.type === 'delete_message' && this.capabilities.bulk_message_deletion !== true) {
      const { message_ids: ids, ...rest } = event as { message_ids?: readonly number[]; type: string };
      // `{...rest, "message_id":N}`: the JSON of `rest` with the field added before its brace.
      const restBytes = jsonBytes(rest);
      const added = !('message_id' in rest);
      for (const messageId of ids ?? []) {
        const one = { ...rest, message_id: messageId };
        this.append(one, added ? restBytes + MESSAGE_ID_BYTES + intBytes(messageId) : jsonBytes(one));
      }
      return;
    }
    if (event.type === 'presence') {
      const simplified = this.capabilities.simplified_presence_events === true;
      const shaped = presenceForQueue(event, simplified, this.slimPresence);
      this.append(shaped, jsonBytes(shaped));
      return;
    }
    const mergeable = mergeKey(event);
    if (mergeable !== undefined) {
      const id = this.nextEventId++;
      const pending = this.virtual.get(mergeable);
      const messages = (event as { messages?: readonly number[] }).messages ?? [];
      if (pending === undefined) {
        const copy = { ...event, messages: [...messages] };
        this.virtual.set(mergeable, { event: copy, id, size });
        this.account(size + idBytes(id));
      } else {
        // Each merged id adds its digits and a comma (no comma before the first).
        const was = pending.event.messages.length;
        const added = messages.length === 0 ? 0 : jsonBytes(messages) - (was === 0 ? 2 : 1);
        pending.event.messages.push(...messages);
        if ('timestamp' in event) pending.event['timestamp'] = event['timestamp'];
        this.account(added + idBytes(id) - idBytes(pending.id));
        pending.size += added;
        pending.id = id;
      }
      return;
    }
    const stripped = withoutInternalFields(event);
    if (stripped === event) this.append(event, size, extras.finish, extras.pack);
    else this.append(stripped, jsonBytes(stripped), extras.finish);
  }

  /** Drops the events up to `through` (Zulip's `prune`). */
  prune(through: number): void {
    this.flush(true);
    let n = 0;
    let freed = 0;
    while (n < this.queue.length && this.queue[n]!.id <= through) freed += this.queue[n++]!.size;
    if (n > 0) {
      this.newestPrunedId = this.queue[n - 1]!.id;
      this.queue.splice(0, n);
      this.account(-freed);
    }
  }

  /** Forgets every event (the queue is being dropped): its bytes leave the meter. */
  clear(): void {
    this.account(-this.bytes);
    this.queue.length = 0;
    this.virtual.clear();
  }

  /** Answers the waiting long-poll, if any, with the oldest events (at most `maxBytes`, see `head`). */
  finishWaiter(clearTimer: (timer: unknown) => void, maxBytes = Infinity): boolean {
    const w = this.waiter;
    if (w === undefined) return false;
    this.waiter = undefined;
    clearTimer(w.timer);
    w.resolve({ events: this.head(maxBytes) });
    return true;
  }

  expired(nowMs: number): boolean {
    return this.waiter === undefined && nowMs - this.lastConnection >= this.timeoutSecs * 1000;
  }

  /**
   * Appends the next event, `event` without its id and `size` its JSON's length: packed when no
   * poll waits and it is a large flag event (`Entry`), else as an object.
   */
  private append(
    event: Readonly<Record<string, unknown>> & { readonly type: string },
    size: number,
    finish?: Finish,
    pack?: () => PackedEvent | undefined,
  ): void {
    const packs = this.waiter === undefined;
    this.flush(!packs);
    this.insert(this.queue.length, this.nextEventId++, event, size, packs, finish, pack);
  }

  private insert(
    at: number,
    id: number,
    event: Readonly<Record<string, unknown>> & { readonly type: string },
    size: number,
    packs: boolean,
    finish: Finish | undefined,
    pack?: () => PackedEvent | undefined,
  ): void {
    const packed =
      packs && event.type === 'update_message_flags' ? (pack ?? (() => PackedEvent.of(event)))() : undefined;
    const value = packed ?? ({ ...event, id } as QueuedEvent);
    const entry: Entry = { id, value, size: size + idBytes(id), finish };
    if (at === this.queue.length) this.queue.push(entry);
    else this.queue.splice(at, 0, entry);
    this.account(entry.size);
  }

  /** The first `n` events as the client receives them (see `Entry`). */
  private read(n: number): QueuedEvent[] {
    const out = new Array<QueuedEvent>(n);
    for (let k = 0; k < n; k++) {
      const entry = this.queue[k]!;
      const { value, finish, id } = entry;
      if (value instanceof PackedEvent) {
        // A fresh object: `id` goes last, where the object form has it.
        const event = value.unpack();
        if (finish === undefined) {
          event['id'] = id;
          out[k] = event as QueuedEvent;
        } else out[k] = { ...finish(event), id } as QueuedEvent;
      } else if (finish !== undefined) {
        // Finished once; the entry keeps the finished event.
        entry.value = { ...finish(value), id } as QueuedEvent;
        entry.finish = undefined;
        out[k] = entry.value;
      } else out[k] = value;
    }
    return out;
  }

  /**
   * Puts the pending virtual events in their place by id (Zulip's `contents`): as objects when
   * they are about to be read, else packed if large (`Entry`).
   */
  private flush(forReading: boolean): void {
    if (this.virtual.size === 0) return;
    const pending = [...this.virtual.values()].sort((a, b) => a.id - b.id);
    // Their bytes are counted already: `insert` counts them again, so take them out first.
    for (const p of pending) this.account(-(p.size + idBytes(p.id)));
    this.virtual.clear();
    for (const { event, id, size } of pending) {
      let at = this.queue.length;
      while (at > 0 && this.queue[at - 1]!.id > id) at--;
      this.insert(at, id, event, size, !forReading && this.waiter === undefined, undefined);
    }
  }

  private account(delta: number): void {
    this.bytes += delta;
    this.meter.bytes += delta;
  }
}

/**
 * Fields Zulip's actions put on an event for Tornado's own routing (`accepts` above reads them):
 * Tornado consumes them and no client receives them (zerver/lib/event_types_internal.py), so the
 * documented event schemas do not have them.
 */
const INTERNAL_FIELDS: Readonly<Record<string, string>> = {
  'stream/create': 'for_unarchiving',
  'stream/delete': 'for_archiving',
  'user_group/add': 'for_reactivation',
};

function withoutInternalFields<E extends Readonly<Record<string, unknown>> & { readonly type: string }>(
  event: E,
): Readonly<Record<string, unknown>> & { readonly type: string } {
  const field = INTERNAL_FIELDS[`${event.type}/${String(event['op'])}`];
  if (field === undefined || !(field in event)) return event;
  const { [field]: _internal, ...rest } = event;
  return rest as Readonly<Record<string, unknown>> & { readonly type: string };
}

/** What `,"id":N` adds to an event's JSON (every event has fields before it: `type` at least). */
function idBytes(id: number): number {
  return 6 + intBytes(id);
}

/** `,"message_id":` */
const MESSAGE_ID_BYTES = 14;

/**
 * Zulip's `compute_full_event_type` for the flag events its queue merges: `flags/<op>/<flag>`
 * for every flag event but `all` ones and `flags/remove/read`; undefined for every other event.
 */
function mergeKey(event: Readonly<Record<string, unknown>> & { readonly type: string }): string | undefined {
  if (event.type !== 'update_message_flags' || event['all'] === true) return undefined;
  const key = `flags/${String(event['op'])}/${String(event['flag'])}`;
  return key === 'flags/remove/read' ? undefined : key;
}

// JSON text has no characters below U+0020 (JSON.stringify escapes them).
const NON_ASCII = /[^\u0020-\u007f]/;

/**
 * The UTF-8 length of a value's JSON: what an event costs in a queue and in an answer. Every
 * event is measured once, and the flag events of a flood are the big ones (5,000 ids, and for
 * mark-unread 5,000 `message_details` entries): their length is added up from their parts
 * (`flagEventBytes`) instead of serializing them, which took longer than the whole operation.
 */
export function jsonBytes(value: unknown): number {
  if (Array.isArray(value)) {
    const n = intArrayBytes(value);
    if (n >= 0) return n;
  } else if (
    typeof value === 'object' &&
    value !== null &&
    (value as { type?: unknown }).type === 'update_message_flags'
  ) {
    return flagEventBytes(value as Readonly<Record<string, unknown>>);
  }
  return textBytes(JSON.stringify(value) ?? '');
}

/** The UTF-8 length of a string. */
function textBytes(text: string): number {
  let bytes = text.length;
  // Most events are ASCII (ids, flags, names): the regular expression scans natively, several
  // times faster than the loop below over a large event.
  if (!NON_ASCII.test(text)) return bytes;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // Two bytes below U+0800, three above it; a surrogate pair (two units) makes four.
    if (c < 0x80) continue;
    if (c < 0x800 || (c >= 0xd800 && c < 0xe000)) bytes += 1;
    else bytes += 2;
  }
  return bytes;
}

/** Characters of a safe integer in JSON. */
function intBytes(n: number): number {
  let digits = n < 0 ? 2 : 1;
  let rest = Math.abs(n);
  while (rest >= 10) {
    rest = Math.floor(rest / 10);
    digits++;
  }
  return digits;
}

/** The JSON length of an array of safe integers, or -1 when it holds anything else. */
function intArrayBytes(values: readonly unknown[]): number {
  const n = values.length;
  let bytes = n === 0 ? 2 : n + 1; // brackets and commas
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) return -1;
    bytes += intBytes(v);
  }
  return bytes;
}

/**
 * An `update_message_flags` event's JSON length, key by key (the order of an object's keys does
 * not change its length). `message_details` is keyed by the ids of `messages` (a subset of them
 * when a message is gone): walked through `messages`, each entry serialized once however many
 * messages share it (they share one object per conversation, message-details.ts). Ids that do not
 * ascend strictly (a repeated id in POST /messages/flags) fall back to serializing the details.
 */
function flagEventBytes(event: Readonly<Record<string, unknown>>): number {
  let bytes = 1; // the opening brace; each member below adds its trailing comma or the closing brace
  let members = 0;
  for (const key of Object.keys(event)) {
    const v = event[key];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    const size = key === 'message_details' ? detailsBytes(v, event['messages']) : jsonBytes(v);
    bytes += textBytes(JSON.stringify(key)) + 1 + size + 1;
    members++;
  }
  return members === 0 ? 2 : bytes;
}

function detailsBytes(details: unknown, ids: unknown): number {
  const whole = () => textBytes(JSON.stringify(details) ?? '');
  if (typeof details !== 'object' || details === null || !Array.isArray(ids)) return whole();
  const entries = details as Readonly<Record<number, unknown>>;
  const sizes = new Map<unknown, number>();
  let bytes = 1;
  let count = 0;
  let last = -Infinity;
  for (const id of ids as readonly unknown[]) {
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0 || id <= last) return whole();
    last = id;
    const d = entries[id];
    if (d === undefined) continue;
    let size = sizes.get(d);
    if (size === undefined) sizes.set(d, (size = jsonBytes(d)));
    // `"<id>":<entry>` and a comma or the closing brace.
    bytes += intBytes(id) + 3 + size + 1;
    count++;
  }
  return count === 0 ? 2 : bytes;
}
