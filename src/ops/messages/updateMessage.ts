import * as z from 'zod/mini';
import { zulipError, type ZulipError } from '../../core/errors';
import { findMentions, mayMention } from '../../core/messages/mentions';
import {
  checkTopicPrintable,
  emptyTopicNotAllowed,
  effectiveTopicsPolicy,
  namedTopicNotAllowed,
  normalizeMessageContent,
  truncateTopic,
} from '../../core/messages/send-checks';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../../core/model/realm';
import type { MessageRecord } from '../../core/messages/store';
import type { Channel, User } from '../../core/model/records';
import { defineOperation } from '../../core/operation';
import { param, rawParam } from '../../core/params';
import { hasContentAccess, subscriberIds } from '../../core/permissions/channels';
import { settingValueMembers } from '../../core/permissions/groups';
import { isModerator } from '../../core/permissions/roles';
import {
  CHANNEL_SETTING_RULES,
  hasPermission,
  hasRealmPermission,
  USER_GROUP_SETTING_RULES,
} from '../../core/permissions/setting-rules';
import { failure } from '../../core/result';
import { sha256Hex } from '../../core/sha256';
import type { RealmState } from '../../core/state';
import { stripUnicodeWhitespace } from '../../core/text/whitespace';
import { accessMessage } from './message-access';
import { changeAllTimeLimitRefusal, createTopicRefusal, sendToDestinationRefusal } from './move-checks';
import { WILDCARD_MENTION_THRESHOLD } from './send-deliver';
import { applyMessageUpdate, RESOLVED_TOPIC_PREFIX, type MessageUpdate } from './update-message-apply';

/** Zulip's allowance past the edit and move time limits (`edit_limit_buffer`). */
const EDIT_LIMIT_BUFFER = 20;

/**
 * PATCH /api/v1/messages/{message_id} — https://zulip.com/api/update-message
 *
 * Zulip's `update_message_backend` → `check_update_message` → `do_update_message`, in its order:
 * access (an archived channel's message is invalid), content editability (`allow_message_editing`,
 * the sender only, `message_content_edit_limit_seconds` + 20 s), `prev_content_sha256`, the
 * payload (`validate_message_edit_payload`), topic-move and resolve permissions and time limits,
 * content rendering with mention permissions, then the channel move's permissions. Applying
 * (`update-message-apply.ts`) edits the store, the flags and the edit history, and gives the
 * `update_message` event with each recipient's flags; Notification Bot's messages are
 * `post_notification_message` effects (docs/DIFFERENCES.md).
 *
 * @example
 * ```ts
 * // Message 145 was sent at 1735698300; a minute later its sender may still edit it (10 minutes).
 * const r = updateMessage(realm, { userId: 4 }, { message_id: 145, content: 'Fixed' }, { now: 1735698360 });
 * expect(r.events[0]?.event).toMatchObject({ type: 'update_message', content: 'Fixed' });
 * ```
 */
