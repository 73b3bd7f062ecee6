import * as z from 'zod/mini';
import { accepts, zulipIssue } from '../../core/params';

/**
 * `include_subscribers` of register and GET /users/me/subscriptions: `true`, `false` or `"partial"`
 * (feature level 412). Zulip takes `"partial"` as the plain string (as zulip-flutter and the Python
 * client send it) besides the JSON booleans; the JSON string `"partial"` is taken too. With
 * `"partial"` the server may send `partial_subscribers` instead of `subscribers` for large channels;
 * chat-realm always sends the complete `subscribers`, which the API allows
 * (docs/differences/register.md).
 */
export const INCLUDE_SUBSCRIBERS = accepts<boolean | 'partial'>()(
  z.pipe(
    z.unknown(),
    z.transform((input, ctx): boolean | 'partial' => {
      let value: unknown = input;
      if (typeof input === 'string' && input !== 'partial') {
        try {
          value = JSON.parse(input);
        } catch {
          zulipIssue(ctx, 'include_subscribers is not valid JSON');
          return z.NEVER;
        }
      }
      if (typeof value === 'boolean' || value === 'partial') return value;
      zulipIssue(ctx, "Invalid include_subscribers: Value error, must be a boolean or 'partial'");
      return z.NEVER;
    }),
  ),
);
