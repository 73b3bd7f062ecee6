import type { Effect } from '../../core/effects';
import { zulipError } from '../../core/errors';
import { to, type AddressedEvent, type ZulipEvent } from '../../core/events';
import { FLAG_BITS, MESSAGE_BITS } from '../../core/messages/flags';
import { addPersonalFlags } from '../../core/messages/personal-flags';
import { findMentions, mayMention, type Mentions } from '../../core/messages/mentions';
import { topicMessageIds } from '../../core/messages/query';
import { getRowFlags } from '../../core/messages/rows';
import { decode, locateMessage } from '../../core/messages/store';
import type { MessageStore } from '../../core/messages/store-types';
import { renderStored } from '../../core/messages/rendered';
import { foldedTopicId } from '../../core/messages/interner';
import { LIBRARY_CLIENT, clientBits } from '../../core/messages/client-names';
import {
  appendMessage,
  chunkLength,
  lastIdOf,
  newestInChunk,
  nextMessageId,
  type RowBatch,
} from '../../core/messages/store-append';
import {
  AutoPolicy,
  canAccessChannelHistory,
  policyForSend,
  setTopicPolicy,
  topicPolicy,
} from '../../core/messages/auto-follow';
import { isRecentlyActive } from '../../core/channels/stream-dict';
import type { Channel, User } from '../../core/model/records';
import { metadataAccessUserIds, sharedSubscriberIds } from '../../core/permissions/channels';
import { settingValueMembers } from '../../core/permissions/groups';
import {
  hasPermission,
  hasRealmPermission,
  USER_GROUP_SETTING_RULES,
} from '../../core/permissions/setting-rules';
import { failure, type OpResult, type ZulipSuccess } from '../../core/result';
import type { RealmState } from '../../core/state';
import { flagNames, messageDict, sentChannelDict, withInaccessibleSender } from './message-dict';
import {
  allUsersAccessible,
  accessibleUserIdsAmong,
  isUserAccessRestricted,
} from '../../core/permissions/user-access';
import { accessGainedEvents } from './send-access-events';
import { withMessages } from '../../core/with-messages';

/** A checked addressee: a channel and (truncated) topic, or a conversation's sorted participants. */
export type Addressee =
  | { readonly kind: 'stream'; readonly channel: Channel; readonly topic: string }
  | { readonly kind: 'private'; readonly participants: readonly number[] };

export interface DeliverOptions {
  readonly now: number;
  readonly readBySender: boolean;
  /** The sending client's name (client-names.ts); absent: "API". */
  readonly client?: string | undefined;
  readonly localId: string | undefined;
  readonly queueId: string | undefined;
  readonly ignored: readonly string[];
}

/** Zulip's Realm.WILDCARD_MENTION_THRESHOLD. */
export const WILDCARD_MENTION_THRESHOLD = 15;

const NO_USERS: ReadonlySet<number> = new Set();

/** A send's effects: none, one frozen list for every send. */
const NO_EFFECTS: readonly Effect[] = Object.freeze([]);

/** A channel message's `participants` (read only for direct messages): one list for every send. */
const NO_PARTICIPANTS: readonly number[] = Object.freeze([]);

const NO_MENTIONS: Mentions = {
  userIds: NO_USERS,
  groupIds: [],
  streamWildcard: false,
  topicWildcard: false,
};

/** Zulip's `DEFAULT_BOT` bot type: such bots get a row when mentioned, subscribed or not. */
const DEFAULT_BOT = 1;

/**
 * The end of `check_message` (mention permissions) and `do_send_messages`: the message and its
 * rows are appended to the store, the sender's and mentioned users' topic policies updated, and
 * each recipient gets the `message` event with their own flags.
 */
