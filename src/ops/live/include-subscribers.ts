import * as z from 'zod/mini';

/**
 * `include_subscribers` of register and GET /users/me/subscriptions: `true`, `false` or `"partial"`
 * (feature level 412). With `"partial"` the server may send `partial_subscribers` instead of
 * `subscribers` for large channels; chat-realm always sends the complete `subscribers`, which the
 * API allows (docs/differences/register.md).
 */
export const INCLUDE_SUBSCRIBERS = z.union([z.boolean(), z.literal('partial')]);
