import * as z from 'zod/mini';
import { zulipError } from '../../core/errors';
import { to, type ZulipEvent } from '../../core/events';
import { FLAG_BITS } from '../../core/messages/flags';
import { MessageCursor, type MessageStore } from '../../core/messages/store';
import { changeFlag } from '../../core/messages/update-flags';
import { nameOf } from '../../core/messages/interner';
import { isUnreadMuted } from '../../core/messages/unread-muting';
import { hasContentAccess, isSubscribed } from '../../core/permissions/channels';
import { isGuest } from '../../core/permissions/roles';
import { defineOperation } from '../../core/operation';
import { accepts, param, rawParam, zulipIssue } from '../../core/params';
import { failure, success } from '../../core/result';
import type { RealmState } from '../../core/state';
import type { User } from '../../core/model/records';
import { buildNarrow, firstUnreadAnchor, selectWindow, type NarrowContext } from '../../narrow';
import { parseNarrow } from '../../narrow/terms';
import { renameGeneralChat, resolveAnchor, type NarrowInput } from './narrow-request';

/** Zulip's MAX_MESSAGES_PER_UPDATE. */
export const MAX_MESSAGES_PER_UPDATE = 5000;

const ALL_FLAGS = new Set([
  'read',
  'starred',
  'collapsed',
  'mentioned',
  'stream_wildcard_mentioned',
  'topic_wildcard_mentioned',
  'group_mentioned',
  'force_expand',
  'force_collapse',
  'has_alert_word',
  'historical',
]);
const EDITABLE: Readonly<Record<string, number>> = {
  read: FLAG_BITS.read,
  starred: FLAG_BITS.starred,
  collapsed: FLAG_BITS.collapsed,
};

const narrowSchema = accepts<readonly NarrowInput[]>()(
  z.pipe(
    z.unknown(),
    z.transform((value, ctx) => {
      const r = parseNarrow(value);
      if (!r.ok) {
        zulipIssue(ctx, r.msg);
        return z.NEVER;
      }
      return r.terms;
    }),
  ),
);
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
    const built = buildNarrow(state, me, renameGeneralChat(params.narrow));
    if (!built.ok) return failure(state, built.error);
    const plan = built.plan;
    const anchor = anchorValue ?? firstUnreadAnchor(plan);
    const selection = selectWindow(plan, anchor, numBefore, numAfter, includeAnchor, true);

    const { flag, op } = params;
    if (!ALL_FLAGS.has(flag)) return failure(state, zulipError(`Invalid flag: '${flag}'`));
    const bit = Object.hasOwn(EDITABLE, flag) ? EDITABLE[flag] : undefined;
    if (bit === undefined) return failure(state, zulipError(`Flag not editable: '${flag}'`));
    if (op !== 'add' && op !== 'remove')
      return failure(state, zulipError(`Invalid message flag operation: '${op}'`));

    // The selection is a view of the narrow engine's scratch buffers (no copy): it is consumed
    // here before any other window is selected.
    const count = selection.ids.length;
    const firstId = count > 0 ? selection.ids[0]! : null;
    const lastId = count > 0 ? selection.ids[count - 1]! : null;
    let { ids, flags, positions } = selection;
    const store = state.messages;
    const ignoredChannels = new Set<number>();
    const cursor = new MessageCursor(store);
    const streamOf = (id: number) => {
      const c = cursor.channelOf(id);
      return c > 0 ? c : null;
    };
    if (flag === 'read' && op === 'remove') {
      // Marking unread skips messages in channels the user is not subscribed to now: the kept
      // rows are compacted in place (one pass, nothing allocated per row).
      let kept = 0;
      let lastChannel = 0;
      let lastOk = true;
      for (let k = 0; k < count; k++) {
        const id = ids[k]!;
        const streamId = streamOf(id);
        if (streamId !== null && streamId !== lastChannel) {
          lastChannel = streamId;
          lastOk = !ignoredChannels.has(streamId) && isSubscribed(state, streamId, me.user_id);
          if (!lastOk) ignoredChannels.add(streamId);
        }
        if (streamId !== null && !lastOk) continue;
        ids[kept] = id;
        flags[kept] = flags[k]!;
        positions[kept] = positions[k]!;
        kept++;
      }
      if (kept < count) {
        ids = ids.subarray(0, kept);
        flags = flags.subarray(0, kept);
        positions = positions.subarray(0, kept);
      }
    }
    const change = changeFlag(
      store,
      me.user_id,
      ids,
      flags,
      bit,
      op === 'add',
      (id) => streamOf(id) === null,
      positions,
    );
    if (
      change.created.length > 0 &&
      !change.created.every((id) => canAccessWithoutRow(state, me, streamOf(id)))
    ) {
      return failure(state, zulipError('Invalid message(s)'));
    }
    // Only the message store changes: a frozen shallow copy of the root instead of an immer draft
    // (the same result; immer's proxy and finalize pass cost more than the whole flag update).
    const next: RealmState =
      change.changed.length === 0
        ? state
        : Object.freeze({ ...state, messages: Object.freeze(change.store) });
    const event: ZulipEvent = {
      type: 'update_message_flags',
      op,
      operation: op,
      flag,
      messages: change.changed,
      all: false,
      ...(flag === 'read' && op === 'remove'
        ? { message_details: messageDetails(plan.ctx, change.store, change.changed, ids, flags) }
        : {}),
    };
    return success(next, {
      ignored,
      data: {
        processed_count: count,
        updated_count: change.changed.length,
        first_processed_id: firstId,
        last_processed_id: lastId,
        found_oldest: selection.foundOldest,
        found_newest: selection.foundNewest,
        ignored_because_not_subscribed_channels: [...ignoredChannels].sort((a, b) => a - b),
      },
      events: [to([me.user_id], event)],
    });
  },
});

