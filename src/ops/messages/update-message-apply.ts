import { castDraft } from 'immer';
import type { Effect } from '../../core/effects';
import { to, type AddressedEvent } from '../../core/events';
import { renderMarkdown } from '../../core/markdown';
import { FLAG_BITS, MESSAGE_BITS } from '../../core/messages/flags';
import { topicMessageIds, usersWithRows } from '../../core/messages/query';
import { followOnInitiation } from '../../core/messages/auto-follow';
import { moveUserTopics } from '../../core/messages/move-user-topics';
import { growRowHolders, carryRowHolders } from '../../core/messages/row-holders';
import { deleteRows, getRowFlags, insertRows, updateRowFlags, type UserRows } from '../../core/messages/rows';
import {
  locateMessage,
  type EditHistoryEntry,
  type MessageRecord,
  type MessageStore,
} from '../../core/messages/store';
import { moveMessages, replaceContent, setEdits } from '../../core/messages/store-edit';
import type { Channel, User } from '../../core/model/records';
import { isPublic, subscriberIds } from '../../core/permissions/channels';
import { isGuest } from '../../core/permissions/roles';
import { edit, success, type OpResult } from '../../core/result';
import type { RealmState } from '../../core/state';
import { NarrowContext } from '../../narrow';
import { flagNames } from './message-dict';

/** Zulip's `RESOLVED_TOPIC_PREFIX`. */
export const RESOLVED_TOPIC_PREFIX = '✔ ';

/** A checked PATCH /messages/{id}: everything `do_update_message` needs. */
export interface MessageUpdate {
  readonly record: MessageRecord;
  /** The message's channel (null for a direct message). */
  readonly channel: Channel | null;
  /** The destination of a move between channels. */
  readonly newChannel: Channel | null;
  readonly content: string | undefined;
  /** The new topic (truncated), when it changes. */
  readonly topic: string | undefined;
  readonly preTruncationTopic: string | undefined;
  readonly propagateMode: 'change_one' | 'change_later' | 'change_all';
  readonly notifyOld: boolean;
  readonly notifyNew: boolean;
  /** Content edits: the users the new content mentions (groups expanded), and its wildcards. */
  readonly mentioned: ReadonlySet<number>;
  readonly streamWildcard: boolean;
  readonly topicWildcard: boolean;
  readonly now: number;
  readonly ignored: readonly string[];
}

type Dict = Record<string, unknown>;

