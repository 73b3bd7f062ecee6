/**
 * The checks Zulip's `check_message` runs before a message is sent (or scheduled), in its order,
 * as pure functions over the realm state. Shared by any operation that re-validates a send
 * (today: PATCH /scheduled_messages/{id}).
 *
 * Not modelled: wildcard-mention and user-group-mention permissions (they need Zulip's Markdown
 * mention parser), forged/mirror senders, cross-realm bots.
 */
import { canAccessUser } from '../permissions/user-access';
import { errors, zulipError, type ZulipError } from '../errors';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../model/realm';
import type { Channel, User } from '../model/records';
import { codePointLength } from '../params';
import { isSubscribed } from '../permissions/channels';
import { isUserInSettingValue } from '../permissions/groups';
import { isGuest } from '../permissions/roles';
import { CHANNEL_SETTING_RULES, hasPermission, hasRealmPermission } from '../permissions/setting-rules';
import type { RealmState } from '../state';
import { isVisibleAscii, pythonStrip } from '../text/whitespace';
import { conversationKey, foldedTopicId } from './interner';

/** Python's `str.isspace` characters (JS `\s` also strips U+FEFF, which Python keeps). */
const PY_SPACE =
  '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const TRAILING_SPACE = new RegExp(`[${PY_SPACE}]+$`, 'u');

/** Python's `str.rstrip()` without arguments (`text/whitespace.ts` has the two-sided strips). */
export const pyRstrip = (s: string): string =>
  isVisibleAscii(s.charCodeAt(s.length - 1)) ? s : s.replace(TRAILING_SPACE, '');

/** Zulip's `truncate_content`: cut to `max` code points, the last ones replaced by `suffix`. */
export function truncateCodePoints(text: string, max: number, suffix: string): string {
  // A string has at most as many code points as UTF-16 units: short ones need no count.
  if (text.length <= max || codePointLength(text) <= max) return text;
  return [...text].slice(0, Math.max(0, max - codePointLength(suffix))).join('') + suffix;
}

/** `truncate_topic`: to the server's max topic length, ending in `...`. */
export function truncateTopic(state: RealmState, topic: string): string {
  return truncateCodePoints(topic, state.server.max_topic_length, '...');
}

/** `normalize_body`: trailing whitespace and leading newlines dropped; empty or NUL refused; truncated. */
export function normalizeMessageContent(state: RealmState, raw: string): string | ZulipError {
  const stripped = pyRstrip(raw);
  const body = stripped.charCodeAt(0) === 0x0a ? stripped.replace(/^\n+/, '') : stripped;
  if (body.length === 0) return errors.badRequest('Message must not be empty');
  if (body.includes('\x00')) return errors.badRequest('Message must not contain null bytes');
  return truncateCodePoints(body, state.server.max_message_length, '\n[message truncated]');
}

// Control, surrogate and unassigned code points (Python's categories Cc, Cs, Cn).
const UNPRINTABLE = /[\p{Cc}\p{Cs}\p{Cn}]/u;

/** `check_stream_topic`: the 1-based code-point position of the first unprintable character. */
export function checkTopicPrintable(topic: string): ZulipError | undefined {
  // Printable ASCII (space included) is never Cc, Cs or Cn: most topics need no regex per character.
  let k = 0;
  for (; k < topic.length; k++) {
    const code = topic.charCodeAt(k);
    if (code < 0x20 || code > 0x7e) break;
  }
  if (k === topic.length) return undefined;
  let position = 0;
  for (const ch of topic) {
    position++;
    if (UNPRINTABLE.test(ch))
      return errors.badRequest(`Invalid character in topic, at position ${position}!`);
  }
  return undefined;
}

/**
 * The topic of a channel addressee (`Addressee.for_stream_id`): stripped, the realm's display name
 * for the empty topic and the legacy `(no topic)` read as the empty topic, then the printable check.
 */
