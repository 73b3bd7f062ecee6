import * as z from 'zod/mini';
import { zulipError } from '../../core/errors';
import type { AddressedEvent } from '../../core/events';
import { policyForParticipation, setTopicPolicy, topicPolicy } from '../../core/messages/auto-follow';
import { EMPTY_ROWS } from '../../core/messages/rows';
import { setReactions } from '../../core/messages/store-reactions';
import { commitRows, DEFAULT_HISTORICAL } from '../../core/messages/update-flags';
import type { Reaction } from '../../core/model/records';
import { defineOperation } from '../../core/operation';
import { param, rawParam } from '../../core/params';
import { failure, success } from '../../core/result';
import type { RealmState } from '../../core/state';
import { accessMessage } from '../messages/message-access';
import { emojiByName, emojiRefusal, reactionEvent, type ReactionType } from './reaction-emoji';

/**
 * POST /api/v1/messages/{message_id}/reactions — https://zulip.com/api/add-reaction
 *
 * Zulip's `check_add_reaction` (zerver/actions/reactions.py), in its order: the message must be
 * one the user may act on (`access_message_and_usermessage`, modifying: "Invalid message(s)");
 * a missing `emoji_code` or `reaction_type` is looked up by name (`get_emoji_data`: "Emoji 'x'
 * does not exist"); the user's own identical reaction is "Reaction already exists."; when another
 * user already reacted with the same code and type the new reaction is a vote and takes that
 * reaction's name unchecked, otherwise `check_emoji_request` validates type, code and name.
 * A user reacting to a channel message without a row gets a historical one (read, historical).
 * Reacting is participation: the user's `automatically_follow_topics_policy` /
 * `automatically_unmute_topics_in_muted_streams_policy` may follow or unmute the topic first.
 * The `reaction` event (op `add`) goes to the message's action recipients.
 *
 * @example
 * ```ts
 * const r = addReaction(realm, { userId: 4 }, { message_id: 101, emoji_name: 'octopus' });
 * expect(r.body).toEqual({ result: 'success', msg: '' });
 * expect(r.events[0]!.event).toMatchObject({ type: 'reaction', op: 'add', emoji_code: '1f419' });
 * ```
 */
export const addReaction = defineOperation({
  name: 'addReaction',
  method: 'POST',
  path: '/messages/{message_id}/reactions',
  operationId: 'add-reaction',
  pathParams: ['message_id'],
  params: [
    param('message_id', z.int().check(z.nonnegative()), { required: true }),
    rawParam('emoji_name', z.string(), { required: true }),
    rawParam('emoji_code', z.string()),
    rawParam('reaction_type', z.string()),
  ],
  handler: ({ state, user, params, ctx, ignored }) => {
    const me = user!;
    const accessed = accessMessage(state, me, params.message_id, true);
    if (accessed === undefined) return failure(state, zulipError('Invalid message(s)'));
    const { record, row } = accessed;
    let name = params.emoji_name;
    let code = params.emoji_code;
    let type: string | undefined = params.reaction_type;
    if (code === undefined || type === undefined) {
      const found = emojiByName(state, name);
      if ('code' in found) return failure(state, found);
      code ??= found.emoji_code;
      type ??= found.reaction_type;
    }
    const existing = record.reactions;
    if (existing.some((r) => r.user_id === me.user_id && r.emoji_code === code && r.reaction_type === type))
      return failure(state, zulipError('Reaction already exists.', 'REACTION_ALREADY_EXISTS'));
    const vote = existing.find((r) => r.emoji_code === code && r.reaction_type === type);
    if (vote !== undefined) name = vote.emoji_name;
    else {
      const refusal = emojiRefusal(state, name, code, type);
      if (refusal !== undefined) return failure(state, zulipError(refusal));
    }
    const reaction: Reaction = {
      user_id: me.user_id,
      emoji_name: name,
      emoji_code: code,
      reaction_type: type as ReactionType,
    };
    let store = state.messages;
    if (row === undefined) {
      const rows = store.rows.get(me.user_id) ?? EMPTY_ROWS;
      store = commitRows(store, me.user_id, rows, rows, [record.id], [DEFAULT_HISTORICAL]);
    }
    store = setReactions(store, record.id, [...existing, reaction]);
    let next: RealmState = Object.freeze({ ...state, messages: store });
    const events: AddressedEvent[] = [];
    const channel = record.stream_id === null ? undefined : state.channels.get(record.stream_id);
    if (channel !== undefined && !me.is_bot) {
      // `set_visibility_policy_possible` and `visibility_policy_for_participation`.
      const sub = state.subscriptions.get(channel.stream_id)?.get(me.user_id);
      if (sub?.active === true) {
        const current = topicPolicy(state, me.user_id, channel.stream_id, record.topic);
        const policy = policyForParticipation(me, sub.is_muted, current);
        if (policy !== null) {
          const changed = setTopicPolicy(next, [me.user_id], channel, record.topic, policy, ctx.now);
          next = changed.state;
          events.push(...changed.events);
        }
      }
    }
    events.push(reactionEvent(next, me, record, reaction, 'add'));
    return success(next, { ignored, events });
  },
});