export const updateMessage = defineOperation({
  name: 'updateMessage',
  method: 'PATCH',
  path: '/messages/{message_id}',
  operationId: 'update-message',
  pathParams: ['message_id'],
  params: [
    rawParam('content', z.string()),
    param('message_id', z.int().check(z.nonnegative()), { required: true }),
    rawParam('prev_content_sha256', z.string()),
    rawParam('propagate_mode', z.enum(['change_later', 'change_one', 'change_all'])),
    param('send_notification_to_new_thread', z.boolean()),
    param('send_notification_to_old_thread', z.boolean()),
    param('stream_id', z.int().check(z.nonnegative())),
    // OptionalTopic: stripped by pydantic; `subject` is its legacy name.
    rawParam('topic', z.pipe(z.string(), z.transform(stripUnicodeWhitespace)), { alias: 'subject' }),
  ],
  handler: ({ state, user, params, ctx, ignored }) => {
    const me = user!;
    const fail = (msg: string, code = 'BAD_REQUEST') => failure(state, zulipError(msg, code));
    const accessed = accessMessage(state, me, params.message_id, true);
    if (accessed === undefined) return fail('Invalid message(s)');
    const { record } = accessed;
    const now = ctx.now;
    let content = params.content;
    const propagateMode = params.propagate_mode ?? 'change_one';

    if (content !== undefined) {
      if (!state.realm.allow_message_editing) return fail('Your organization has turned off message editing');
      if (record.sender_id !== me.user_id) return fail("You don't have permission to edit this message");
      const limit = state.realm.message_content_edit_limit_seconds;
      if (limit !== null && now - record.timestamp > limit + EDIT_LIMIT_BUFFER)
        return fail('The time limit for editing this message has passed');
    }
    if (params.prev_content_sha256 !== undefined && sha256Hex(record.content) !== params.prev_content_sha256)
      return fail("'prev_content_sha256' value does not match the expected value.", 'EXPECTATION_MISMATCH');

    // The realm's display name and the legacy "(no topic)" are the empty topic; an unchanged topic is none.
    let topic = params.topic;
    if (topic !== undefined && (topic === EMPTY_TOPIC_DISPLAY_NAME || topic === '(no topic)')) topic = '';
    if (topic !== undefined && topic === record.topic) topic = undefined;
    const streamId = params.stream_id;

    // validate_message_edit_payload
    if (topic === undefined && content === undefined && streamId === undefined)
      return fail('Nothing to change');
    if (record.stream_id === null) {
      if (streamId !== undefined) return fail('Direct messages cannot be moved to channels.');
      if (topic !== undefined) return fail('Direct messages cannot have topics.');
    }
    if (propagateMode !== 'change_one' && topic === undefined && streamId === undefined)
      return fail('Invalid propagate_mode without topic edit');
    if (topic !== undefined) {
      const unprintable = checkTopicPrintable(topic);
      if (unprintable) return failure(state, unprintable);
    }
    if (streamId !== undefined && content !== undefined)
      return fail('Cannot change message content while changing channel');

    const channel = record.stream_id === null ? null : state.channels.get(record.stream_id)!;
    const oldTopic = record.topic;
    // build_message_edit_request: the destination's access, then its topics policy.
    let target: Channel | null = null;
    if (streamId !== undefined && channel !== null) {
      const dest = state.channels.get(streamId);
      if (dest === undefined || dest.is_archived || !hasContentAccess(state, me, dest))
        return fail('Invalid channel ID');
      target = dest;
    }
    const newChannel = target !== null && target.stream_id !== channel?.stream_id ? target : null;
    if (channel !== null) {
      const destination = target ?? channel;
      const destTopic = topic ?? oldTopic;
      if (topic !== undefined || target !== null) {
        const policy = effectiveTopicsPolicy(state, destination);
        // The same two refusals as on send: message_edit.py raises the classes message_send.py does.
        if (policy === 'disable_empty_topic' && destTopic === '')
          return failure(state, emptyTopicNotAllowed());
        if (policy === 'empty_topic_only' && destTopic !== '') return failure(state, namedTopicNotAllowed());
      }
    }
    if (topic !== undefined && channel !== null) {
      const refused = topicEditRefusal(state, me, channel, oldTopic, topic, record.timestamp, now);
      if (refused !== undefined) return fail(refused);
    }

    let mentioned: ReadonlySet<number> = new Set();
    let streamWildcard = false;
    let topicWildcard = false;
    if (content !== undefined) {
      if (pyRstripEmpty(content)) content = '(deleted)';
      const normalized = normalizeMessageContent(state, content);
      if (typeof normalized !== 'string') return failure(state, normalized);
      content = normalized;
      if (mayMention(content)) {
        const mentions = findMentions(state, content);
        const sender = state.users.get(record.sender_id)!;
        if (channel !== null && mentions.streamWildcard) {
          if (
            subscriberIds(state, channel.stream_id).length > WILDCARD_MENTION_THRESHOLD &&
            !hasRealmPermission(state, sender, 'can_mention_many_users_group')
          )
            return fail(
              'You do not have permission to use channel wildcard mentions in this channel.',
              'STREAM_WILDCARD_MENTION_NOT_ALLOWED',
            );
        }
        for (const groupId of [...mentions.groupIds].sort((a, b) => a - b)) {
          const group = state.groups.get(groupId)!;
          if (!hasPermission(state, me, USER_GROUP_SETTING_RULES.can_mention_group, group.can_mention_group))
            return fail(`You are not allowed to mention user group '${group.name}'.`);
        }
        const all = new Set(mentions.userIds);
        for (const groupId of mentions.groupIds)
          for (const u of settingValueMembers(state, groupId)) all.add(u);
        mentioned = all;
        streamWildcard = mentions.streamWildcard;
        topicWildcard = mentions.topicWildcard;
      }
    }

    if (channel !== null && (topic !== undefined || streamId !== undefined)) {
      const onlyResolve = topic !== undefined && isResolveOnly(oldTopic, topic);
      const moved = moveRefusal(
        state,
        me,
        record,
        channel,
        target,
        topic,
        streamId,
        propagateMode,
        onlyResolve,
        now,
      );
      if (moved !== undefined) return failure(state, moved);
    }
    const update: MessageUpdate = {
      record,
      channel,
      newChannel,
      content,
      topic: topic === undefined ? undefined : truncateTopic(state, topic),
      preTruncationTopic: topic,
      propagateMode,
      notifyOld: params.send_notification_to_old_thread ?? false,
      notifyNew: params.send_notification_to_new_thread ?? true,
      mentioned,
      streamWildcard,
      topicWildcard,
      now,
      ignored,
    };
    return applyMessageUpdate(state, me, update);
  },
});