export function deliverMessage(
  state: RealmState,
  sender: User,
  target: Addressee,
  content: string,
  opts: DeliverOptions,
): OpResult {
  const mentions = mayMention(content) ? findMentions(state, content) : NO_MENTIONS;
  const isStream = target.kind === 'stream';
  const recipients: readonly number[] = isStream
    ? sharedSubscriberIds(state, target.channel.stream_id)
    : target.participants.filter((id) => state.users.get(id)?.is_active === true);

  // Topic participants (senders in the topic, and this sender) matter only for @topic.
  let participants: ReadonlySet<number> = NO_USERS;
  if (isStream && mentions.topicWildcard) participants = topicParticipants(state, target, sender.user_id);
  if (isStream && mentions.streamWildcard && recipients.length > WILDCARD_MENTION_THRESHOLD) {
    if (!hasRealmPermission(state, sender, 'can_mention_many_users_group'))
      return failure(
        state,
        zulipError(
          'You do not have permission to use channel wildcard mentions in this channel.',
          'STREAM_WILDCARD_MENTION_NOT_ALLOWED',
        ),
      );
  }
  if (isStream && mentions.topicWildcard && participants.size > WILDCARD_MENTION_THRESHOLD) {
    if (!hasRealmPermission(state, sender, 'can_mention_many_users_group'))
      return failure(
        state,
        zulipError(
          'You do not have permission to use topic wildcard mentions in this topic.',
          'TOPIC_WILDCARD_MENTION_NOT_ALLOWED',
        ),
      );
  }
  // A message without mentions (most) allocates nothing here.
  const byGroup = mentions.groupIds.length > 0;
  const mentioned: ReadonlySet<number> = byGroup ? new Set(mentions.userIds) : mentions.userIds;
  if (byGroup)
    for (const groupId of [...mentions.groupIds].sort((a, b) => a - b)) {
      const group = state.groups.get(groupId)!;
      if (!hasPermission(state, sender, USER_GROUP_SETTING_RULES.can_mention_group, group.can_mention_group))
        return failure(state, zulipError(`You are not allowed to mention user group '${group.name}'.`));
    }
  if (byGroup)
    for (const groupId of mentions.groupIds)
      for (const u of settingValueMembers(state, groupId)) (mentioned as Set<number>).add(u);

  // UserMessage rows: the recipients, plus mentioned default bots (`um_eligible_user_ids`). Two
  // parallel columns and no object per recipient: a large channel's send is a few passes over them.
  let bots: number[] | undefined;
  // (Loops over `mentioned` are skipped when it is empty, most sends: each made a set iterator.)
  if (mentioned.size > 0)
    for (const id of mentioned) {
      const u = state.users.get(id);
      if (u?.is_active && u.is_bot && u.bot_type === DEFAULT_BOT && ascendingIndexOf(recipients, id) < 0)
        (bots ??= []).push(id);
    }
  const eligible: readonly number[] = bots === undefined ? recipients : [...recipients, ...bots];
  let base = mentions.streamWildcard ? FLAG_BITS.stream_wildcard_mentioned : 0;
  if (!isStream) base |= FLAG_BITS.is_private;
  const flags = flagScratch(eligible.length, base);
  const at = recipients.length;
  if (opts.readBySender) markFlag(flags, eligible, at, sender.user_id, FLAG_BITS.read);
  if (mentioned.size > 0)
    for (const userId of mentioned) markFlag(flags, eligible, at, userId, FLAG_BITS.mentioned);
  if (mentions.topicWildcard)
    for (const userId of participants)
      markFlag(flags, eligible, at, userId, FLAG_BITS.topic_wildcard_mentioned);
  addPersonalFlags(
    state,
    eligible,
    flags,
    sender.user_id,
    content,
    bots === undefined ? ascendingIndexOf : eligibleIndexOf(at),
  );
  const rows = { userIds: eligible, flags };

  const id = nextMessageId(state.messages);
  const timestamp = Math.floor(opts.now);
  const client = opts.client === undefined ? 0 : clientBits(opts.client);
  const wasActive = isStream && recentlyActiveBefore(state, target.channel.stream_id, timestamp);
  const store = appendMessage(
    state.messages,
    {
      id,
      sender: sender.user_id,
      timestamp,
      bits: linkBits(content) | client,
      content,
      streamId: isStream ? target.channel.stream_id : null,
      topic: isStream ? target.topic : '',
      participants: isStream ? NO_PARTICIPANTS : target.participants,
      // Always set (no conditional spread: that takes the slow generic path on every send).
      client: opts.client,
    },
    rows,
  );
  let next: RealmState = withMessages(state, store);
  const events: AddressedEvent[] = [];
  let automatic: 2 | 3 | null = null;

  if (isStream) {
    const { channel, topic } = target;
    // The sender's automatic follow / unmute (`set_visibility_policy_possible`: humans only).
    const s = sender.settings;
    if (
      !sender.is_bot &&
      !(
        s.automatically_follow_topics_policy === AutoPolicy.never &&
        s.automatically_unmute_topics_in_muted_streams_policy === AutoPolicy.never
      )
    ) {
      const sub = state.subscriptions.get(channel.stream_id)?.get(sender.user_id);
      const muted = sub?.active === true && sub.is_muted;
      const policy = policyForSend(
        sender,
        muted,
        topicPolicy(state, sender.user_id, channel.stream_id, topic),
        () => hadTopicMessages(state, sender, channel, topic),
      );
      if (policy !== null) {
        const changed = setTopicPolicy(next, [sender.user_id], channel, topic, policy, opts.now);
        next = changed.state;
        events.push(...changed.events);
        automatic = policy;
      }
    }
    // Mentioned humans among the recipients follow the topic unless they muted or follow it (a
    // message without mentions, most, builds no list for it).
    if (mentioned.size > 0) {
      const after = next;
      const toFollow = [...mentioned]
        .filter((u) => ascendingIndexOf(recipients, u) >= 0)
        .filter((u) => {
          const user = after.users.get(u)!;
          if (user.is_bot || !user.settings.automatically_follow_topics_where_mentioned) return false;
          const p = topicPolicy(after, u, channel.stream_id, topic);
          return p !== 1 && p !== 3;
        })
        .sort((a, b) => a - b);
      if (toFollow.length > 0) {
        const followed = setTopicPolicy(next, toFollow, channel, topic, 3, opts.now);
        next = followed.state;
        events.push(...followed.events);
      }
    }
    if (!wasActive) {
      events.push(
        to(metadataAccessUserIds(next, channel), {
          type: 'stream',
          op: 'update',
          stream_id: channel.stream_id,
          name: channel.name,
          property: 'is_recently_active',
          value: true,
        }),
      );
    }
  }

  if (!isStream) {
    // Guests who gain access to users through this conversation learn of them first.
    const others = target.participants.filter((u) => u !== sender.user_id);
    events.push(...accessGainedEvents(state, sender, others.length > 0 ? others : [sender.user_id]));
  }
  // The message just appended is the newest chunk's last: decoded there (no lookup by id), and a
  // channel message's HTML rendered once into that chunk's derived column, where reads of recent
  // messages find it (a direct message's dict reads the text-keyed memo, as before).
  const last = store.lastChunk!;
  const newest = chunkLength(last) - 1;
  // A channel message's dict is built from what this send knows (no decoded record, no dict
  // cache: `sentChannelDict`); a direct message's goes through `messageDict` as before.
  const message = isStream
    ? sentChannelDict(
        next,
        sender,
        target.channel,
        target.topic,
        id,
        timestamp,
        content,
        renderStored(last.content, newest),
        opts.client ?? LIBRARY_CLIENT,
      )
    : messageDict(next, decode(store, last, newest), PRIVATE_EVENT_DICT);
  return {
    state: next,
    status: 200,
    body: successBody(id, automatic, opts.ignored),
    events: messageEvents(
      next,
      events,
      message,
      sender.user_id,
      content,
      isStream ? target.channel : undefined,
      rows,
      opts,
    ),
    effects: NO_EFFECTS,
  };
}

