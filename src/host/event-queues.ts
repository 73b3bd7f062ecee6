/**
 * Event queues for connected clients (Zulip's Tornado event system, in the host layer): register
 * allocates a queue, every persisted change's events are routed to the queues of their recipients,
 * GET /events long-polls. Timeouts are Zulip's (zerver/tornado/event_queue.py): idle queues expire
 * after 10 minutes (a client may ask for up to 7 days), a waiting poll gets a heartbeat after
 * 45–55 s. Consecutive flag events are merged as Zulip's queue merges them (event-queue.ts).
 * Zulip does not bound a queue's length or size or a user's queue count beyond that timeout; we
 * add bounds so that neither a dead client nor a hostile one can grow memory without end
 * (docs/differences/events.md, docs/hosting.md): queues per user, events and serialized bytes
 * per queue, serialized bytes over every queue of the process (the largest queues are dropped
 * first), and bytes per GET /events answer (the client polls again for the rest).
 */
import type { AddressedEvent, ZulipEvent } from '../core/events';
import { zulipError, type ZulipError } from '../core/errors';
import { eventNarrowPredicate, type EventNarrowTerm } from '../core/register/narrow-events';
import type { ClientCapabilities } from '../core/register/options';
import { clientPayload, finishedWhenRead, type Payload } from './client-payload';
import { EventQueue, jsonBytes, type ByteMeter, type PollAnswer, type QueuedEvent } from './event-queue';
import { PackedEvent } from './packed-event';

export const DEFAULT_MAX_QUEUE_BYTES = 16 * 1024 * 1024;
export const DEFAULT_MAX_TOTAL_QUEUE_BYTES = 256 * 1024 * 1024;
export const DEFAULT_MAX_POLL_BYTES = 1024 * 1024;

/** Time and timers, injectable so tests can expire queues without waiting. */
export interface QueueClock {
  /** Milliseconds. */
  now(): number;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(timer: unknown): void;
}

export const systemClock: QueueClock = {
  now: () => Date.now(),
  setTimer: (fn, ms) => {
    const t = setTimeout(fn, ms) as unknown as { unref?: () => void };
    t.unref?.();
    return t;
  },
  clearTimer: (t) => clearTimeout(t as Parameters<typeof clearTimeout>[0]),
};

export interface EventQueueOptions {
  readonly clock?: QueueClock;
  /** Zulip's DEFAULT_EVENT_QUEUE_TIMEOUT_SECS: 600. */
  readonly idleTimeoutSecs?: number;
  /** Zulip's MAX_QUEUE_TIMEOUT_SECS: 7 days. */
  readonly maxLifespanSecs?: number;
  /** Seconds a poll waits before its heartbeat. Default Zulip's 45 + randint(0, 10). */
  readonly heartbeatSecs?: () => number;
  /** Queues one user may hold; registering one more drops that user's least recently used. Default 100. */
  readonly maxQueuesPerUser?: number;
  /** Unacknowledged events a queue may hold; past it the queue is dropped (BAD_EVENT_QUEUE_ID). Default 100,000. */
  readonly maxQueueLength?: number;
  /**
   * Serialized bytes (UTF-8 JSON) of the events one queue may hold; past it the queue is dropped
   * (BAD_EVENT_QUEUE_ID, the client re-registers). Default 16 MiB.
   */
  readonly maxQueueBytes?: number;
  /**
   * Serialized bytes all queues together may hold (an event given to several queues counts once
   * per queue); past it the largest queues are dropped until they fit. Default 256 MiB.
   */
  readonly maxTotalBytes?: number;
  /**
   * Serialized bytes of events one GET /events answer carries (always at least one event); the
   * client acknowledges them and polls again for the rest. Default 1 MiB.
   */
  readonly maxPollBytes?: number;
  /** How often expired queues are collected (Zulip: every minute). 0: only on `gc()`. */
  readonly gcIntervalMs?: number;
  /** Queue ids; default `crypto.randomUUID()` (Zulip: uuid4). */
  readonly newId?: () => string;
}

export interface NewQueue {
  readonly eventTypes: readonly string[] | null;
  readonly lifespanSecs?: number;
  readonly capabilities?: ClientCapabilities;
  /** The register request's `narrow` (already checked): which `message` events the queue gets. */
  readonly narrow?: readonly EventNarrowTerm[];
  /** Message content as HTML (true) or as its Markdown source (false, Zulip's default). */
  readonly applyMarkdown?: boolean;
  /** Also every message to a public channel, received or not (already checked: no guests). */
  readonly allPublicStreams?: boolean;
  /** Null `avatar_url` in message events for senders with a Gravatar the client can compute (default true). */
  readonly clientGravatar?: boolean;
  /** register's `slim_presence`: presence events without `email`. */
  readonly slimPresence?: boolean;
}

