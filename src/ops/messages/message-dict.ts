import { DirectMapped } from '../../core/collections/direct-mapped';
import {
  ContentReader,
  isMeMessage,
  renderedContent,
  type ChannelDictTemplate,
  type TemplateKey,
} from '../../core/messages/rendered';
import { FLAG_BITS, FLAG_NAMES, MESSAGE_BITS } from '../../core/messages/flags';
import { clientName } from '../../core/messages/client-names';
import { nameOf } from '../../core/messages/interner';
import type { MessageChunk, MessageRecord } from '../../core/messages/store';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../../core/model/realm';
import type { RealmState } from '../../core/state';
import type { User } from '../../core/model/records';
import { accessibleUserIdsAmong, isUserAccessRestricted } from '../../core/permissions/user-access';
import { avatarUrl, fakeEmailDomain } from '../../core/users/format';
import { INACCESSIBLE_USER_AVATAR_URL, INACCESSIBLE_USER_NAME } from '../../core/users/inaccessible-user';

/**
 * A message in Zulip's API shape (`MessageDict.wide_dict` then `finalize_payload`), for GET
 * /messages, GET /messages/{id} and `message` events.
 *
 * Edited messages carry `edit_history` (per the realm's visibility policy), `last_edit_timestamp`
 * and `last_moved_timestamp`. Not modelled: submessages and topic links (always empty), and Zulip's
 * `recipient_id` (its Recipient table's ids, which the model has no table for): we number channels
 * `3·stream_id`, one-to-one conversations `3·user_id + 1` (the other user, as Zulip's personal
 * recipient) and group conversations `3·conversation id + 2`. See docs/differences/messages.md.
 */
export interface DictOptions {
  readonly applyMarkdown: boolean;
  readonly clientGravatar: boolean;
  readonly allowEmptyTopicName: boolean;
  /**
   * Who reads the dictionaries: a restricted guest gets senders they cannot access as "Unknown
   * user" (Zulip's `can_access_sender` in `messages_for_ids`). Absent: every sender as they are.
   */
  readonly viewer?: User | null;
  /**
   * For one message's dict: the HTML of its content when the caller already has it (a send,
   * which renders its message once as it stores it). Absent: rendered (or found) here.
   */
  readonly rendered?: string;
}

/** Flag names by bit pattern: a read names the same few patterns for thousands of rows. */
const flagNamesByBits = new Map<number, readonly string[]>();

/**
 * Zulip's API flag names for a row's bits (bit order), with the legacy `wildcard_mentioned`, as
 * one frozen array shared by every caller asking for the same bits: a window of 1000 messages
 * names a handful of patterns, and a fresh copy per message was a tenth of a fetch's garbage.
 */
function sharedFlagNames(bits: number): readonly string[] {
  let names = flagNamesByBits.get(bits);
  if (names === undefined) {
    const out: string[] = FLAG_NAMES.filter((n) => (bits & FLAG_BITS[n]) !== 0);
    if ((bits & (FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned)) !== 0)
      out.push('wildcard_mentioned');
    names = Object.freeze(out);
    // Bounded by the flag bits in use (a few dozen patterns at most in practice).
    if (flagNamesByBits.size < 4096) flagNamesByBits.set(bits, names);
  }
  return names;
}

/** `sharedFlagNames` as a fresh array the caller owns (events: their flags are built per recipient group). */
export function flagNames(bits: number): string[] {
  // A message event's usual flags are none: a new array, not a copy of the frozen shared one.
  return bits === 0 ? [] : sharedFlagNames(bits).slice();
}

/** Distinct senders (or topics) a request meets before it gets a `DirectMapped` front, and its size. */
const FRONT_AFTER = 4;
const FRONT_BITS = 8;

/** The flags of a message the reader has no row for (Zulip's `read` + `historical`), shared and frozen. */
const HISTORICAL_FLAGS: readonly string[] = Object.freeze(['read', 'historical']);

/**
 * The always-empty `topic_links` and `submessages`, and `reactions` of a message without any:
 * one frozen array shared by every dict `channelDictAt` builds (GET /messages answers are
 * read-only: three fresh arrays per message were most of what a fetch allocated beyond the dicts).
 */
const NONE: readonly never[] = Object.freeze([]);

export function recipientId(m: MessageRecord): number {
  if (m.stream_id !== null) return 3 * m.stream_id;
  const participants = m.participants ?? [];
  if (participants.length <= 2) {
    const other = participants.find((u) => u !== m.sender_id) ?? m.sender_id;
    return 3 * other + 1;
  }
  return 3 * conversationNumber(participants) + 2;
}