/** `do_update_message`: the new state, the events and Notification Bot's messages. */
export function applyMessageUpdate(state: RealmState, me: User, u: MessageUpdate): OpResult {
  const { record, channel, newChannel } = u;
  const timestamp = Math.floor(u.now);
  const moving = u.topic !== undefined || newChannel !== null;
  const oldTopic = record.topic;
  const newTopic = u.topic ?? oldTopic;
  let store = state.messages;
  const event: Dict = {
    type: 'update_message',
    user_id: me.user_id,
    edit_timestamp: timestamp,
    message_id: record.id,
    rendering_only: false,
  };
  if (channel !== null) {
    event['stream_name'] = channel.name;
    event['stream_id'] = channel.stream_id;
  }
  const history: EditHistoryEntry = { user_id: me.user_id, timestamp };
  const target: { -readonly [K in keyof EditHistoryEntry]: EditHistoryEntry[K] } = { ...history };

  if (u.content !== undefined) {
    const before = renderMarkdown(record.content);
    const after = renderMarkdown(u.content);
    event['orig_content'] = record.content;
    event['orig_rendered_content'] = before;
    event['content'] = u.content;
    event['rendered_content'] = after;
    event['is_me_message'] = u.content.startsWith('/me ') && !u.content.includes('\n');
    target.prev_content = record.content;
    target.prev_rendered_content = before;
    store = replaceContent(store, record.id, u.content, contentBits(record, u.content));
    store = updateMentionFlags(store, record, u);
  }
  if (moving) event['propagate_mode'] = u.propagateMode;
  if (newChannel !== null && channel !== null) {
    target.prev_stream = channel.stream_id;
    target.stream = newChannel.stream_id;
    event['orig_subject'] = oldTopic;
    event['new_stream_id'] = newChannel.stream_id;
  }
  if (u.topic !== undefined) {
    event['orig_subject'] = oldTopic;
    event['subject'] = u.topic;
    event['topic_links'] = [];
    target.prev_topic = oldTopic;
    target.topic = u.topic;
  }

  // Which messages change (`update_messages_for_topic_edit`): the topic's messages the user can see.
  let changed: number[] = [record.id];
  if (moving && channel !== null && u.propagateMode !== 'change_one') {
    const visible = visibleTopicMessages(state, me, channel, oldTopic);
    changed = u.propagateMode === 'change_all' ? visible : visible.filter((id) => id >= record.id);
    if (!changed.includes(record.id)) changed = [...changed, record.id].sort((a, b) => a - b);
  }
  const resolveOnly =
    u.topic !== undefined && newChannel === null && stripResolved(oldTopic) === stripResolved(u.topic);

  const events: AddressedEvent[] = [];
  let losingAccess: number[] = [];
  // Whether the destination topic had messages before the move (`target_topic_has_messages`).
  const targetKey = state.messages.foldedTopics.ids.get(newTopic.toLowerCase());
  const targetHadMessages =
    moving &&
    channel !== null &&
    targetKey !== undefined &&
    (state.messages.byTopic.get((newChannel ?? channel).stream_id)?.get(targetKey)?.count ?? 0) > 0;
  if (moving && channel !== null) {
    store = moveMessages(
      store,
      channel.stream_id,
      changed,
      newTopic,
      newChannel?.stream_id ?? channel.stream_id,
    );
    if (newChannel !== null) {
      const moved = moveRows(state, store, channel, newChannel, changed);
      store = moved.store;
      losingAccess = moved.losingAccess;
    }
  }

  // Edit history and the edit/move times.
  const others: EditHistoryEntry = {
    ...history,
    ...(target.prev_topic !== undefined ? { prev_topic: target.prev_topic, topic: target.topic } : {}),
    ...(target.prev_stream !== undefined ? { prev_stream: target.prev_stream, stream: target.stream } : {}),
  };
  const entries = changed.map((id) => {
    const old = store.edits.get(id);
    const entry = id === record.id ? (target as EditHistoryEntry) : others;
    return [
      id,
      {
        history: [entry, ...(old?.history ?? [])],
        ...(old?.last_edit_timestamp !== undefined ? { last_edit_timestamp: old.last_edit_timestamp } : {}),
        ...(old?.last_moved_timestamp !== undefined
          ? { last_moved_timestamp: old.last_moved_timestamp }
          : {}),
        ...(id === record.id && u.content !== undefined ? { last_edit_timestamp: timestamp } : {}),
        ...(moving && !resolveOnly ? { last_moved_timestamp: timestamp } : {}),
      },
    ] as const;
  });
  store = setEdits(store, entries);
  event['message_ids'] = changed;

  let next = edit(state, (draft) => {
    draft.messages = castDraft(store);
  });
  // Zulip sends it to every user losing access; deactivated ones have no event queues.
  const hearDelete = losingAccess.filter((id) => state.users.get(id)?.is_active === true);
  if (hearDelete.length > 0 && channel !== null) {
    events.push(
      to(hearDelete, {
        type: 'delete_message',
        message_ids: changed,
        message_type: 'stream',
        stream_id: channel.stream_id,
        topic: oldTopic,
      }),
    );
  }
  if (moving && channel !== null) {
    // User-topic records follow a move of the whole topic (as the mover sees it).
    const movedAll =
      u.propagateMode === 'change_all' || visibleTopicMessages(next, me, channel, oldTopic).length === 0;
    if (movedAll) {
      const dest = newChannel ?? channel;
      const carried = moveUserTopics(
        next,
        channel,
        oldTopic,
        dest,
        newTopic,
        new Set(losingAccess),
        targetHadMessages,
        u.now,
      );
      next = carried.state;
      events.push(...carried.events);
    } else {
      const followed = followMovedMessageSender(
        state,
        next,
        record,
        newChannel ?? channel,
        newTopic,
        changed,
        losingAccess,
        u.now,
      );
      next = followed.state;
      events.push(...followed.events);
    }
  }
  events.push(...perUserEvents(next, record, channel, newChannel, event, losingAccess));
  const effects = channel === null || !moving ? [] : notices(state, next, me, u, changed, resolveOnly);
  return success(next, { ignored: u.ignored, data: { detached_uploads: [] }, events, effects });
}

