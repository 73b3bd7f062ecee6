/**
 * One client's event queue (Zulip's `ClientDescriptor` + `EventQueue`, zerver/tornado/event_queue.py):
 * the events it accepts, numbered without gaps from 0, pruned as the client acknowledges them,
 * and at most one waiting long-poll.
 */
import type { ZulipEvent } from '../core/events';
import type { EventNarrowPredicate, NarrowedMessage } from '../core/register/narrow-events';
import type { ClientCapabilities } from '../core/register/options';
import type { ClientForm } from './client-payload';
import { presenceForQueue } from './presence-events';

export type QueuedEvent = Readonly<Record<string, unknown>> & { readonly id: number; readonly type: string };

/** What a waiting long-poll is answered with. */
export type PollAnswer = { readonly events: readonly QueuedEvent[] };

export interface Waiter {
  resolve(answer: PollAnswer): void;
  timer: unknown;
}

export class EventQueue {
  readonly events: QueuedEvent[] = [];
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
    /** The register request's `slim_presence`: presence events without `email`. */
    readonly slimPresence = false,
  ) {
    this.form = { applyMarkdown, emptyTopicName: capabilities.empty_topic_name === true };
  }

  /** How this client wants events finalized (client-payload.ts). */
  readonly form: ClientForm;

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
   * Appends one event with the next id. Zulip sends `delete_message` one id at a time to clients
   * without `bulk_message_deletion`.
   */
  push(event: Readonly<Record<string, unknown>> & { readonly type: string }): void {
    if (event.type === 'delete_message' && this.capabilities.bulk_message_deletion !== true) {
      const { message_ids: ids, ...rest } = event as { message_ids?: readonly number[]; type: string };
      for (const messageId of ids ?? [])
        this.events.push({ ...rest, message_id: messageId, id: this.nextEventId++ });
      return;
    }
    if (event.type === 'presence') {
      const simplified = this.capabilities.simplified_presence_events === true;
      this.events.push({ ...presenceForQueue(event, simplified, this.slimPresence), id: this.nextEventId++ });
      return;
    }
    this.events.push({ ...withoutInternalFields(event), id: this.nextEventId++ });
  }

  /** Drops the events up to `through` (Zulip's `prune`). */
  prune(through: number): void {
    let n = 0;
    while (n < this.events.length && this.events[n]!.id <= through) n++;
    if (n > 0) {
      this.newestPrunedId = this.events[n - 1]!.id;
      this.events.splice(0, n);
    }
  }

  /** Answers the waiting long-poll, if any, with what the queue holds. */
  finishWaiter(clearTimer: (timer: unknown) => void): boolean {
    const w = this.waiter;
    if (w === undefined) return false;
    this.waiter = undefined;
    clearTimer(w.timer);
    w.resolve({ events: this.events.slice() });
    return true;
  }

  expired(nowMs: number): boolean {
    return this.waiter === undefined && nowMs - this.lastConnection >= this.timeoutSecs * 1000;
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