/** A stable number for a group conversation (its participants' ids folded), never a table id. */
function conversationNumber(participants: readonly number[]): number {
  let h = 17;
  for (const u of participants) h = (Math.imul(h, 31) + u) >>> 0;
  return h % 100_000_000;
}

/**
 * Per-request memo of what many messages share (a sender's name, email and avatar URL — an MD5 for
 * gravatars —, a channel's name, a conversation's recipients): a window of 1000 messages from a
 * few senders computes each once.
 */
export class DictCache {
  // Made on first use: a send's one dict needs none of them, and four maps were a fifth of its dict's cost.
  private senders: Map<number, { full_name: string; email: string; avatar: string | null }> | undefined;
  private recipients: Map<string, unknown> | undefined;
  private channelNames: Map<number, string> | undefined;

  /** Set for a restricted guest: senders are checked against what GET /users shows them. */
  private readonly restricted: User | undefined;

  constructor(
    private readonly state: RealmState,
    private readonly clientGravatar: boolean,
    viewer?: User | null,
  ) {
    if (viewer !== undefined && viewer !== null && isUserAccessRestricted(state, viewer))
      this.restricted = viewer;
    this.content = new ContentReader(state.messages);
  }

  private lastSenderId = -1;
  private lastSender: { full_name: string; email: string; avatar: string | null } | undefined;

  /**
   * Fronts for `senders` and `topicNames` (`DirectMapped`), made once a request has met a few
   * distinct keys: a single message's dict (an event) allocates none.
   */
  private senderFront: DirectMapped<{ full_name: string; email: string; avatar: string | null }> | undefined;
  private topicFront: DirectMapped<string> | undefined;

  sender(id: number): { full_name: string; email: string; avatar: string | null } {
    // Runs of one sender are common in a conversation: the last answer is checked before the map.
    if (id === this.lastSenderId) return this.lastSender!;
    let s = this.senderFront?.get(id) ?? this.senders?.get(id);
    if (s === undefined) {
      const u = this.state.users.get(id);
      const hidden =
        this.restricted !== undefined &&
        accessibleUserIdsAmong(this.state, this.restricted, [id]).length === 0;
      s = hidden
        ? inaccessibleSender(this.state, id)
        : u
          ? { full_name: u.full_name, email: u.email, avatar: avatarUrl(this.state, u, this.clientGravatar) }
          : { full_name: '', email: '', avatar: null };
      // The first sender is kept as the last one alone: a single dict (an event) makes no map.
      if (this.lastSender !== undefined) {
        const senders = (this.senders ??= new Map([[this.lastSenderId, this.lastSender]]));
        senders.set(id, s);
        if (this.senderFront === undefined && senders.size >= FRONT_AFTER)
          this.senderFront = new DirectMapped(FRONT_BITS);
      }
    }
    this.senderFront?.set(id, s);
    this.lastSenderId = id;
    this.lastSender = s;
    return s;
  }

  /** The chunk `edited` last looked at, and whether any message in its id range has edits. */
  private editsChunk: MessageChunk | undefined;
  private editsInChunk = false;

  /**
   * Whether message `id` of `chunk` was ever edited or moved (it then takes `messageDict`). The
   * edits trie is asked once per chunk whether any key falls in the chunk's id range, and per
   * message only in a chunk that holds an edited message.
   */
  edited(chunk: MessageChunk, id: number): boolean {
    if (chunk !== this.editsChunk) {
      const ids = chunk.ids;
      this.editsChunk = chunk;
      this.editsInChunk = ids.length > 0 && this.state.messages.edits.hasKeyIn(ids[0]!, ids[ids.length - 1]!);
    }
    return this.editsInChunk && this.state.messages.edits.has(id);
  }

  private lastFlagBits = -1;
  private lastFlags: readonly string[] = HISTORICAL_FLAGS;

  /**
   * A row's flag names (`sharedFlagNames`), or read+historical for a message without a row
   * (negative bits): most of a window's rows share their neighbour's flags.
   */
  flagNames(bits: number): readonly string[] {
    if (bits === this.lastFlagBits) return this.lastFlags;
    this.lastFlags = bits < 0 ? HISTORICAL_FLAGS : sharedFlagNames(bits);
    this.lastFlagBits = bits;
    return this.lastFlags;
  }

  /** A stored message's HTML and `is_me_message` by its place in its chunk (`channelDictAt`). */
  readonly content: ContentReader;

  private key: TemplateKey | undefined;
  private keyOpts: DictOptions | undefined;