/**
 * A move that leaves visible messages behind (`do_update_message`'s branch when not
 * `moved_all_visible_messages`): the edited message's sender, unless a bot or losing access, gets
 * Zulip's on-initiation follow or unmute of the new topic when the message is now its first there
 * (no earlier message of the destination topic they can see, the moved ones aside).
 */
function followMovedMessageSender(
  before: RealmState,
  after: RealmState,
  record: MessageRecord,
  dest: Channel,
  topic: string,
  changed: readonly number[],
  losingAccess: readonly number[],
  now: number,
): { state: RealmState; events: AddressedEvent[] } {
  const none = { state: after, events: [] };
  const sender = after.users.get(record.sender_id);
  if (sender === undefined || sender.is_bot || losingAccess.includes(sender.user_id)) return none;
  const moved = new Set(changed);
  const first = visibleTopicMessages(before, sender, dest, topic).find((id) => !moved.has(id));
  if (first !== undefined && first < record.id) return none;
  return followOnInitiation(after, sender, dest, topic, now);
}

/** `has_link` etc. from the new content (Zulip's rendering sets them); other bits are kept. */
function contentBits(record: MessageRecord, content: string): number {
  let bits = record.has_attachment ? MESSAGE_BITS.has_attachment : 0;
  if (record.has_image) bits |= MESSAGE_BITS.has_image;
  if (record.reactions.length > 0) bits |= MESSAGE_BITS.has_reaction;
  if (/\bhttps?:\/\/|\bmailto:/i.test(content)) bits |= MESSAGE_BITS.has_link;
  return bits;
}

/**
 * Zulip's `update_user_message_flags` on the message's existing rows: `mentioned` set or cleared,
 * `stream_wildcard_mentioned` only ever set, `topic_wildcard_mentioned` (for topic participants)
 * set or cleared when there is no channel wildcard. Mentioned users without a row get none.
 */
function updateMentionFlags(store: MessageStore, record: MessageRecord, u: MessageUpdate): MessageStore {
  const holders = usersWithRows(store, [record.id]);
  let rows = store.rows;
  const participants =
    u.topicWildcard && record.stream_id !== null ? topicSenders(store, record) : new Set<number>();
  for (const userId of holders) {
    const r = rows.get(userId)!;
    const flags = getRowFlags(r, record.id)!;
    let set = 0;
    let clear = 0;
    if (u.mentioned.has(userId)) set |= FLAG_BITS.mentioned;
    else clear |= FLAG_BITS.mentioned;
    if (u.streamWildcard) set |= FLAG_BITS.stream_wildcard_mentioned;
    else if (u.topicWildcard && participants.has(userId)) set |= FLAG_BITS.topic_wildcard_mentioned;
    else if (!u.streamWildcard) clear |= FLAG_BITS.topic_wildcard_mentioned;
    const after = (flags | set) & ~clear;
    if (after !== flags) rows = rows.set(userId, updateRowFlags(r, [record.id], set, clear));
  }
  if (rows === store.rows) return store;
  carryRowHolders(store, rows);
  return store.with({ rows });
}

/** Senders and reactors in the message's topic (Zulip's `participants_for_topic`). */
function topicSenders(store: MessageStore, record: MessageRecord): Set<number> {
  const out = new Set<number>();
  for (const id of topicMessageIds(store, record.stream_id!, record.topic)) {
    const at = locateMessage(store, id);
    if (at !== undefined) out.add(at.chunk.sender[at.index]!);
    for (const r of store.reactions.get(id) ?? []) out.add(r.user_id);
  }
  return out;
}