export type GetEventsResult =
  | { readonly kind: 'events'; readonly events: readonly QueuedEvent[]; readonly queueId?: string }
  | { readonly kind: 'error'; readonly error: ZulipError };

export function badEventQueueId(queueId: string): ZulipError {
  return zulipError(`Bad event queue ID: ${queueId}`, 'BAD_EVENT_QUEUE_ID', 400, { queue_id: queueId });
}

export class EventQueues {
  private readonly byId = new Map<string, EventQueue>();
  /** user id → that user's queues: routing looks recipients up here. */
  private readonly byUser = new Map<number, Set<EventQueue>>();
  /** The queues registered with `all_public_streams`. */
  private readonly allPublic = new Set<EventQueue>();
  private readonly clock: QueueClock;
  /** Serialized bytes held by every queue. */
  private readonly meter: ByteMeter = { bytes: 0 };
  /** Serialized size of each client payload, measured once however many queues it goes to. */
  private readonly payloadBytes = new WeakMap<object, number>();
  /**
   * Each client payload packed (packed-event.ts; null: it stays an object), made once however
   * many queues hold it: one packed copy for all of them.
   */
  private readonly payloadPacked = new WeakMap<object, PackedEvent | null>();
  private readonly maxPollBytes: number;
  private gcTimer: unknown;
  private closed = false;

  constructor(private readonly options: EventQueueOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.maxPollBytes = options.maxPollBytes ?? DEFAULT_MAX_POLL_BYTES;
    const every = options.gcIntervalMs ?? 60_000;
    if (every > 0) this.scheduleGc(every);
  }

  /** Open queues. */
  get size(): number {
    return this.byId.size;
  }

  /** Serialized bytes of the events all queues hold. */
  get bytes(): number {
    return this.meter.bytes;
  }

  /** Queues with a long-poll waiting on them. */
  get waiting(): number {
    let n = 0;
    for (const queue of this.byId.values()) if (queue.waiter !== undefined) n++;
    return n;
  }

  /** Allocates a queue for `userId` (Zulip's `allocate_client_descriptor`). */
  create(userId: number, request: NewQueue): EventQueue {
    const idle = this.options.idleTimeoutSecs ?? 600;
    const lifespan = request.lifespanSecs ?? 0;
    const timeout = Math.min(lifespan === 0 ? idle : lifespan, this.options.maxLifespanSecs ?? 7 * 86400);
    const id = this.options.newId?.() ?? crypto.randomUUID();
    const types = request.eventTypes === null ? null : new Set(request.eventTypes);
    const queue = new EventQueue(
      id,
      userId,
      types,
      request.capabilities ?? {},
      timeout,
      this.clock.now(),
      eventNarrowPredicate(request.narrow ?? []),
      request.applyMarkdown ?? false,
      request.allPublicStreams ?? false,
      request.clientGravatar ?? true,
      request.slimPresence ?? false,
      this.meter,
    );
    let mine = this.byUser.get(userId);
    if (mine === undefined) this.byUser.set(userId, (mine = new Set()));
    const max = this.options.maxQueuesPerUser ?? 100;
    while (mine.size >= max) {
      const oldest = [...mine].reduce((a, b) => (a.lastConnection <= b.lastConnection ? a : b));
      this.drop(oldest);
    }
    mine.add(queue);
    this.byId.set(id, queue);
    if (queue.allPublicStreams) this.allPublic.add(queue);
    return queue;
  }

