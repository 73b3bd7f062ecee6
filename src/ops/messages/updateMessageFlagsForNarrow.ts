import * as z from 'zod/mini';
import { zulipError } from '../../core/errors';
import { to, type ZulipEvent } from '../../core/events';
import { defineOperation } from '../../core/operation';
import { param, rawParam } from '../../core/params';
import { failure, success } from '../../core/result';
import type { RealmState } from '../../core/state';
import { buildNarrow, firstUnreadAnchor } from '../../narrow';
import { checkFlagUpdate } from './flag-names';
import { updateWindow } from './flags-window';
import { messageDetails } from './message-details';
import { renameGeneralChat, resolveAnchor, resolveWithOperator, narrowSchema } from './narrow-request';

/** Zulip's MAX_MESSAGES_PER_UPDATE. */
export const MAX_MESSAGES_PER_UPDATE = 5000;

// The library API may pass the anchor as a number; the wire always sends text.
const anchorSchema = z.union([z.string(), z.int()]);

/** Zulip's clamp of the window to MAX_MESSAGES_PER_UPDATE (never an error on this endpoint). */
export function clampCounts(numBefore: number, numAfter: number): [number, number] {
  const before = Math.min(
    numBefore,
    Math.max(MAX_MESSAGES_PER_UPDATE - numAfter, MAX_MESSAGES_PER_UPDATE / 2),
  );
  const after = Math.min(numAfter, MAX_MESSAGES_PER_UPDATE - before);
  return [before, after];
}

/**
 * POST /api/v1/messages/flags/narrow — https://zulip.com/api/update-message-flags-for-narrow
 *
 * Differences from Zulip (details in docs/differences/narrow.md):
 * - `search` approximates PostgreSQL full-text search (light stemming, English stop words).
 * - `first_visible_message_id` (plan-limited history) is not modelled: always 0.
 * - No `group_mentioned` flag in the store, so `is:mentioned` tests the personal and wildcard bits.
 * - Cross-realm system bots are not users of the realm, so `sender` cannot name them.
 * - Marking read clears no push notifications and bumps no statistics (nothing to model).
 *
 * @example
 * ```ts
 * // Mark everything Hamlet has in #Verona as read, 5000 messages per request.
 * const r = updateMessageFlagsForNarrow(realm, { userId: 4 }, {
 *   anchor: 'oldest', num_before: 0, num_after: 5000, include_anchor: true,
 *   narrow: [{ operator: 'channel', operand: 1 }], op: 'add', flag: 'read',
 * }, { now });
 * expect(r.status).toBe(200);
 * expect(r.body).toMatchObject({ found_newest: true });
 * ```
 */
export const updateMessageFlagsForNarrow = defineOperation({
  name: 'updateMessageFlagsForNarrow',
  method: 'POST',
  path: '/messages/flags/narrow',
  operationId: 'update-message-flags-for-narrow',
  params: [
    rawParam('anchor', anchorSchema, { required: true }),
    rawParam('flag', z.string(), { required: true }),
    param('include_anchor', z.boolean()),
    param('narrow', narrowSchema, { required: true }),
    param('num_after', z.int().check(z.nonnegative()), { required: true }),
    param('num_before', z.int().check(z.nonnegative()), { required: true }),
    rawParam('op', z.string(), { required: true }),
  ],
  handler: ({ state, user, params, ignored }) => {
    const me = user!;
    const anchorValue = resolveAnchor(params.anchor);
    if (anchorValue === undefined) return failure(state, zulipError('Invalid anchor'));
    const includeAnchor = params.include_anchor ?? true;
    if (params.num_before > 0 && params.num_after > 0 && !includeAnchor) {
      return failure(state, zulipError('The anchor can only be excluded at an end of the range'));
    }
    const [numBefore, numAfter] = clampCounts(params.num_before, params.num_after);
    const terms = resolveWithOperator(state, me, renameGeneralChat(params.narrow));
    if (!Array.isArray(terms)) return failure(state, terms);
    const built = buildNarrow(state, me, terms);
    if (!built.ok) return failure(state, built.error);
    const plan = built.plan;

    // Checked before the window is selected (the flip happens during the selection); selecting
    // cannot fail, so the errors come in Zulip's order all the same.
    const { flag } = params;
    const checked = checkFlagUpdate(flag, params.op);
    if ('msg' in checked) return failure(state, checked);
    const { bit } = checked;
    const op = checked.add ? 'add' : 'remove';

    const anchor = anchorValue ?? firstUnreadAnchor(plan);
    const w = updateWindow(
      state,
      me,
      plan,
      { anchor, numBefore, numAfter, includeAnchor },
      bit,
      op === 'add',
    );
    if (w === null) return failure(state, zulipError('Invalid message(s)'));
    // Only the message store changes: a frozen shallow copy of the root instead of an immer draft
    // (the same result; immer's proxy and finalize pass cost more than the whole flag update).
    const next: RealmState =
      w.store === state.messages ? state : Object.freeze({ ...state, messages: w.store });
    const event: ZulipEvent = {
      type: 'update_message_flags',
      op,
      operation: op,
      flag,
      messages: w.changed,
      all: false,
      ...(flag === 'read' && op === 'remove'
        ? { message_details: messageDetails(plan.ctx, w.store, w.changed, w.ids, w.flags) }
        : {}),
    };
    return success(next, {
      ignored,
      data: {
        processed_count: w.processed,
        updated_count: w.changed.length,
        first_processed_id: w.firstId,
        last_processed_id: w.lastId,
        found_oldest: w.foundOldest,
        found_newest: w.foundNewest,
        ignored_because_not_subscribed_channels: w.ignoredChannels,
      },
      events: [to([me.user_id], event)],
    });
  },
});
