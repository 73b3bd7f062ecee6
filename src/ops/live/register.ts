import * as z from 'zod/mini';
import { errors } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param, rawParam } from '../../core/params';
import { INCLUDE_SUBSCRIBERS } from './include-subscribers';
import { checkRegisterLimits } from '../../core/register/limits';
import { checkNarrowForEvents } from '../../core/register/narrow-events';
import type { RegisterOptions } from '../../core/register/options';
import { registerState } from '../../core/register/register-state';
import { failure, success } from '../../core/result';

/**
 * POST /api/v1/register — https://zulip.com/api/register-queue
 *
 * The pure half of register: parameters as Zulip's `events_register_backend` reads them and the
 * initial state (`registerState`). `queue_id` is null and `last_event_id` -1 here: a host with
 * event queues (chat-realm/host `withEventQueues`) allocates the queue and fills both in, as
 * Zulip's Tornado does. `narrow` and `all_public_streams` are accepted and checked but only matter
 * for `message` events (see docs/differences/register.md).
 *
 * @example
 * ```ts
 * const r = register(realm, { userId: 4 }, { event_types: ['realm_user'] });
 * expect(r.body).toMatchObject({ queue_id: null, last_event_id: -1, user_id: 4 });
 * ```
 */
export const register = defineOperation({
  name: 'register',
  method: 'POST',
  path: '/register',
  operationId: 'register-queue',
  params: [
    param('apply_markdown', z.boolean()),
    param('client_gravatar', z.boolean()),
    param('slim_presence', z.boolean()),
    param('presence_history_limit_days', z.int()),
    param('all_public_streams', z.boolean()),
    rawParam('include_subscribers', INCLUDE_SUBSCRIBERS),
    param('client_capabilities', z.record(z.string(), z.boolean())),
    param('event_types', z.array(z.string())),
    param('fetch_event_types', z.array(z.string())),
    param('narrow', z.array(z.array(z.string()).check(z.length(2)))),
    param('queue_lifespan_secs', z.int().check(z.minimum(0))),
  ],
  handler: ({ state, user, params, ctx, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    if (params.all_public_streams === true && user.role === 600)
      return failure(state, errors.badRequest('User not authorized for this query'));
    // Bounded lists first: nothing of an oversized request is looked at further (limits.ts).
    const tooLarge = checkRegisterLimits(params);
    if (tooLarge) return failure(state, tooLarge);
    const narrowError = checkNarrowForEvents(params.narrow ?? []);
    if (narrowError) return failure(state, narrowError);
    const options: RegisterOptions = {
      event_types: params.event_types ?? null,
      fetch_event_types: params.fetch_event_types ?? null,
      include_subscribers: (params.include_subscribers ?? false) !== false,
      client_gravatar: params.client_gravatar ?? true,
      client_capabilities: params.client_capabilities ?? {},
      slim_presence: params.slim_presence ?? false,
      ...(params.presence_history_limit_days === undefined
        ? {}
        : { presence_history_limit_days: params.presence_history_limit_days }),
      presence: ctx.presence,
    };
    const data = registerState(state, user.user_id, options, ctx.now);
    return success(state, { data: { queue_id: null, ...data, last_event_id: -1 }, ignored });
  },
});