  /**
   * Routes one change's events to the queues of their recipients. For each event the cost is the
   * smaller of its recipient list and the number of users with queues, times their queues: never
   * the organization's size when few clients are connected.
   */
  deliver(events: readonly AddressedEvent[]): void {
    if (this.byUser.size === 0) return;
    const touched = new Set<EventQueue>();
    const offer = (queue: EventQueue, addressed: AddressedEvent, forms: Map<number, Payload>) => {
      // Finalized for the client first: its narrow sees the message as the client will.
      // A form that copies the event's whole `message_details` is finished when it is read.
      const later = finishedWhenRead(addressed.event as Payload, queue.form);
      const event =
        later === undefined ? clientPayload(addressed, queue.form, forms) : (addressed.event as Payload);
      if (!queue.accepts(event)) return;
      // The sending client's queue gets its `local_message_id` (Zulip's `sender_queue_id`).
      const { forQueue } = addressed;
      const own = forQueue !== undefined && forQueue.queueId === queue.id;
      const finish = later?.finish;
      const extraBytes = later?.extraBytes ?? 0;
      let size = this.payloadBytes.get(event);
      if (size === undefined) this.payloadBytes.set(event, (size = jsonBytes(event)));
      size += extraBytes;
      if (own) {
        const { fields } = forQueue;
        const mine = { ...event, ...fields };
        // `{…event, …fields}` is both texts joined by a comma in place of their braces.
        const disjoint = Object.keys(fields).every((k) => !(k in event));
        const added = jsonBytes(fields);
        const bytes = !disjoint ? jsonBytes(mine) + extraBytes : added <= 2 ? size : size + added - 1;
        queue.push(mine, bytes, { finish });
      } else queue.push(event, size, { finish, pack: () => this.packed(event) });
      touched.add(queue);
    };
    for (const addressed of events) {
      const { users } = addressed;
      const forms = new Map<number, Payload>();
      const visit = (queue: EventQueue) => offer(queue, addressed, forms);
      if (users.length <= this.byUser.size) {
        for (const id of users) this.byUser.get(id)?.forEach(visit);
      } else {
        for (const [id, queues] of this.byUser) if (includesSorted(users, id)) queues.forEach(visit);
      }
      if (addressed.allPublicStreams !== undefined && this.allPublic.size > 0) {
        // Zulip's `get_client_info_for_message_event`: the message, without flags, for the
        // `all_public_streams` queues of users it was not sent to.
        const { except } = addressed.allPublicStreams;
        const unflagged: AddressedEvent = {
          event: { ...addressed.event, flags: [] } as ZulipEvent,
          users: [],
          ...(addressed.markdown === undefined ? {} : { markdown: addressed.markdown }),
        };
        const unflaggedForms = new Map<number, Payload>();
        for (const queue of this.allPublic)
          if (!includesSorted(except, queue.userId)) offer(queue, unflagged, unflaggedForms);
      }
    }
    const maxLength = this.options.maxQueueLength ?? 100_000;
    const maxBytes = this.options.maxQueueBytes ?? DEFAULT_MAX_QUEUE_BYTES;
    for (const queue of touched) {
      if (queue.waiter !== undefined) queue.finishWaiter((t) => this.clock.clearTimer(t), this.maxPollBytes);
      else if (queue.length > maxLength || queue.bytes > maxBytes) this.drop(queue);
    }
    this.fitTotal();
  }

  /** A payload packed, at most once (`payloadPacked`). */
  private packed(event: Payload): PackedEvent | undefined {
    let packed = this.payloadPacked.get(event);
    if (packed === undefined) this.payloadPacked.set(event, (packed = PackedEvent.of(event) ?? null));
    return packed ?? undefined;
  }

  /**
   * Drops the largest queues until all fit in `maxTotalBytes`: those of clients that stopped
   * reading (a polling client's queue holds little), so the rest keep their service.
   */
  private fitTotal(): void {
    const max = this.options.maxTotalBytes ?? DEFAULT_MAX_TOTAL_QUEUE_BYTES;
    if (this.meter.bytes <= max) return;
    const bySize = [...this.byId.values()].sort((a, b) => b.bytes - a.bytes);
    for (const queue of bySize) {
      if (this.meter.bytes <= max) break;
      this.drop(queue);
    }
  }

