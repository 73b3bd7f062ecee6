import { readAllRows, withUserRows } from '../../core/messages/mark-read';
import { EMPTY_ROWS } from '../../core/messages/rows';
import { defineOperation } from '../../core/operation';
import { success } from '../../core/result';
import type { RealmState } from '../../core/state';
import { readEvent } from './read-event';

/**
 * POST /api/v1/mark_all_as_read — https://zulip.com/api/mark-all-as-read (zerver/views/message_flags.py
 * `mark_all_as_read`, zerver/actions/message_flags.py `do_mark_all_as_read`)
 *
 * Marks every unread row of the caller as read. Zulip works in batches of 2000 under a 50-second
 * budget and answers `complete: false` when the budget runs out; the engine does it in one pass,
 * so `complete` is always true. Zulip sends one `update_message_flags` event with no ids and
 * `all: true` to the caller, even when nothing was unread (clients then mark everything read).
 * Deprecated in Zulip (FL 153) in favour of POST /messages/flags/narrow, still served.
 *
 * @example
 * ```ts
 * const r = markAllAsRead(realm, { userId: 4 });
 * expect(r.body).toEqual({ result: 'success', msg: '', complete: true });
 * ```
 */
export const markAllAsRead = defineOperation({
  name: 'markAllAsRead',
  method: 'POST',
  path: '/mark_all_as_read',
  operationId: 'mark-all-as-read',
  params: [],
  handler: ({ state, user, ignored }) => {
    const me = user!;
    const rows = state.messages.rows.get(me.user_id) ?? EMPTY_ROWS;
    const read = readAllRows(rows);
    const store = withUserRows(state.messages, me.user_id, read.rows);
    // Only the message store changes: a frozen shallow copy, as POST /messages/flags/narrow does.
    const next: RealmState = store === state.messages ? state : Object.freeze({ ...state, messages: store });
    return success(next, { ignored, data: { complete: true }, events: [readEvent(me.user_id, [], true)] });
  },
});