  /**
   * What `channelDictAt`'s templates depend on besides the message's own columns: senders'
   * names, emails and avatars (users, realm), channel names, and the request's three options.
   * Undefined for a restricted guest, whose senders may be hidden: their dicts are built afresh.
   */
  templateKey(opts: DictOptions): TemplateKey | undefined {
    if (this.restricted !== undefined) return undefined;
    // A fetch passes the same options for every message: the key is made once.
    if (opts === this.keyOpts) return this.key;
    const variant =
      (opts.applyMarkdown ? 1 : 0) | (this.clientGravatar ? 2 : 0) | (opts.allowEmptyTopicName ? 4 : 0);
    if (this.key?.variant !== variant)
      this.key = { users: this.state.users, channels: this.state.channels, realm: this.state.realm, variant };
    this.keyOpts = opts;
    return this.key;
  }

  private lastChannelId = -1;
  private lastChannel = '';

  /** The last topic asked for: a window's messages come in runs of one topic (all of a topic narrow). */
  private lastTopicId = -1;
  private lastTopic = '';

  private topicNames: Map<number, string> | undefined;

  /**
   * An interned topic's name: the last one while the topic stays the same, else this request's
   * map (a channel's window cycles through a few topics), the interner's trie only once per topic.
   */
  topicName(topicId: number): string {
    if (topicId !== this.lastTopicId) {
      let name = this.topicFront?.get(topicId) ?? this.topicNames?.get(topicId);
      if (name === undefined) {
        name = nameOf(this.state.messages.topics, topicId);
        const names = (this.topicNames ??= new Map());
        names.set(topicId, name);
        if (this.topicFront === undefined && names.size >= FRONT_AFTER)
          this.topicFront = new DirectMapped(FRONT_BITS);
      }
      this.topicFront?.set(topicId, name);
      this.lastTopic = name;
      this.lastTopicId = topicId;
    }
    return this.lastTopic;
  }

  /** A channel's name (a channel message's `display_recipient`), by number: no key string per message. */
  channelName(streamId: number): string {
    // A fetch is mostly one channel: the last answer is checked before the map.
    if (streamId === this.lastChannelId) return this.lastChannel;
    let name = this.channelNames?.get(streamId);
    if (name === undefined) {
      name = this.state.channels.get(streamId)?.name ?? '';
      // The first channel is kept as the last one alone: a single dict (an event) makes no map.
      if (this.lastChannelId !== -1)
        (this.channelNames ??= new Map([[this.lastChannelId, this.lastChannel]])).set(streamId, name);
    }
    this.lastChannelId = streamId;
    this.lastChannel = name;
    return name;
  }

  displayRecipient(m: MessageRecord): unknown {
    if (m.stream_id !== null) return this.channelName(m.stream_id);
    const key = (m.participants ?? []).join(',');
    let r = this.recipients?.get(key);
    if (r === undefined) {
      r = (m.participants ?? []).map((id) => {
        const u = this.state.users.get(id);
        return { id, email: u?.email ?? '', full_name: u?.full_name ?? '', is_mirror_dummy: false };
      });
      (this.recipients ??= new Map()).set(key, r);
    }
    // Each message gets its own copy of a conversation's list (callers may edit their dicts).
    return Array.isArray(r) ? r.map((x: object) => ({ ...x })) : r;
  }
}

export function messageDict(
  state: RealmState,
  m: MessageRecord,
  opts: DictOptions,
  flags?: readonly string[],
  cache: DictCache = new DictCache(state, opts.clientGravatar, opts.viewer),
): Record<string, unknown> {
  const sender = cache.sender(m.sender_id);
  const isStream = m.stream_id !== null;
  const topic = isStream && m.topic === '' && !opts.allowEmptyTopicName ? EMPTY_TOPIC_DISPLAY_NAME : m.topic;
  const displayRecipient = cache.displayRecipient(m);
  const content = opts.applyMarkdown ? (opts.rendered ?? renderedContent(m.content)) : m.content;
  const contentType = opts.applyMarkdown ? 'text/html' : 'text/x-markdown';
  const isMe = isMeMessage(m.content);
  const reactions = m.reactions.length === 0 ? [] : m.reactions.map((r) => ({ ...r }));
  // One literal per kind, in the same key order: keys added after a literal grow the object's
  // out-of-object property store (an allocation per dict), and a conditional spread inside the
  // literal took the generic (slow) object-spread path.
  const dict: Record<string, unknown> = isStream
    ? {
        id: m.id,
        sender_id: m.sender_id,
        content,
        recipient_id: recipientId(m),
        timestamp: m.timestamp,
        client: m.client,
        subject: topic,
        topic_links: [],
        is_me_message: isMe,
        reactions,
        submessages: [],
        sender_full_name: sender.full_name,
        sender_email: sender.email,
        sender_realm_str: state.realm.string_id,
        display_recipient: displayRecipient,
        type: 'stream',
        stream_id: m.stream_id,
        avatar_url: sender.avatar,
        content_type: contentType,
      }
    : {
        id: m.id,
        sender_id: m.sender_id,
        content,
        recipient_id: recipientId(m),
        timestamp: m.timestamp,
        client: m.client,
        subject: topic,
        topic_links: [],
        is_me_message: isMe,
        reactions,
        submessages: [],
        sender_full_name: sender.full_name,
        sender_email: sender.email,
        sender_realm_str: state.realm.string_id,
        display_recipient: displayRecipient,
        type: 'private',
        avatar_url: sender.avatar,
        content_type: contentType,
      };
  addEditFields(state, m.id, dict, opts.allowEmptyTopicName);
  if (flags !== undefined) dict['flags'] = flags;
  return dict;
}