/** The direct message event's dict options (one object for every send). */
const PRIVATE_EVENT_DICT = { applyMarkdown: true, clientGravatar: false, allowEmptyTopicName: true } as const;

/**
 * `success`'s body for a send, each shape one literal: `success` spreads its data and ignored
 * parameters into the body, V8's generic copy, on every send. Key order as `success` gives it.
 */
function successBody(
  id: number,
  automatic: 2 | 3 | null,
  ignored: readonly string[],
): ZulipSuccess<{ id: number } | { id: number; automatic_new_visibility_policy: 2 | 3 }> {
  if (ignored.length === 0)
    return automatic === null
      ? { result: 'success', msg: '', id }
      : { result: 'success', msg: '', id, automatic_new_visibility_policy: automatic };
  return automatic === null
    ? { result: 'success', msg: '', id, ignored_parameters_unsupported: ignored }
    : {
        result: 'success',
        msg: '',
        id,
        automatic_new_visibility_policy: automatic,
        ignored_parameters_unsupported: ignored,
      };
}

/**
 * One `message` event per distinct flag set (each recipient sees their own flags); the sender first,
 * alone when their queue is to get `local_message_id`. Appended to `out`, the send's other events,
 * which is returned; when `out` is empty and one event goes to everyone (the usual send), a
 * one-event list is returned instead (pushing onto the empty list allocated room for 17).
 */
