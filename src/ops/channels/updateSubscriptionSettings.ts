import * as z from 'zod/mini';
import { errors, type ZulipError } from '../../core/errors';
import { to, type AddressedEvent } from '../../core/events';
import { SUBSCRIPTION_NOTIFICATION_PROPERTIES, type Subscription } from '../../core/model/records';
import { defineOperation } from '../../core/operation';
import { accepts, formatPath, isPlainObject, param, zulipIssue } from '../../core/params';
import { getSubscription, hasContentAccess } from '../../core/permissions/channels';
import { edit, editRecord, failure, success } from '../../core/result';
import { putSubscription } from '../../core/state-edit';

/** The boolean subscription properties: the notification ones plus muting and pinning. */
const BOOLEAN_PROPERTIES = [
  'in_home_view',
  'is_muted',
  'pin_to_top',
  ...SUBSCRIPTION_NOTIFICATION_PROPERTIES,
] as const;
type BooleanProperty = (typeof BOOLEAN_PROPERTIES)[number];

export type SubscriptionChange =
  | { readonly stream_id: number; readonly property: 'color'; readonly value: string }
  | { readonly stream_id: number; readonly property: BooleanProperty; readonly value: boolean };

/**
 * Python's `re.match(r"^#[0-9a-fA-F]{3,6}$", …)`: `$` also matches before a final newline, and
 * 3, 4, 5 or 6 digits pass.
 */
const HEX_COLOR = /^#[0-9a-fA-F]{3,6}\n?$/;

/** Python's `str()` of a JSON value, for the color check (`True`, `False`, numbers, strings). */
function pythonStr(value: unknown): string {
  if (value === true) return 'True';
  if (value === false) return 'False';
  return String(value);
}

/** Zulip's `SubscriptionPropertyChangeRequest` list, with its messages. */
const subscriptionDataSchema = accepts<
  readonly {
    readonly stream_id: number;
    readonly property: SubscriptionChange['property'];
    readonly value: string | boolean;
  }[]
>()(
  z.pipe(
    z.unknown(),
    z.transform((input, ctx) => {
      const fail = (message: string): never => {
        zulipIssue(ctx, message);
        return z.NEVER as never;
      };
      if (!Array.isArray(input)) return fail('{var} is not a list');
      const out: SubscriptionChange[] = [];
      for (const [i, item] of input.entries()) {
        const at = (key?: string) => formatPath('{var}', key === undefined ? [i] : [i, key]);
        if (!isPlainObject(item)) return fail(`${at()} is not a dict`);
        // pydantic validates the fields in declaration order: stream_id, property, value.
        const streamId = item['stream_id'];
        if (streamId === undefined) return fail(`${at('stream_id')} field is missing: Field required`);
        if (typeof streamId !== 'number' || !Number.isInteger(streamId))
          return fail(`${at('stream_id')} is not an integer`);
        const property = item['property'];
        if (property === undefined) return fail(`${at('property')} field is missing: Field required`);
        if (typeof property !== 'string') return fail(`${at('property')} is not a string`);
        const value = item['value'];
        if (value === undefined) return fail(`${at('value')} field is missing: Field required`);
        if (typeof value !== 'boolean' && typeof value !== 'string')
          return fail(`${formatPath(at('value'), ['bool'])} is not a boolean`);
        // Then the model's own validator, which names the item.
        if (property === 'color') {
          const color = pythonStr(value);
          if (!HEX_COLOR.test(color))
            return fail(`Invalid {var}[${i}]: Value error, color is not a valid hex color code`);
          out.push({ stream_id: streamId, property, value: color });
        } else if ((BOOLEAN_PROPERTIES as readonly string[]).includes(property)) {
          // Zulip raises this error inside the validator; it reaches the client unwrapped.
          if (typeof value !== 'boolean') return fail(`${property} is not a boolean`);
          out.push({ stream_id: streamId, property: property as BooleanProperty, value });
        } else {
          return fail(`Unknown subscription property: ${property}`);
        }
      }
      return out;
    }),
  ),
);

/**
 * POST /api/v1/users/me/subscriptions/properties — https://zulip.com/api/update-subscription-settings
 *
 * Every item is validated while parsing (as Zulip's pydantic model does), then the items are
 * applied in list order. Differences (docs/differences/channels-edit.md): Zulip commits each item
 * on its own, so items before a failing one stay applied; here the list is all or nothing (same
 * error, state unchanged, no events). No audit-log rows are kept.
 *
 * @example
 * ```ts
 * const r = updateSubscriptionSettings(realm, { userId: 4 }, {
 *   subscription_data: [{ stream_id: 1, property: 'color', value: '#000000' }],
 * }, { now });
 * expect(r.status).toBe(200);
 * expect(r.events).toHaveLength(1);
 * ```
 */
export const updateSubscriptionSettings = defineOperation({
  name: 'updateSubscriptionSettings',
  method: 'POST',
  path: '/users/me/subscriptions/properties',
  operationId: 'update-subscription-settings',
  params: [param('subscription_data', subscriptionDataSchema, { required: true })],
  handler: ({ state, user, params, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    let next = state;
    const events: AddressedEvent[] = [];
    for (const change of params.subscription_data) {
      const refused = accessSubscription(next, user.user_id, change.stream_id);
      if (typeof refused === 'object' && 'code' in refused) return failure(state, refused);
      const sub = refused;
      // `in_home_view` is the legacy, inverted name of `is_muted`.
      const dbProperty = change.property === 'in_home_view' ? 'is_muted' : change.property;
      const dbValue = change.property === 'in_home_view' ? !change.value : change.value;
      const updated = editRecord(sub, (d) => {
        (d as Record<string, unknown>)[dbProperty] = dbValue;
      });
      next = edit(next, (draft) => putSubscription(draft, updated));
      const base = { type: 'subscription', op: 'update', stream_id: change.stream_id } as const;
      if (dbProperty === 'is_muted') {
        events.push(to([user.user_id], { ...base, property: 'in_home_view', value: !dbValue }));
      }
      events.push(to([user.user_id], { ...base, property: dbProperty, value: dbValue }));
    }
    return success(next, { ignored, events });
  },
});

/**
 * Zulip's `access_stream_by_id` then the subscription lookup: a missing or archived channel, or one
 * the user has no content access to, is an invalid id; otherwise the user must be subscribed.
 */
function accessSubscription(
  state: Parameters<typeof getSubscription>[0],
  userId: number,
  streamId: number,
): Subscription | ZulipError {
  const channel = state.channels.get(streamId);
  const user = state.users.get(userId);
  if (
    channel === undefined ||
    user === undefined ||
    channel.is_archived ||
    !hasContentAccess(state, user, channel)
  ) {
    return errors.invalidChannelId();
  }
  const sub = getSubscription(state, streamId, userId);
  if (sub === undefined || !sub.active) return errors.badRequest(`Not subscribed to channel ID ${streamId}`);
  return sub;
}
