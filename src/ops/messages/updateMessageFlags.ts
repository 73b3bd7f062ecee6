import * as z from 'zod/mini';
import { zulipError } from '../../core/errors';
import { to, type ZulipEvent } from '../../core/events';
import { FLAG_BITS } from '../../core/messages/flags';
import { lookUpRowFlags } from '../../core/messages/row-lookup';
import { EMPTY_ROWS, updateRowFlags } from '../../core/messages/rows';
import { MessageCursor } from '../../core/messages/store';
import {
  commitRows,
  createdRowFlags,
  createsRows,
  DEFAULT_HISTORICAL,
} from '../../core/messages/update-flags';
import { defineOperation } from '../../core/operation';
import { param, rawParam } from '../../core/params';
import { isSubscribed } from '../../core/permissions/channels';
import { failure, success } from '../../core/result';
import type { User } from '../../core/model/records';
import type { RealmState } from '../../core/state';
import { NarrowContext } from '../../narrow';
import { checkFlagUpdate } from './flag-names';
import { canAccessWithoutRow } from './flags-window';
import { messageDetails } from './message-details';

/**
 * POST /api/v1/messages/flags — https://zulip.com/api/update-message-flags (zerver/views/message_flags.py
 * `update_message_flags`, zerver/actions/message_flags.py `do_update_message_flags`)
 *
 * Adds or removes `read`, `starred` or `collapsed` on the listed messages, for the caller.
 * Zulip's order: the parameters (`messages`, `op`, `flag`), then `Invalid flag: '…'`,
 * `Flag not editable: '…'`, `Invalid message flag operation: '…'`. Marking unread skips messages
 * in channels the caller is not subscribed to now. Messages already in the target state are
 * dropped (a message without a row counts as read and historical), so an id the caller cannot see
 * — even one that does not exist — is harmless when marking read. When the target differs from
 * those defaults (starring, collapsing, marking unread), every message left without a row must be
 * one the caller may get a historical row for (public channel with shared history, or content
 * access to a channel whose history is public to subscribers), else `Invalid message(s)` and
 * nothing changes; the rows are then created.
 *
 * The answer echoes `messages` as sent; the event's `messages` are the ids that changed, in
 * request order (a repeated id is repeated, as in Zulip), with `message_details` when marking
 * unread. The event goes to the caller even when nothing changed.
 *
 * @example
 * ```ts
 * const r = updateMessageFlags(realm, { userId: 4 }, { messages: [112, 101], op: 'add', flag: 'starred' });
 * expect(r.body).toEqual({ result: 'success', msg: '', messages: [112, 101] });
 * ```
 */
export const updateMessageFlags = defineOperation({
  name: 'updateMessageFlags',
  method: 'POST',
  path: '/messages/flags',
  operationId: 'update-message-flags',
  params: [
    param('messages', z.array(z.int()), { required: true }),
    rawParam('op', z.string(), { required: true }),
    rawParam('flag', z.string(), { required: true }),
  ],
  handler: ({ state, user, params, ignored }) => {
    const me = user!;
    const checked = checkFlagUpdate(params.flag, params.op);
    if ('msg' in checked) return failure(state, checked);
    const { bit, add } = checked;
    const op = add ? 'add' : 'remove';
    const store = state.messages;
    const rows = store.rows.get(me.user_id) ?? EMPTY_ROWS;
    const cursor = new MessageCursor(store);
    const markUnread = bit === FLAG_BITS.read && !add;
    const target = add ? bit : 0;

    // Each listed message's row flags, found once (one forward walk when the ids ascend).
    const listed = params.messages;
    const looked = new Int32Array(listed.length);
    const ascending = lookUpRowFlags(rows, listed, looked);

    // Zulip's filters, in its order: unsubscribed channels (marking unread), then the target state.
    const messages: number[] = [];
    const keptFlags: number[] = [];
    for (let k = 0; k < listed.length; k++) {
      const id = listed[k]!;
      if (markUnread) {
        const channel = cursor.channelOf(id);
        if (channel > 0 && !isSubscribed(state, channel, me.user_id)) continue;
      }
      const f = looked[k]!;
      if (((f < 0 ? DEFAULT_HISTORICAL : f) & bit) === target) continue;
      messages.push(id);
      keptFlags.push(f);
    }

    // The changed messages ascending and distinct, with their flags (-1: no row yet).
    let unique = messages;
    let uniqueFlags = keptFlags;
    if (!ascending) {
      const flagsById = new Map<number, number>();
      for (let k = 0; k < messages.length; k++) flagsById.set(messages[k]!, keptFlags[k]!);
      unique = [...flagsById.keys()].sort((a, b) => a - b);
      uniqueFlags = unique.map((id) => flagsById.get(id)!);
    }
    const held: number[] = [];
    const heldFlags: number[] = [];
    const created: number[] = [];
    const createdFlags: number[] = [];
    for (let k = 0; k < unique.length; k++) {
      const id = unique[k]!;
      const f = uniqueFlags[k]!;
      if (f >= 0) {
        held.push(id);
        heldFlags.push(f);
        continue;
      }
      // Only reached when the target differs from the defaults (else the id was filtered out).
      const channel = cursor.channelOf(id);
      if (!createsRows(bit, add) || !canAccessWithoutRow(state, me, channel))
        return failure(state, zulipError('Invalid message(s)'));
      created.push(id);
      createdFlags.push(createdRowFlags(bit, add, channel === 0));
    }

    const flipped = updateRowFlags(rows, held, add ? bit : 0, add ? 0 : bit);
    const nextStore = commitRows(store, me.user_id, rows, flipped, created, createdFlags);
    const next: RealmState = nextStore === store ? state : Object.freeze({ ...state, messages: nextStore });
    const event: ZulipEvent = {
      type: 'update_message_flags',
      op,
      operation: op,
      flag: params.flag,
      messages,
      all: false,
      ...(markUnread ? { message_details: unreadDetails(next, me, unique, held, heldFlags) } : {}),
    };
    return success(next, { ignored, data: { messages: params.messages }, events: [to([me.user_id], event)] });
  },
});

/** `message_details` for the changed ids (ascending): the flags before the change, -1 for a created row. */
function unreadDetails(
  state: RealmState,
  me: User,
  changed: readonly number[],
  held: readonly number[],
  heldFlags: readonly number[],
) {
  const flags = new Int32Array(changed.length);
  let h = 0;
  for (let k = 0; k < changed.length; k++) {
    if (h < held.length && held[h] === changed[k]) flags[k] = heldFlags[h++]!;
    else flags[k] = -1;
  }
  return messageDetails(
    new NarrowContext(state, me),
    state.messages,
    changed,
    Int32Array.from(changed),
    flags,
  );
}