function messageEvents(
  state: RealmState,
  out: AddressedEvent[],
  message: Record<string, unknown>,
  senderId: number,
  markdown: string,
  channel: Channel | undefined,
  rows: RowBatch & { readonly userIds: readonly number[] },
  opts: DeliverOptions,
): AddressedEvent[] {
  const { userIds, flags } = rows;
  const ascending = isAscending(userIds);
  let byFlags: Map<number, number[]> | undefined;
  let senderFlags: number | undefined;
  const hidesSender = senderHiddenFrom(state, senderId);
  const separateSender = opts.queueId !== undefined && opts.localId !== undefined;
  // Most recipients share one flag set: the previous group is tried before the map. When all do
  // (the usual send: no mention, no muting, the sender's row like the others) and the list is
  // ascending, the event is addressed to the recipients' list itself, shared rather than copied.
  let lastKey = -1;
  let lastList: number[] = [];
  let senderKey = -1;
  let whole = false;
  if (ascending && hidesSender === null && !separateSender && sameFlags(flags, userIds.length)) {
    whole = userIds.length > 0;
  } else
    for (let k = 0; k < userIds.length; k++) {
      const userId = userIds[k]!;
      const f = flags[k]!;
      if (separateSender && userId === senderId) {
        senderFlags = f & ~IS_PRIVATE;
        continue;
      }
      // Recipients who may not see the sender get their own event (the HIDDEN bit is above every flag).
      const key = (f & ~IS_PRIVATE) | (hidesSender !== null && hidesSender(userId) ? HIDDEN : 0);
      if (userId === senderId) senderKey = key;
      if (key !== lastKey) {
        let list = (byFlags ??= new Map()).get(key);
        if (list === undefined) byFlags.set(key, (list = []));
        lastKey = key;
        lastList = list;
      }
      lastList.push(userId);
    }
  // The message events go after what `out` already holds (the send's other events).
  const start = out.length;
  // Zulip's Tornado also gives a public channel's messages to `all_public_streams` queues: the
  // first event says so. Every event is built as one literal (a spread of an event costs V8's slow
  // copy), its keys in the order they always had: event, users, forQueue, markdown, allPublicStreams.
  // The recipients' list is itself ascending and never changed: shared, not copied.
  const everyone =
    channel !== undefined && !channel.invite_only
      ? { except: ascending ? userIds : [...userIds].sort((a, b) => a - b) }
      : undefined;
  if (senderFlags !== undefined) {
    const event: ZulipEvent = { type: 'message', message, flags: flagNames(senderFlags) };
    const forQueue = { queueId: opts.queueId!, fields: { local_message_id: opts.localId! } };
    out.push(
      everyone === undefined
        ? { event, users: [senderId], forQueue, markdown }
        : { event, users: [senderId], forQueue, markdown, allPublicStreams: everyone },
    );
  }
  if (whole) {
    // Everyone in one event (no sender's event before it: `separateSender` is off).
    const event: ZulipEvent = { type: 'message', message, flags: flagNames(flags[0]! & ~IS_PRIVATE) };
    const addressed: AddressedEvent =
      everyone === undefined
        ? { event, users: userIds, markdown }
        : { event, users: userIds, markdown, allPublicStreams: everyone };
    if (start === 0) return [addressed];
    out.push(addressed);
    return out;
  }
  // The sender's group first, then by flags.
  const groups: Array<readonly [number, readonly number[]]> = [...(byFlags ?? [])].sort((a, b) =>
    a[0] === senderKey ? -1 : b[0] === senderKey ? 1 : a[0] - b[0],
  );
  let anonymous: Record<string, unknown> | undefined;
  for (const [key, users] of groups) {
    const names = flagNames(key & ~HIDDEN);
    const shown = (key & HIDDEN) === 0 ? message : (anonymous ??= withInaccessibleSender(state, message));
    const event: ZulipEvent = { type: 'message', message: shown, flags: names };
    const list = ascending ? users : to(users, event).users;
    out.push(
      everyone === undefined || out.length > start
        ? { event, users: list, markdown }
        : { event, users: list, markdown, allPublicStreams: everyone },
    );
  }
  // A channel without subscribers gives no one a row, but Tornado still offers the message to
  // every `all_public_streams` queue: an event for those queues alone (no direct recipient).
  if (everyone !== undefined && out.length === start)
    out.push({
      event: { type: 'message', message, flags: [] },
      users: [],
      markdown,
      allPublicStreams: everyone,
    });
  return out;
}