/**
 * The event dict of a channel message this send has just stored: `messageDict` (markdown applied,
 * no client gravatar, the empty topic as is) of it, built from what the send already holds — no
 * decoded record and no `DictCache` (a sender and a channel name are each read once). A new
 * message has no edits and no reactions. The same keys in the same order as `messageDict`'s.
 */
export function sentChannelDict(
  state: RealmState,
  sender: User,
  channel: { readonly stream_id: number; readonly name: string },
  topic: string,
  id: number,
  timestamp: number,
  content: string,
  html: string,
  client: string,
): Record<string, unknown> {
  return {
    id,
    sender_id: sender.user_id,
    content: html,
    recipient_id: 3 * channel.stream_id,
    timestamp,
    client,
    subject: topic,
    topic_links: [],
    is_me_message: isMeMessage(content),
    reactions: [],
    submessages: [],
    sender_full_name: sender.full_name,
    sender_email: sender.email,
    sender_realm_str: state.realm.string_id,
    display_recipient: channel.name,
    type: 'stream',
    stream_id: channel.stream_id,
    avatar_url: senderAvatar(state, sender),
    content_type: 'text/html',
  };
}

/**
 * The last sender's avatar URL (no client gravatar), by user record and realm id: records are
 * immutable (a new avatar is a new record), and consecutive sends are often one sender's, whose
 * URL was otherwise built again (a key string, its memo lookup, the URL) on every send.
 */
let lastAvatar: { readonly user: User; readonly realmId: number; readonly url: string | null } | undefined;
function senderAvatar(state: RealmState, sender: User): string | null {
  const last = lastAvatar;
  if (last !== undefined && last.user === sender && last.realmId === state.realm.id) return last.url;
  const url = avatarUrl(state, sender, false);
  lastAvatar = { user: sender, realmId: state.realm.id, url };
  return url;
}

/**
 * `messageDict` of the channel message `id` (at `index` of `chunk`: the caller has found it, so
 * its id is not read again from the column) with `flags`, read straight from the
 * columns (no decoded record: a window of 1000 messages allocated one per message for nothing), or
 * undefined for a direct message or an edited one (those take `messageDict`). The same keys in the
 * same order as `messageDict`'s, built in one literal: one allocation with the final shape.
 */