/**
 * Zulip's access check before creating historical rows: a public channel (not a guest), or
 * content access; a private channel with protected history needs an existing row, so never here.
 */
function canAccessWithoutRow(state: RealmState, user: User, streamId: number | null): boolean {
  if (streamId === null) return false;
  const channel = state.channels.get(streamId);
  if (channel === undefined) return false;
  if (channel.invite_only && !channel.history_public_to_subscribers) return false;
  if (!channel.invite_only && !isGuest(user)) return true;
  return hasContentAccess(state, user, channel);
}

/**
 * `message_details` of an unread event: for channel messages the channel, topic and whether the
 * row is unmuted in Zulip's unread data (`isUnreadMuted`: topic policy over channel muting); for
 * DMs the other participants; `mentioned` when the user was mentioned (wildcard mentions only
 * when the row is not muted, as in Zulip's `extract_unread_data_from_um_rows`).
 *
 * `changed` (ascending) is a subset of `ids` (ascending), whose row flags are `flags` (-1: no row):
 * one merge walk gives each message's flags without searching the rows. Zulip sends an object keyed
 * by message id; V8 keeps an object with sparse integer keys as a dictionary whatever we do, so it
 * is created as one at once (the highest key first): growing it key by key in ascending order
 * re-decided its representation at every key and cost ~3× more.
 */
function messageDetails(
  ctx: NarrowContext,
  store: MessageStore,
  changed: readonly number[],
  ids: ArrayLike<number>,
  flags: ArrayLike<number>,
): Record<number, Record<string, unknown>> {
  const me = ctx.userId;
  const out: Record<number, Record<string, unknown>> = {};
  const n = changed.length;
  if (n === 0) return out;
  out[changed[n - 1]!] = EMPTY_DETAILS;
  const cursor = new MessageCursor(store);
  const topicNames = new Map<number, string>();
  // stream id → folded topic id → muted in unread data (Zulip's `is_row_muted`).
  const rowMuted = new Map<number, Map<number, boolean>>();
  let k = 0;
  for (let j = 0; j < n; j++) {
    const id = changed[j]!;
    while (k < ids.length && ids[k] !== id) k++;
    const f = k < ids.length ? flags[k]! : -1;
    if (!cursor.seek(id)) {
      if (j === n - 1) delete out[id];
      continue;
    }
    const c = cursor.chunk!;
    const i = cursor.index;
    const r = c.recipient[i]!;
    const rowFlags = f < 0 ? 0 : f;
    const direct = (rowFlags & FLAG_BITS.mentioned) !== 0;
    const wildcard =
      (rowFlags & (FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned)) !== 0;
    let details: Record<string, unknown>;
    if (r > 0) {
      const topic = topicNames.get(c.topic[i]!) ?? cacheName(topicNames, store, c.topic[i]!);
      let perChannel = rowMuted.get(r);
      if (perChannel === undefined) rowMuted.set(r, (perChannel = new Map()));
      let muted = perChannel.get(c.topicKey[i]!);
      if (muted === undefined)
        perChannel.set(c.topicKey[i]!, (muted = isUnreadMuted(ctx.state, me, r, topic)));
      details = { type: 'stream', stream_id: r, topic, unmuted_stream_msg: !muted };
      // Wildcard mentions count only when the row is not muted, by the same rule.
      if (direct || (wildcard && !muted)) details['mentioned'] = true;
    } else {
      details = { type: 'private', user_ids: ctx.members(-r).filter((u) => u !== me) };
      if (direct || wildcard) details['mentioned'] = true;
    }
    out[id] = details;
  }
  return out;
}

const EMPTY_DETAILS: Record<string, unknown> = Object.freeze({});

function cacheName(cache: Map<number, string>, store: MessageStore, topicId: number): string {
  const name = nameOf(store.topics, topicId);
  cache.set(topicId, name);
  return name;
}
