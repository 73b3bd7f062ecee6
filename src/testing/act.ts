import type { OpContext } from '../core/context';
import type { AddressedEvent, ZulipEvent } from '../core/events';
import type { OpResult } from '../core/result';
import type { RealmState } from '../core/state';
import { OPERATIONS } from '../ops/index';

type OpName = (typeof OPERATIONS)[number]['def']['name'];

/**
 * A user's session over an evolving realm: each call runs an operation as that user and keeps
 * the resulting state, so a test reads like a conversation.
 *
 * @example
 * const iago = actAs(realm, 2);
 * iago.run('editChannel', { stream_id: 1, description: 'New' });
 * expect(iago.state.channels.get(1)?.description).toBe('New');
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

  run(name: OpName, params: Record<string, unknown> = {}): OpResult {
    const op = OPERATIONS.find((o) => o.def.name === name);
    if (!op) throw new Error(`no operation ${name}`);
    const result = op(this.state, { userId: this.userId }, params, this.ctx);
    this.state = result.state;
    this.results.push(result);
    return result;
  }
}

export const actAs = (state: RealmState, userId: number, ctx?: OpContext): Session => new Session(state, userId, ctx);

/** The events a given user receives from a result, in order. */
export function eventsFor(result: Pick<OpResult, 'events'>, userId: number): ZulipEvent[] {
  return result.events.filter((e: AddressedEvent) => e.users.includes(userId)).map((e) => e.event);
}

/** Throws with a readable message unless some event matches every given key. */
export function assertEvent(result: Pick<OpResult, 'events'>, match: Partial<Record<string, unknown>>, userId?: number): AddressedEvent {
  const found = result.events.find(
    (e) =>
      (userId === undefined || e.users.includes(userId)) &&
      Object.entries(match).every(([k, v]) => JSON.stringify((e.event as Record<string, unknown>)[k]) === JSON.stringify(v)),
  );
  if (!found) {
    throw new Error(`no event matching ${JSON.stringify(match)}${userId === undefined ? '' : ` for user ${userId}`}; got ${JSON.stringify(result.events)}`);
  }
  return found;
}