export function channelDictAt(
  state: RealmState,
  chunk: MessageChunk,
  index: number,
  id: number,
  opts: DictOptions,
  flags: readonly string[],
  cache: DictCache,
): Record<string, unknown> | undefined {
  const streamId = chunk.recipient[index]!;
  const store = state.messages;
  if (streamId <= 0 || cache.edited(chunk, id)) return undefined;
  // The has_reaction bit is kept with the reactions (store-reactions.ts): no map lookup without it.
  // The stored list is frozen, reactions and all (frozen-reactions.ts): shared, not copied.
  const reacted = (chunk.bits[index]! & MESSAGE_BITS.has_reaction) !== 0;
  const reactions = reacted ? (store.reactions.get(id) ?? NONE) : NONE;
  // A template built under the same key for the same message (the id guards the position) with
  // the same reactions list is this dict but for `flags`: copied whole (one fast-shaped clone,
  // what the dicts floor does) instead of looking up every field again.
  const key = cache.templateKey(opts);
  const templates = key === undefined ? undefined : cache.content.templates(chunk.content, id, key);
  const template = templates?.[index];
  if (template !== undefined && template.id === id && template.reactions === reactions) {
    // One literal with the reader's flags, read field by field from the template: it allocates
    // the final shape at once and ran ~15% under a spread followed by setting `flags`.
    const t = template;
    return {
      id: t.id,
      sender_id: t.sender_id,
      content: t.content,
      recipient_id: t.recipient_id,
      timestamp: t.timestamp,
      client: t.client,
      subject: t.subject,
      topic_links: t.topic_links,
      is_me_message: t.is_me_message,
      reactions: t.reactions,
      submessages: t.submessages,
      sender_full_name: t.sender_full_name,
      sender_email: t.sender_email,
      sender_realm_str: t.sender_realm_str,
      display_recipient: t.display_recipient,
      type: t.type,
      stream_id: t.stream_id,
      avatar_url: t.avatar_url,
      content_type: t.content_type,
      flags,
    };
  }
  const senderId = chunk.sender[index]!;
  const sender = cache.sender(senderId);
  const raw = chunk.content[index]!;
  const stored = cache.topicName(chunk.topic[index]!);
  const topic = stored === '' && !opts.allowEmptyTopicName ? EMPTY_TOPIC_DISPLAY_NAME : stored;
  const dict: ChannelDictTemplate = {
    id,
    sender_id: senderId,
    content: opts.applyMarkdown ? cache.content.html(chunk.content, index, id) : raw,
    recipient_id: 3 * streamId,
    timestamp: chunk.timestamp[index]!,
    client: clientName(chunk.bits[index]!, id, store.clients),
    subject: topic,
    topic_links: NONE,
    is_me_message: cache.content.isMe(chunk.content, index, id),
    reactions,
    submessages: NONE,
    sender_full_name: sender.full_name,
    sender_email: sender.email,
    sender_realm_str: state.realm.string_id,
    display_recipient: cache.channelName(streamId),
    type: 'stream',
    stream_id: streamId,
    avatar_url: sender.avatar,
    content_type: opts.applyMarkdown ? 'text/html' : 'text/x-markdown',
    flags,
  };
  if (templates === undefined) return dict;
  // The caller owns what it gets (a search adds match fields): the template is a copy kept aside.
  templates[index] = { ...dict };
  return dict;
}

/**
 * What a restricted guest sees of a sender they cannot access (Zulip's `finalize_payload` with
 * `can_access_sender=False`): "Unknown user", the fake `user{id}@{fake email domain}` address and
 * the inaccessible-user avatar, as GET /users shows that user to them.
 */
function inaccessibleSender(
  state: RealmState,
  id: number,
): { full_name: string; email: string; avatar: string } {
  return {
    full_name: INACCESSIBLE_USER_NAME,
    email: `user${id}@${fakeEmailDomain(state)}`,
    avatar: INACCESSIBLE_USER_AVATAR_URL,
  };
}

/** A message dictionary as a restricted guest who cannot access its sender receives it. */
export function withInaccessibleSender(
  state: RealmState,
  dict: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const hidden = inaccessibleSender(state, Number(dict['sender_id']));
  return {
    ...dict,
    sender_full_name: hidden.full_name,
    sender_email: hidden.email,
    avatar_url: hidden.avatar,
  };
}

/**
 * `edit_history` (as the realm's `message_edit_history_visibility_policy` shows it: everything,
 * moves only, or nothing), `last_edit_timestamp` and `last_moved_timestamp` of an edited message.
 */
function addEditFields(
  state: RealmState,
  id: number,
  dict: Record<string, unknown>,
  allowEmpty: boolean,
): void {
  const edits = state.messages.edits.get(id);
  if (edits === undefined) return;
  const policy = state.realm.message_edit_history_visibility_policy;
  if (policy !== 'none') {
    const topicName = (t: string) => (t === '' && !allowEmpty ? EMPTY_TOPIC_DISPLAY_NAME : t);
    const visible = edits.history.filter(
      (e) => policy === 'all' || e.prev_topic !== undefined || e.prev_stream !== undefined,
    );
    if (visible.length > 0)
      dict['edit_history'] = visible.map((e) => {
        const out: Record<string, unknown> = { user_id: e.user_id, timestamp: e.timestamp };
        if (policy === 'all' && e.prev_content !== undefined) {
          out['prev_content'] = e.prev_content;
          out['prev_rendered_content'] = e.prev_rendered_content;
        }
        if (e.prev_topic !== undefined) {
          out['prev_topic'] = topicName(e.prev_topic);
          out['topic'] = topicName(e.topic ?? '');
        }
        if (e.prev_stream !== undefined) {
          out['prev_stream'] = e.prev_stream;
          out['stream'] = e.stream;
        }
        return out;
      });
  }
  if (edits.last_edit_timestamp !== undefined) dict['last_edit_timestamp'] = edits.last_edit_timestamp;
  if (edits.last_moved_timestamp !== undefined) dict['last_moved_timestamp'] = edits.last_moved_timestamp;
}