/**
 * The send's flag column: one buffer reused by every send (only its first `n` entries count, set to
 * `base`). The store copies the flags into its rows and the events read them before the send
 * returns, so nothing keeps it; a new `Uint16Array` per send was an off-heap allocation for any
 * channel over 32 recipients.
 */
let scratch = new Uint16Array(64);
function flagScratch(n: number, base: number): Uint16Array {
  if (scratch.length < n) scratch = new Uint16Array(2 ** Math.ceil(Math.log2(n)));
  // A small send's few entries by a loop: `fill` is a builtin call that costs more than them.
  if (n <= 32) for (let k = 0; k < n; k++) scratch[k] = base;
  else scratch.fill(base, 0, n);
  return scratch;
}

function sameFlags(flags: ArrayLike<number>, n: number): boolean {
  const first = flags[0];
  for (let k = 1; k < n; k++) if (flags[k] !== first) return false;
  return true;
}

function isAscending(ids: readonly number[]): boolean {
  for (let i = 1; i < ids.length; i++) if (!(ids[i - 1]! < ids[i]!)) return false;
  return true;
}

/**
 * The position of `userId` among the eligible users: the ascending recipients (the first `at`),
 * then a few mentioned bots.
 */
function indexAmong(eligible: readonly number[], at: number, userId: number): number {
  const k = ascendingIndexOf(eligible, userId, at);
  if (k >= 0 || at === eligible.length) return k;
  return eligible.indexOf(userId, at);
}

function eligibleIndexOf(at: number): (eligible: readonly number[], userId: number) => number {
  return (eligible, userId) => indexAmong(eligible, at, userId);
}

function markFlag(
  flags: Uint16Array,
  eligible: readonly number[],
  at: number,
  userId: number,
  bit: number,
): void {
  const k = indexAmong(eligible, at, userId);
  if (k >= 0) flags[k] = flags[k]! | bit;
}

