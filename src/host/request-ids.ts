/**
 * Idempotent forwarded writes: a follower tags each write it forwards to the lease holder with a
 * unique id (`REQUEST_ID_HEADER`), the same on every retry of it. The holder records the id and
 * the answer with the change (`Change.requestId`, `Change.answer`), and every handle that applies
 * the change (the holder itself, followers catching up, a new holder after failover) remembers
 * the most recent ones here. A retry, after an answer lost on the way back or after failover,
 * then finds the committed change and gets its recorded answer instead of running it twice.
 *
 * The lookup runs inside the handle's batch, after catching up (a lost race catches up and runs
 * the batch again), so a change committed by the previous holder is always seen before the retry
 * could run: there is no window where both the change and its retry are applied.
 */
import type { Actor } from '../core/operation';
import type { ZulipErrorBody, ZulipSuccess } from '../core/result';

/** The id of a forwarded write (lower case: headers are compared lower-cased). */
export const REQUEST_ID_HEADER = 'x-chat-realm-request-id';

/** How many request ids a handle remembers (a retry comes within seconds; this is hours of writes). */
export const REMEMBERED_REQUEST_IDS = 100_000;

/** What a retry is answered: the first run's status and body, and the version it made. */
export interface RecordedAnswer {
  readonly actor: Actor;
  readonly version: number;
  readonly status: number;
  /** Undefined when the answer was not kept (it held a secret). */
  readonly body: Readonly<Record<string, unknown>> | undefined;
}

/** The most recent request ids and their answers, oldest forgotten first. */
export class RecentAnswers {
  private readonly byId = new Map<string, RecordedAnswer>();

  constructor(private readonly limit = REMEMBERED_REQUEST_IDS) {}

  add(id: string, answer: RecordedAnswer): void {
    this.byId.delete(id);
    this.byId.set(id, answer);
    if (this.byId.size > this.limit) {
      const oldest = this.byId.keys().next();
      if (!oldest.done) this.byId.delete(oldest.value);
    }
  }

  /** The recorded answer of `id`, if the same actor sent it (an id never answers someone else). */
  find(id: string, actor: Actor): RecordedAnswer | undefined {
    const found = this.byId.get(id);
    if (found === undefined || !sameActor(found.actor, actor)) return undefined;
    return found;
  }
}

function sameActor(a: Actor, b: Actor): boolean {
  if ('anonymous' in a || 'anonymous' in b) return 'anonymous' in a && 'anonymous' in b;
  return a.userId === b.userId;
}

/**
 * The body a retry gets. A kept answer is returned as it was; one that was not kept (it held a
 * secret, e.g. a new API key) says the request was applied, with Zulip's error shape (no code:
 * Zulip has no such answer).
 */
export function repeatedBody(found: RecordedAnswer): ZulipSuccess | ZulipErrorBody {
  if (found.body !== undefined) return found.body as unknown as ZulipSuccess | ZulipErrorBody;
  return {
    result: 'error',
    msg: `This request was already applied (change ${found.version}); its answer held a secret and was not kept`,
  } as ZulipErrorBody;
}

/** Whether an answer may be stored with its change: never one that carries a credential. */
export function keepableAnswer(
  body: ZulipSuccess | ZulipErrorBody,
): Readonly<Record<string, unknown>> | undefined {
  const record = body as unknown as Readonly<Record<string, unknown>>;
  return 'api_key' in record ? undefined : record;
}
