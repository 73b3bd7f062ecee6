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

/**
 * As remembered: the body as JSON text and the actor as a number (-1: anonymous). Up to 100,000
 * of these live in the old generation; flat strings and numbers give the collector nothing to
 * trace, where the body's objects would (measured: ~2× the cost of a tagged change's bookkeeping).
 */
interface Remembered {
  readonly actor: number;
  readonly version: number;
  readonly status: number;
  readonly body: string | undefined;
}

const actorKey = (actor: Actor): number => ('anonymous' in actor ? -1 : actor.userId);

/** The most recent request ids and their answers, oldest forgotten first. */
export class RecentAnswers {
  private readonly byId = new Map<string, Remembered>();

  constructor(private readonly limit = REMEMBERED_REQUEST_IDS) {}

  add(id: string, answer: RecordedAnswer): void {
    this.byId.delete(id);
    this.byId.set(id, {
      actor: actorKey(answer.actor),
      version: answer.version,
      status: answer.status,
      body: answer.body === undefined ? undefined : JSON.stringify(answer.body),
    });
    if (this.byId.size > this.limit) {
      const oldest = this.byId.keys().next();
      if (!oldest.done) this.byId.delete(oldest.value);
    }
  }

  /** The recorded answer of `id`, if the same actor sent it (an id never answers someone else). */
  find(id: string, actor: Actor): RecordedAnswer | undefined {
    const found = this.byId.get(id);
    if (found === undefined || found.actor !== actorKey(actor)) return undefined;
    return {
      actor,
      version: found.version,
      status: found.status,
      body:
        found.body === undefined ? undefined : (JSON.parse(found.body) as Readonly<Record<string, unknown>>),
    };
  }
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