/** The topic's messages the user may see (`bulk_access_stream_messages_query`), ascending. */
export function visibleTopicMessages(state: RealmState, me: User, channel: Channel, topic: string): number[] {
  const ids = topicMessageIds(state.messages, channel.stream_id, topic);
  if (new NarrowContext(state, me).canReadHistory(channel)) return ids;
  const rows = state.messages.rows.get(me.user_id);
  return rows === undefined ? [] : ids.filter((id) => getRowFlags(rows, id) !== undefined);
}

const stripResolved = (topic: string) => topic.replace(/^[✔ ]+/u, '');

/**
 * Rows of messages moved between channels (`do_update_message`): every user ever subscribed to the
 * old channel who is not subscribed to the new one loses their rows; of them, in a public
 * destination only guests lose access, in a private one all of them. Deactivated users count
 * (Zulip's `users_losing_access` does not filter them): they lose their user-topic records for the
 * old topic; only active ones hear `delete_message`. A destination with protected history gives its current subscribers a `read` row.
 */
function moveRows(
  state: RealmState,
  store: MessageStore,
  from: Channel,
  dest: Channel,
  ids: readonly number[],
): { store: MessageStore; losingAccess: number[] } {
  const destSubscribers = new Set<number>();
  for (const sub of state.subscriptions.get(dest.stream_id)?.values() ?? [])
    if (sub.active) destSubscribers.add(sub.user_id);
  const losingRows: number[] = [];
  for (const sub of state.subscriptions.get(from.stream_id)?.values() ?? [])
    if (!destSubscribers.has(sub.user_id)) losingRows.push(sub.user_id);
  const losingAccess = (
    isPublic(dest)
      ? losingRows.filter((id) => {
          const user = state.users.get(id);
          return user !== undefined && isGuest(user);
        })
      : losingRows
  ).sort((a, b) => a - b);
  let rows = store.rows;
  const idSet = new Set(ids);
  for (const userId of losingRows) {
    const r = rows.get(userId);
    if (r === undefined) continue;
    const next = deleteRows(r, idSet);
    if (next !== r) rows = next.count === 0 ? rows.delete(userId) : rows.set(userId, next);
  }
  const gaining: number[] = [];
  if (!dest.history_public_to_subscribers) {
    for (const userId of destSubscribers) {
      const r = rows.get(userId);
      const missing = ids.filter((id) => r === undefined || getRowFlags(r, id) === undefined);
      if (missing.length === 0) continue;
      const flags = new Uint16Array(missing.length).fill(FLAG_BITS.read);
      rows = rows.set(
        userId,
        r === undefined ? insertRows(emptyRows(), missing, flags) : insertRows(r, missing, flags),
      );
      gaining.push(userId);
    }
  }
  carryRowHolders(store, rows);
  const next = store.with({ rows });
  // The messages' earlier holders were added under the new channel by `moveMessages`.
  growRowHolders(next, dest.stream_id, gaining);
  return { store: next, losingAccess };
}

function emptyRows(): UserRows {
  return { chunks: [], count: 0 };
}

/**
 * The `update_message` event to each user holding a row for the edited message, with their flags
 * (one event per distinct flag set), and to the subscribers without a row with `["read"]` when the
 * channel's history is shared (Zulip's `subscriber_info`); never to users who lost access.
 */
function perUserEvents(
  state: RealmState,
  record: MessageRecord,
  channel: Channel | null,
  newChannel: Channel | null,
  event: Dict,
  losingAccess: readonly number[],
): AddressedEvent[] {
  const byFlags = new Map<string, number[]>();
  const seen = new Set<number>(losingAccess);
  const add = (userId: number, flags: string[]) => {
    const key = flags.join(',');
    const list = byFlags.get(key);
    if (list) list.push(userId);
    else byFlags.set(key, [userId]);
  };
  for (const userId of usersWithRows(state.messages, [record.id])) {
    if (seen.has(userId) || state.users.get(userId)?.is_active !== true) continue;
    seen.add(userId);
    const flags = getRowFlags(state.messages.rows.get(userId)!, record.id)!;
    add(userId, flagNames(flags & ~FLAG_BITS.is_private));
  }
  for (const c of [channel, newChannel]) {
    if (c === null || !c.history_public_to_subscribers) continue;
    for (const userId of subscriberIds(state, c.stream_id)) {
      if (seen.has(userId)) continue;
      seen.add(userId);
      add(userId, ['read']);
    }
  }
  const out: AddressedEvent[] = [];
  for (const [key, users] of byFlags) {
    const flags = key === '' ? [] : key.split(',');
    out.push(to(users, { ...event, type: 'update_message', flags }));
  }
  return out;
}