  /**
   * GET /events for `userId` (Zulip's `fetch_events`): acknowledges through `lastEventId`, then
   * answers at once when the queue holds events or `dontBlock`, else waits for the next event or
   * the heartbeat. Bad input is refused before anything is pruned, so no event is lost to it.
   */
  async get(
    userId: number,
    queueId: string | undefined,
    lastEventId: number | undefined,
    dontBlock: boolean,
    newQueue?: NewQueue,
    /** Aborted when the client went away: the poll stops waiting (its events stay queued). */
    signal?: AbortSignal,
  ): Promise<GetEventsResult> {
    let queue: EventQueue;
    let created: string | undefined;
    if (queueId === undefined) {
      if (!dontBlock || newQueue === undefined)
        return { kind: 'error', error: zulipError("Missing 'queue_id' argument") };
      queue = this.create(userId, newQueue);
      created = queue.id;
    } else {
      if (lastEventId === undefined)
        return { kind: 'error', error: zulipError("Missing 'last_event_id' argument") };
      const found = this.access(userId, queueId);
      if ('code' in found) return { kind: 'error', error: found };
      queue = found;
      if (lastEventId < queue.newestPrunedId)
        return {
          kind: 'error',
          error: zulipError(`An event newer than ${lastEventId} has already been pruned!`),
        };
      // Zulip prunes first and then refuses an id that was never in the queue; we refuse first.
      if (lastEventId !== queue.newestPrunedId && !queue.holds(lastEventId))
        return { kind: 'error', error: zulipError(`Event ${lastEventId} was not in this queue`) };
      queue.prune(lastEventId);
      queue.finishWaiter((t) => this.clock.clearTimer(t), this.maxPollBytes);
    }
    queue.lastConnection = this.clock.now();
    if (queue.length > 0 || dontBlock)
      return {
        kind: 'events',
        events: queue.head(this.maxPollBytes),
        ...(created ? { queueId: created } : {}),
      };
    // Nobody to answer: waiting would only keep the queue from expiring (Zulip's disconnect handler).
    if (signal?.aborted === true) return { kind: 'events', events: [] };
    let release: (() => void) | undefined;
    const answer = await new Promise<PollAnswer>((resolve) => {
      const secs = this.options.heartbeatSecs?.() ?? 45 + Math.floor(Math.random() * 11);
      const timer = this.clock.setTimer(() => {
        queue.push({ type: 'heartbeat' });
        queue.finishWaiter(() => undefined, this.maxPollBytes);
      }, secs * 1000);
      const waiter = { resolve, timer };
      queue.waiter = waiter;
      if (signal !== undefined) {
        // The client went away: the queue keeps its events (they were never acknowledged) and
        // becomes collectable again, timed from its last connection, as Zulip's disconnect handler does.
        release = () => {
          if (queue.waiter !== waiter) return;
          queue.waiter = undefined;
          this.clock.clearTimer(timer);
          resolve({ events: [] });
        };
        signal.addEventListener('abort', release, { once: true });
      }
    });
    if (release !== undefined) signal!.removeEventListener('abort', release);
    // (Zulip times an abandoned queue from its last connection, not from the disconnect.)
    if (!(signal?.aborted ?? false)) queue.lastConnection = this.clock.now();
    return { kind: 'events', events: answer.events };
  }

  /** DELETE /events (Zulip's `cleanup_event_queue`). */
  delete(userId: number, queueId: string): ZulipError | undefined {
    const found = this.access(userId, queueId);
    if ('code' in found) return found;
    found.finishWaiter((t) => this.clock.clearTimer(t), this.maxPollBytes);
    this.drop(found);
    return undefined;
  }

  /** Drops every expired queue (Zulip's `gc_event_queues`); returns how many. */
  gc(): number {
    const now = this.clock.now();
    let n = 0;
    for (const queue of [...this.byId.values()])
      if (queue.expired(now)) {
        this.drop(queue);
        n++;
      }
    return n;
  }

  /** Answers every waiting poll and stops the collector. */
  close(): void {
    this.closed = true;
    if (this.gcTimer !== undefined) this.clock.clearTimer(this.gcTimer);
    for (const queue of this.byId.values())
      queue.finishWaiter((t) => this.clock.clearTimer(t), this.maxPollBytes);
  }

  /** Zulip's `access_client_descriptor`: someone else's queue is as unknown as a missing one. */
  private access(userId: number, queueId: string): EventQueue | ZulipError {
    const queue = this.byId.get(queueId);
    if (queue === undefined || queue.userId !== userId) return badEventQueueId(queueId);
    if (queue.expired(this.clock.now())) {
      this.drop(queue);
      return badEventQueueId(queueId);
    }
    return queue;
  }

  /** Drops every queue: waiting polls get what their queue holds, later polls BAD_EVENT_QUEUE_ID. */
  dropAll(): void {
    for (const queue of [...this.byId.values()]) this.drop(queue);
  }

  private drop(queue: EventQueue): void {
    this.byId.delete(queue.id);
    this.allPublic.delete(queue);
    const mine = this.byUser.get(queue.userId);
    mine?.delete(queue);
    if (mine?.size === 0) this.byUser.delete(queue.userId);
    // A poll still waiting on a dropped queue gets what it holds; its next poll is refused.
    queue.finishWaiter((t) => this.clock.clearTimer(t), this.maxPollBytes);
    queue.clear();
  }

  private scheduleGc(every: number): void {
    this.gcTimer = this.clock.setTimer(() => {
      this.gc();
      if (!this.closed) this.scheduleGc(every);
    }, every);
  }
}

function includesSorted(sorted: readonly number[], x: number): boolean {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo < sorted.length && sorted[lo] === x;
}
