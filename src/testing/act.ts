import type { OpContext } from '../core/context';
import type { AddressedEvent, ZulipEvent } from '../core/events';
import type { OpResult, ZulipSuccess } from '../core/result';
import type { RealmState } from '../core/state';
import { runDecoded, type DataOf, type ParamsArg, type ParamsOf } from '../core/operation';
import { OPERATIONS, type OperationName, type OperationNamed } from '../ops/index';

/**
 * A user's session over an evolving realm: each call runs an operation as that user and keeps
 * the resulting state, so a test reads like a conversation.
 *
 * @example
 * ```ts
 * const iago = new Session(realm, 2, { now });
 * iago.run('editChannel', { stream_id: 1, description: 'New' });
 * expect(iago.state.channels.get(1)?.description).toBe('New');
 * ```
 */
export class Session {
  state: RealmState;
  readonly results: OpResult[] = [];
  constructor(
    state: RealmState,
    readonly userId: number,
    private readonly ctx: OpContext = {},
  ) {
    this.state = state;
  }

  /**
   * Runs the named operation as this user, keeps the new state and returns the result. The
   * parameters and the result are typed as the operation's own (`run('getOwnUser').body.user_id`).
   */
  run<N extends OperationName>(
    name: N,
    ...args: ParamsArg<ParamsOf<OperationNamed<N>>>
  ): OpResult<DataOf<OperationNamed<N>>> {
    const op = OPERATIONS.find((o) => o.def.name === name);
    if (!op) throw new Error(`no operation ${name}`);
    const result = runDecoded(op, this.state, { userId: this.userId }, args[0] ?? {}, this.ctx);
    this.state = result.state;
    this.results.push(result);
    return result as OpResult<DataOf<OperationNamed<N>>>;
  }
}

/**
 * Starts a `Session` for a user over a realm; `ctx` (time, randomness) is used for every call.
 *
 * @example
 * ```ts
 * const hamlet = actAs(realm, 4, { now, random: seededRandom(1) });
 * hamlet.run('createSavedSnippet', { title: 'Hi', content: 'Hello there' });
 * const r = hamlet.run('getOwnUser');
 * expect(r.body).toMatchObject({ full_name: 'King Hamlet' });
 * expect(hamlet.results).toHaveLength(2);
 * ```
 */
export const actAs = (state: RealmState, userId: number, ctx?: OpContext): Session =>
  new Session(state, userId, ctx);

/**
 * The events a given user receives from a result, in order (what that user's event queue would get).
 *
 * @example
 * ```ts
 * const r = editChannel(realm, { userId: 2 }, { stream_id: 1, description: 'New' }, { now });
 * expect(eventsFor(r, 4)).toContainEqual(expect.objectContaining({ type: 'stream', op: 'update', property: 'description' }));
 * expect(eventsFor(r, 99)).toEqual([]);
 * ```
 */
export function eventsFor(result: Pick<OpResult, 'events'>, userId: number): ZulipEvent[] {
  return result.events.filter((e: AddressedEvent) => e.users.includes(userId)).map((e) => e.event);
}

/**
 * Throws with a readable message unless some event (for `userId`, when given) matches every given
 * key; values are compared as JSON. Returns the matching addressed event.
 *
 * @example
 * ```ts
 * const r = editChannel(realm, { userId: 2 }, { stream_id: 1, description: 'New' }, { now });
 * const found = assertEvent(r, { type: 'stream', property: 'description', value: 'New' }, 4);
 * expect(found.users).toContain(4);
 * expect(() => assertEvent(r, { type: 'subscription' })).toThrow(/no event matching/);
 * ```
 */
export function assertEvent(
  result: Pick<OpResult, 'events'>,
  match: Partial<Record<string, unknown>>,
  userId?: number,
): AddressedEvent {
  const found = result.events.find(
    (e) =>
      (userId === undefined || e.users.includes(userId)) &&
      Object.entries(match).every(
        ([k, v]) => JSON.stringify((e.event as Record<string, unknown>)[k]) === JSON.stringify(v),
      ),
  );
  if (!found) {
    throw new Error(
      `no event matching ${JSON.stringify(match)}${userId === undefined ? '' : ` for user ${userId}`}; got ${JSON.stringify(result.events)}`,
    );
  }
  return found;
}

/**
 * Throws with the error body unless the result is a success; returns the success body. Handy in
 * tests that set a realm up through operations.
 *
 * @example
 * ```ts
 * const body = assertSuccess(getOwnUser(realm, { userId: 4 }));
 * expect(body['user_id']).toBe(4);
 * expect(() => assertSuccess(getOwnUser(realm, { userId: 999 }))).toThrow(/failed/);
 * ```
 */
export function assertSuccess<D extends object>(
  result: Pick<OpResult<D>, 'status' | 'body'>,
): ZulipSuccess<D> {
  if (result.body.result !== 'success') {
    throw new Error(`operation failed with ${result.status}: ${JSON.stringify(result.body)}`);
  }
  return result.body;
}