/** The position of `id` in an ascending list (its first `end` entries), or -1. */
function ascendingIndexOf(ids: readonly number[], id: number, end = ids.length): number {
  let lo = 0;
  let hi = end;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ids[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  return lo < end && ids[lo] === id ? lo : -1;
}

// Read once: a module's exports are getters once compiled to CommonJS, too slow for per-recipient loops.
const IS_PRIVATE = FLAG_BITS.is_private;

/** Marks a recipient group whose sender is hidden (flag bits fit in 16). */
const HIDDEN = 1 << 16;

/**
 * Whether a recipient is a restricted guest who cannot access the sender (null: no one is): Zulip's Tornado gives
 * them the message with `can_access_sender=False` ("Unknown user", fake email, placeholder avatar).
 */
function senderHiddenFrom(state: RealmState, senderId: number): ((userId: number) => boolean) | null {
  const sender = state.users.get(senderId);
  if (allUsersAccessible(state) || sender === undefined || sender.is_bot) return null;
  return (userId) => {
    const viewer = state.users.get(userId);
    if (viewer === undefined || userId === senderId || !isUserAccessRestricted(state, viewer)) return false;
    return accessibleUserIdsAmong(state, viewer, [senderId]).length === 0;
  };
}

/** Senders of the topic's messages plus this sender (`participants_for_topic`, reactions aside). */
function topicParticipants(
  state: RealmState,
  target: Extract<Addressee, { kind: 'stream' }>,
  senderId: number,
): Set<number> {
  const out = new Set<number>([senderId]);
  for (const mid of topicMessageIds(state.messages, target.channel.stream_id, target.topic)) {
    const at = locateMessage(state.messages, mid);
    if (at !== undefined) out.add(at.chunk.sender[at.index]!);
    for (const r of state.messages.reactions.get(mid) ?? []) out.add(r.user_id);
  }
  return out;
}

/**
 * Whether the sender could already see a message in the topic (before this one): any message when
 * they can read the channel's history, else one of their own rows — looked for newest first, where
 * their own earlier messages are, so a conversation in progress answers at once.
 */
function hadTopicMessages(state: RealmState, sender: User, channel: Channel, topic: string): boolean {
  const key = foldedTopicId(state.messages.foldedTopics, topic);
  const list = key === undefined ? undefined : state.messages.byTopic.get(channel.stream_id)?.get(key);
  if (list === undefined || list.count === 0) return false;
  if (canAccessChannelHistory(state, sender, channel)) return true;
  const rows = state.messages.rows.get(sender.user_id);
  if (rows === undefined) return false;
  for (let c = list.chunks.length - 1; c >= 0; c--) {
    const chunk = list.chunks[c]!;
    for (let i = chunk.length - 1; i >= 0; i--) if (getRowFlags(rows, chunk[i]!) !== undefined) return true;
  }
  return false;
}

/** Recently active before this send: the newest message decides at once when it is recent. */
function recentlyActiveBefore(state: RealmState, streamId: number, now: number): boolean {
  const list = state.messages.byChannel.get(streamId);
  // The last id alone: the list's chunks are put together only when read.
  const lastId = list === undefined ? undefined : lastIdOf(list);
  if (lastId === undefined) return false;
  if (timestampOf(state.messages, lastId) >= now - 180 * 86400) return true;
  return isRecentlyActive(state, streamId, now);
}

const LINK = /\bhttps?:\/\/|\bmailto:/i;

/**
 * The timestamp of message `lastId`, or -Infinity when it is not stored. The channel's newest
 * message is usually the store's newest (the previous send): looked at first, before a search
 * over every chunk.
 */
function timestampOf(store: MessageStore, lastId: number): number {
  const last = store.lastChunk;
  // (An empty chunk answers 0, never a message id.)
  if (last !== undefined && newestInChunk(last, 'ids') === lastId) return newestInChunk(last, 'timestamp');
  const at = locateMessage(store, lastId);
  return at === undefined ? -Infinity : at.chunk.timestamp[at.index]!;
}

/** `has_link` from the content (Zulip sets it when rendering finds a link). */
function linkBits(content: string): number {
  // Both forms have a colon: most messages have none, and skip the case-insensitive search.
  return content.includes(':') && LINK.test(content) ? MESSAGE_BITS.has_link : 0;
}