/** Notification Bot's messages (`maybe_send_resolve_topic_notifications`, `send_message_moved_breadcrumbs`). */
function notices(
  before: RealmState,
  after: RealmState,
  me: User,
  u: MessageUpdate,
  changed: readonly number[],
  resolveOnly: boolean,
): Effect[] {
  const channel = u.channel!;
  const dest = u.newChannel ?? channel;
  const oldTopic = u.record.topic;
  const newTopic = u.topic ?? oldTopic;
  const mention = `@_**${me.full_name}|${me.user_id}**`;
  const out: Effect[] = [];
  let resolvedNotice = false;
  if (u.topic !== undefined) {
    const resolved =
      newTopic.startsWith(RESOLVED_TOPIC_PREFIX) && !oldTopic.startsWith(RESOLVED_TOPIC_PREFIX);
    const unresolved =
      oldTopic.startsWith(RESOLVED_TOPIC_PREFIX) && !newTopic.startsWith(RESOLVED_TOPIC_PREFIX);
    if (resolved || unresolved) {
      resolvedNotice = true;
      out.push({
        type: 'post_notification_message',
        stream_id: dest.stream_id,
        topic: newTopic,
        content: `${mention} has marked this topic as ${resolved ? 'resolved' : 'unresolved'}.`,
      });
    }
  }
  const n = changed.length;
  const oldLink = `#**${channel.name}>${oldTopic}**`;
  const newLink = `#**${dest.name}>${newTopic}**`;
  const remaining = visibleTopicMessages(after, me, channel, oldTopic);
  const movedAll =
    u.newChannel === null && newTopic.toLowerCase() === oldTopic.toLowerCase()
      ? false
      : remaining.length === 0;
  const newNotices: Effect[] = [];
  const renamed =
    u.preTruncationTopic !== undefined && stripResolved(oldTopic) !== stripResolved(u.preTruncationTopic);
  if (u.notifyNew && (u.newChannel !== null || !resolvedNotice || renamed)) {
    const changedSet = new Set(changed);
    const preexisting = visibleTopicMessages(before, me, dest, newTopic).filter((id) => !changedSet.has(id));
    let content: string;
    if (preexisting.length === 0 && movedAll)
      content = `This topic was moved here from ${oldLink} by ${mention}.`;
    else if (n === 1)
      content = `[A message](${nearLink(after, dest, newTopic, u.record.id)}) was moved here from ${oldLink} by ${mention}.`;
    else content = `${n} messages were moved here from ${oldLink} by ${mention}.`;
    newNotices.push({
      type: 'post_notification_message',
      stream_id: dest.stream_id,
      topic: newTopic,
      content,
    });
  }
  void resolveOnly;
  out.push(...newNotices);
  if (u.notifyOld) {
    const content = movedAll
      ? `This topic was moved to ${newLink} by ${mention}.`
      : n === 1
        ? `A message was moved from this topic to ${newLink} by ${mention}.`
        : `${n} messages were moved from this topic to ${newLink} by ${mention}.`;
    out.push({ type: 'post_notification_message', stream_id: channel.stream_id, topic: oldTopic, content });
  }
  return out;
}

/** Zulip's `hash_util_encode`: percent-encoding with `.` for `%` (and `.` itself encoded). */
function hashEncode(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/\./g, '%2E')
    .replace(/%/g, '.');
}

/** `near_stream_message_url`: the realm URL, the channel's id-slug, the topic and the message. */
function nearLink(state: RealmState, channel: Channel, topic: string, id: number): string {
  const slug = hashEncode(channel.name.replace(/ /g, '-'));
  return `${state.realm.uri}/#narrow/channel/${channel.stream_id}-${slug}/topic/${hashEncode(topic)}/near/${id}`;
}
