import { FLAG_BITS } from '../../core/messages/flags';
import { RowFlip } from '../../core/messages/row-flip';
import { MessageCursor, type MessageStore } from '../../core/messages/store';
import { commitRows, createdRowFlags, createsRows } from '../../core/messages/update-flags';
import { hasContentAccess, isSubscribed } from '../../core/permissions/channels';
import { isGuest } from '../../core/permissions/roles';
import type { User } from '../../core/model/records';
import type { RealmState } from '../../core/state';
import { selectWindow, type NarrowPlan } from '../../narrow';

/**
 * The work of POST /messages/flags/narrow once the narrow is built: select the window and bring
 * its rows to the target state, in one pass where possible. The scan flips each row the user
 * holds as it selects it (`RowFlip`, copy-on-write per touched chunk); only marking unread outside
 * a one-channel narrow needs the selection first (rows in channels the user is not subscribed to
 * are skipped, which takes each row's channel), and only history mode can select messages without
 * a row (created afterwards, as Zulip's historical rows).
 */
export interface WindowUpdate {
  readonly store: MessageStore;
  /** Selected messages (before the unsubscribed-channel filter). */
  readonly processed: number;
  readonly firstId: number | null;
  readonly lastId: number | null;
  readonly foundOldest: boolean;
  readonly foundNewest: boolean;
  /** Ids whose flag changed, ascending (the event's `messages`). */
  readonly changed: number[];
  readonly ignoredChannels: number[];
  /**
   * The selection left after the filter, and each message's row flags before the change (-1: no
   * row): views of the narrow engine's scratch buffers, valid until the next window is selected.
   */
  readonly ids: Int32Array;
  readonly flags: Int32Array;
}

/** null: a message without a row that the user may not get one for (Zulip's "Invalid message(s)"). */
export function updateWindow(
  state: RealmState,
  me: User,
  plan: NarrowPlan,
  window: { anchor: number; numBefore: number; numAfter: number; includeAnchor: boolean },
  bit: number,
  add: boolean,
): WindowUpdate | null {
  const userId = me.user_id;
  const before = plan.ctx.rows;
  const { anchor, numBefore, numAfter, includeAnchor } = window;
  const flip = new RowFlip(before, bit, add, numBefore + 1 + numAfter);
  // Marking unread skips channels the user is not subscribed to now: decided once for a narrow
  // driven by one channel's (or topic's) list, else per row after the selection.
  const markUnread = bit === FLAG_BITS.read && !add;
  const oneChannel = markUnread ? plan.driveChannel : null;
  const oneChannelOk = oneChannel !== null && isSubscribed(state, oneChannel, userId);
  const flipWhileScanning = !markUnread || oneChannelOk;
  const sel = selectWindow(
    plan,
    anchor,
    numBefore,
    numAfter,
    includeAnchor,
    true,
    flipWhileScanning ? flip : null,
  );
  const processed = sel.ids.length;
  // Read before the filter below compacts the buffers in place.
  const firstId = processed > 0 ? sel.ids[0]! : null;
  const lastId = processed > 0 ? sel.ids[processed - 1]! : null;
  let { ids, flags } = sel;
  const ignoredChannels: number[] = [];
  const store = state.messages;
  if (markUnread && !flipWhileScanning) {
    if (oneChannel !== null) {
      if (processed > 0) ignoredChannels.push(oneChannel);
      ids = ids.subarray(0, 0);
      flags = flags.subarray(0, 0);
    } else {
      const kept = keepSubscribed(state, userId, ids, flags, sel.positions, ignoredChannels);
      ids = ids.subarray(0, kept);
      flags = flags.subarray(0, kept);
      for (let k = 0; k < kept; k++) if (flags[k]! >= 0) flip.row(ids[k]!, sel.positions[k]!, flags[k]!);
    }
  }

  // Messages without a row (history mode only) get one when their default flags change.
  const created: number[] = [];
  const createdFlags: number[] = [];
  if (plan.history && createsRows(bit, add)) {
    const cursor = new MessageCursor(store);
    for (let k = 0; k < ids.length; k++) {
      if (flags[k]! >= 0) continue;
      const id = ids[k]!;
      const channel = cursor.channelOf(id);
      if (!canAccessWithoutRow(state, me, channel)) return null;
      created.push(id);
      createdFlags.push(createdRowFlags(bit, add, channel === 0));
    }
  }

  const flipped = flip.changedIds();
  const changed = created.length === 0 ? flipped : mergeAscending(flipped, created);
  return {
    store: commitRows(store, userId, before, flip.result(), created, createdFlags),
    processed,
    firstId,
    lastId,
    foundOldest: sel.foundOldest,
    foundNewest: sel.foundNewest,
    changed,
    ignoredChannels: ignoredChannels.sort((a, b) => a - b),
    ids,
    flags,
  };
}

/** Two ascending lists of distinct ids as one. */
function mergeAscending(a: readonly number[], b: readonly number[]): number[] {
  const out = new Array<number>(a.length + b.length);
  let i = 0;
  let j = 0;
  for (let k = 0; k < out.length; k++)
    out[k] = j >= b.length || (i < a.length && a[i]! < b[j]!) ? a[i++]! : b[j++]!;
  return out;
}

/**
 * Marking unread: compacts the selection in place to the messages outside channels the user is
 * not subscribed to (direct messages always stay); adds those channels to `ignored`. Returns how
 * many are kept.
 */
function keepSubscribed(
  state: RealmState,
  userId: number,
  ids: Int32Array,
  flags: Int32Array,
  positions: Int32Array,
  ignored: number[],
): number {
  const cursor = new MessageCursor(state.messages);
  let kept = 0;
  let lastChannel = 0;
  let lastOk = true;
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k]!;
    const channel = cursor.channelOf(id);
    if (channel > 0 && channel !== lastChannel) {
      lastChannel = channel;
      lastOk = isSubscribed(state, channel, userId);
      if (!lastOk && !ignored.includes(channel)) ignored.push(channel);
    }
    if (channel > 0 && !lastOk) continue;
    ids[kept] = id;
    flags[kept] = flags[k]!;
    positions[kept] = positions[k]!;
    kept++;
  }
  return kept;
}

/**
 * Zulip's access check before creating historical rows: a public channel (not a guest), or
 * content access; a private channel with protected history needs an existing row, so never here.
 * `channel` is 0 for a direct message and -1 for a missing message.
 */
export function canAccessWithoutRow(state: RealmState, user: User, channel: number): boolean {
  if (channel <= 0) return false;
  const c = state.channels.get(channel);
  if (c === undefined) return false;
  if (c.invite_only && !c.history_public_to_subscribers) return false;
  if (!c.invite_only && !isGuest(user)) return true;
  return hasContentAccess(state, user, c);
}
