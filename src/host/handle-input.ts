/**
 * Change inputs: what the handle stores about a call or a wire request, and how an input runs on a
 * state, the same way for a live run and for a replay.
 */
import type { OpContext } from '../core/context';
import { runDecoded, type Actor, type AnyOperation } from '../core/operation';
import type { OpResult } from '../core/result';
import type { RealmState } from '../core/state';
import { basicAuthHeader } from '../wire/auth';
import { handleApiRequest, type ApiRequest } from '../wire/handle';
import type { ChangeInput } from './change';

/** The operations a handle runs and replays, by name. */
export type OperationsByName = ReadonlyMap<string, AnyOperation>;

/**
 * Runs `input` on `state`. `original` is the live request (with its headers); without it, as in a
 * replay, the request is rebuilt from the stored input.
 */
export function applyInput(
  ops: OperationsByName,
  state: RealmState,
  input: ChangeInput,
  ctx: OpContext,
  original?: ApiRequest,
): OpResult {
  if (input.kind === 'call') {
    const op = ops.get(input.op);
    if (!op) throw new Error(`unknown operation ${input.op}`);
    return runDecoded(op, state, input.actor, input.params, ctx);
  }
  let request: ApiRequest = original ?? {
    method: input.method,
    url: input.url,
    ...(input.body === undefined ? {} : { body: input.body }),
  };
  if (!original && 'userId' in input.actor) {
    // Present the credentials the actor had at this version (headers are never stored).
    const user = state.users.get(input.actor.userId);
    if (user)
      request = {
        ...request,
        headers: { authorization: basicAuthHeader(user.delivery_email, user.api_key) },
      };
  }
  return handleApiRequest(state, request, ctx);
}

/** The stored form of an authenticated request: no headers, a copy of the body. */
export function requestInput(actor: Actor, request: ApiRequest): ChangeInput {
  return {
    kind: 'request',
    actor,
    method: request.method,
    url: request.url,
    ...(request.body === undefined
      ? {}
      : { body: typeof request.body === 'string' ? request.body : { ...request.body } }),
  };
}

/** Only the fields a stored actor has, whatever else the caller's object carried. */
export function plainActor(actor: Actor): Actor {
  return 'anonymous' in actor ? { anonymous: true } : { userId: actor.userId };
}

export function headerOf(
  headers: Readonly<Record<string, string>> | undefined,
  name: string,
): string | undefined {
  if (!headers) return undefined;
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
}