export function channelAddresseeTopic(topic: string): string | ZulipError {
  let name = pythonStrip(topic);
  if (name === EMPTY_TOPIC_DISPLAY_NAME || name === '(no topic)') name = '';
  return checkTopicPrintable(name) ?? name;
}

/** `get_stream_topics_policy`: a channel's own policy, or the realm's when it inherits. */
export function effectiveTopicsPolicy(
  state: RealmState,
  channel: Channel,
): Exclude<Channel['topics_policy'], 'inherit'> {
  return channel.topics_policy === 'inherit' ? state.realm.topics_policy : channel.topics_policy;
}

/**
 * The channel half of `check_message` for an already-built addressee: the channel exists, the
 * sender may post there (`access_stream_for_send_message`), may start the topic if it is new,
 * and the topic fits the channel's topics policy. `topic` is the addressee's (already truncated).
 */
export function checkChannelSend(
  state: RealmState,
  sender: User,
  streamId: number,
  topic: string,
): ZulipError | undefined {
  const channel = state.channels.get(streamId);
  if (channel === undefined) return errors.channelDoesNotExistById(streamId);
  const refused = checkSendAccess(state, sender, channel);
  if (refused) return refused;
  if (!mayUseTopic(state, sender, channel, topic))
    return errors.badRequest('You do not have permission to create new topics in this channel.');
  const policy = effectiveTopicsPolicy(state, channel);
  if (policy === 'disable_empty_topic' && topic === '') return emptyTopicNotAllowed();
  if (policy === 'empty_topic_only' && topic !== '') return namedTopicNotAllowed();
  return undefined;
}

/**
 * Zulip's `MessagesNotAllowedInEmptyTopicError` (test_message_edit.py
 * `test_topic_required_in_mandatory_topic_realm`): a plain `BAD_REQUEST` whose message names the
 * empty topic without the word "topic", with the display name as a data field.
 */
export function emptyTopicNotAllowed(): ZulipError {
  return zulipError(
    `Sending messages to the ${EMPTY_TOPIC_DISPLAY_NAME} is not allowed in this channel.`,
    'BAD_REQUEST',
    400,
    { empty_topic_display_name: EMPTY_TOPIC_DISPLAY_NAME },
  );
}

/** Zulip's `TopicsNotAllowedError` (a channel whose `topics_policy` is `empty_topic_only`). */
export function namedTopicNotAllowed(): ZulipError {
  return zulipError(
    `Only the ${EMPTY_TOPIC_DISPLAY_NAME} topic is allowed in this channel.`,
    'BAD_REQUEST',
    400,
    {
      empty_topic_display_name: EMPTY_TOPIC_DISPLAY_NAME,
    },
  );
}

/** `access_stream_for_send_message`. */
export function checkSendAccess(state: RealmState, sender: User, channel: Channel): ZulipError | undefined {
  if (!maySendByGroup(state, sender, channel)) {
    const owner =
      sender.is_bot && sender.bot_owner_id !== null ? state.users.get(sender.bot_owner_id) : undefined;
    // A bot may post where its owner may.
    if (owner === undefined || !maySendByGroup(state, owner, channel))
      return errors.badRequest('You do not have permission to post in this channel.');
  }
  // The refusal is built only when it is the answer (it was built on every send).
  if (channel.is_archived) return notAuthorizedToSend(channel);
  if (channel.is_web_public) return undefined;
  if (!channel.invite_only && !isGuest(sender)) return undefined;
  if (isSubscribed(state, channel.stream_id, sender.user_id)) return undefined;
  if (
    sender.is_bot &&
    sender.bot_owner_id !== null &&
    isSubscribed(state, channel.stream_id, sender.bot_owner_id)
  )
    return undefined;
  // A non-guest who may subscribe (or add subscribers) may read a shared history, so may post.
  if (
    channel.history_public_to_subscribers &&
    !isGuest(sender) &&
    grantsContentAccess(state, sender, channel)
  )
    return undefined;
  return notAuthorizedToSend(channel);
}

function notAuthorizedToSend(channel: Channel): ZulipError {
  return errors.badRequest(`Not authorized to send to channel '${channel.name}'`);
}