function pyRstripEmpty(s: string): boolean {
  return stripUnicodeWhitespace(s) === '';
}

/** Whether `topic` only adds or removes the resolved prefix of `old` (Zulip's resolve/unresolve). */
export function resolveToggle(old: string, topic: string): 'resolved' | 'unresolved' | null {
  const was = old.startsWith(RESOLVED_TOPIC_PREFIX);
  const is = topic.startsWith(RESOLVED_TOPIC_PREFIX);
  if (is && !was) return 'resolved';
  if (was && !is) return 'unresolved';
  return null;
}

/** Strips every leading "✔" and space, as Python's `lstrip("✔ ")`. */
export function unresolvedName(topic: string): string {
  return topic.replace(/^[✔ ]+/u, '');
}

/**
 * Topic edits: resolving or unresolving needs `can_resolve_topics_group` (the realm's or the
 * channel's); any other rename needs `can_move_messages_between_topics_group` (or the channel's
 * `can_move_messages_within_channel_group`) and, below moderators, the time limit
 * `move_messages_within_stream_limit_seconds` (+ 20 s). The empty topic cannot be resolved.
 */
function topicEditRefusal(
  state: RealmState,
  me: User,
  channel: Channel,
  old: string,
  topic: string,
  sent: number,
  now: number,
): string | undefined {
  const toggle = resolveToggle(old, topic);
  const onlyResolve = toggle !== null && unresolvedName(old) === unresolvedName(topic);
  if (toggle === 'resolved' && unresolvedName(topic) === '')
    return 'General chat cannot be marked as resolved';
  if (onlyResolve) {
    const may =
      hasRealmPermission(state, me, 'can_resolve_topics_group') ||
      hasPermission(
        state,
        me,
        CHANNEL_SETTING_RULES.can_resolve_topics_group,
        channel.can_resolve_topics_group,
      );
    if (!may) return "You don't have permission to resolve topics in this channel.";
    return undefined;
  }
  const may =
    hasRealmPermission(state, me, 'can_move_messages_between_topics_group') ||
    hasPermission(
      state,
      me,
      CHANNEL_SETTING_RULES.can_move_messages_within_channel_group,
      channel.can_move_messages_within_channel_group,
    );
  if (!may) return "You don't have permission to edit this message";
  const limit = state.realm.move_messages_within_stream_limit_seconds;
  if (limit !== null && !isModerator(me) && now - sent > limit + EDIT_LIMIT_BUFFER)
    return "The time limit for editing this message's topic has passed.";
  return undefined;
}

/**
 * The move checks after the content's (`check_update_message`): for a move between channels
 * `can_move_messages_between_channels_group` (or the channel's `can_move_messages_out_of_channel_group`),
 * posting in the destination and, below moderators, `move_messages_between_streams_limit_seconds`
 * (+ 20 s); then for a real move (not a resolve) the `change_all` time limit over the whole topic
 * and the destination's `can_create_topic_group`.
 */
function moveRefusal(
  state: RealmState,
  me: User,
  record: MessageRecord,
  channel: Channel,
  target: Channel | null,
  topic: string | undefined,
  streamId: number | undefined,
  propagateMode: string,
  onlyResolve: boolean,
  now: number,
): ZulipError | undefined {
  const fail = (msg: string) => zulipError(msg);
  if (target !== null) {
    const may =
      hasRealmPermission(state, me, 'can_move_messages_between_channels_group') ||
      hasPermission(
        state,
        me,
        CHANNEL_SETTING_RULES.can_move_messages_out_of_channel_group,
        channel.can_move_messages_out_of_channel_group,
      );
    if (!may) return fail("You don't have permission to move this message");
    const cannotPost = sendToDestinationRefusal(state, me, target);
    if (cannotPost !== undefined) return fail(cannotPost);
    const limit = state.realm.move_messages_between_streams_limit_seconds;
    if (limit !== null && !isModerator(me) && now - record.timestamp > limit + EDIT_LIMIT_BUFFER)
      return fail("The time limit for editing this message's channel has passed");
  }
  if (onlyResolve) return undefined;
  if (propagateMode === 'change_all') {
    const late = changeAllTimeLimitRefusal(
      state,
      me,
      record,
      channel,
      topic !== undefined,
      streamId !== undefined,
      now,
    );
    if (late !== undefined) return late;
  }
  const dest = target ?? channel;
  const cannotCreate = createTopicRefusal(state, me, dest, truncateTopic(state, topic ?? record.topic));
  return cannotCreate === undefined ? undefined : fail(cannotCreate);
}

/** Zulip's `topic_resolved` / `topic_unresolved`: the edit only adds or removes the resolved prefix. */
function isResolveOnly(old: string, topic: string): boolean {
  return resolveToggle(old, topic) !== null && unresolvedName(old) === unresolvedName(topic);
}