/** `is_user_in_groups_granting_content_access`: `can_subscribe_group` or `can_add_subscribers_group` (callers exclude guests). */
function grantsContentAccess(state: RealmState, user: User, channel: Channel): boolean {
  return (
    isUserInSettingValue(state, user, channel.can_subscribe_group) ||
    isUserInSettingValue(state, user, channel.can_add_subscribers_group)
  );
}

function maySendByGroup(state: RealmState, user: User, channel: Channel): boolean {
  const value = channel.can_send_message_group;
  if (value === state.systemGroups['role:everyone']) return true;
  if (value === state.systemGroups['role:nobody']) return false;
  return hasPermission(state, user, CHANNEL_SETTING_RULES.can_send_message_group, value);
}

/** `access_stream_to_create_new_topic`: an existing topic is always fine; a new one needs `can_create_topic_group`. */
function mayUseTopic(state: RealmState, sender: User, channel: Channel, topic: string): boolean {
  // Whether the topic has a message (the index's count, not a copy of its ids), asked first: most
  // sends continue a topic, and this costs less than the group membership behind the permission.
  const key = foldedTopicId(state.messages.foldedTopics, topic);
  if (key !== undefined && (state.messages.byTopic.get(channel.stream_id)?.get(key)?.count ?? 0) > 0)
    return true;
  const rule = CHANNEL_SETTING_RULES.can_create_topic_group;
  if (hasPermission(state, sender, rule, channel.can_create_topic_group)) return true;
  // `check_for_can_create_topic_group_violation`: a bot may start a topic where its owner may.
  const owner =
    sender.is_bot && sender.bot_owner_id !== null ? state.users.get(sender.bot_owner_id) : undefined;
  return owner !== undefined && hasPermission(state, owner, rule, channel.can_create_topic_group);
}

/**
 * The direct-message half of `check_message`, after `Addressee.for_user_ids`: every id is a user
 * of the realm, the sender may see them all, none is deactivated, and the realm's direct-message
 * permissions allow the conversation. `ids` are deduplicated, in Zulip's order.
 */
export function checkDirectAddressee(state: RealmState, ids: readonly number[]): ZulipError | undefined {
  if (ids.length === 0) return errors.badRequest('Message must have recipients');
  for (const id of ids) if (!state.users.has(id)) return errors.badRequest(`Invalid user ID ${id}`);
  return undefined;
}

export function checkDirectSend(
  state: RealmState,
  sender: User,
  ids: readonly number[],
): ZulipError | undefined {
  const recipients = ids.map((id) => state.users.get(id)!);
  if (recipients.some((u) => !canAccessUser(state, sender, u)))
    return errors.badRequest('You do not have permission to access some of the recipients.');
  for (const u of recipients)
    if (!u.is_active) return errors.badRequest(`'${u.email}' is no longer using Zulip.`);
  return checkDirectMessagePermission(state, sender, recipients);
}

/** `check_can_send_direct_message`. */
function checkDirectMessagePermission(
  state: RealmState,
  sender: User,
  recipients: readonly User[],
): ZulipError | undefined {
  if (sender.is_bot) return undefined;
  if (recipients.every((u) => u.is_bot || u.user_id === sender.user_id)) return undefined;
  const permission = state.realm.direct_message_permission_group;
  const everyone = [...recipients, sender];
  if (!everyone.some((u) => isUserInSettingValue(state, u, permission))) {
    return permission === state.systemGroups['role:nobody']
      ? errors.badRequest('Direct messages are disabled in this organization.')
      : errors.badRequest('This conversation does not include any users who can authorize it.');
  }
  if (hasRealmPermission(state, sender, 'direct_message_initiator_group')) return undefined;
  const key = conversationKey([sender.user_id, ...recipients.map((u) => u.user_id)]);
  if (state.messages.conversations.ids.get(key) !== undefined) return undefined;
  return errors.badRequest('You do not have permission to initiate direct message conversations.');
}
