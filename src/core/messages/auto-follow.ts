import { mutedTopics } from '../channels/reset-user-topics';
import { to, type AddressedEvent } from '../events';
import { foldUserTopic } from '../indexes/user-topic-indexes';
import { VisibilityPolicy, type Channel, type User, type UserTopic } from '../model/records';
import { isGuest } from '../permissions/roles';
import { hasContentAccess } from '../permissions/channels';
import { edit } from '../result';
import type { RealmState } from '../state';
import { putUserTopics } from '../state-edit';

/**
 * The user-topic changes Zulip makes when a message is sent (`do_send_messages`): the sender's
 * `automatically_follow_topics_policy` / `automatically_unmute_topics_in_muted_streams_policy`
 * (`visibility_policy_for_send_message` in `zerver/lib/message.py`), and following the topic for
 * mentioned users with `automatically_follow_topics_where_mentioned`.
 */

/** Zulip's AUTOMATICALLY_CHANGE_VISIBILITY_POLICY_* values. */
export const AutoPolicy = { onParticipation: 1, onSend: 2, onInitiation: 3, never: 4 } as const;

type Policy = 0 | 1 | 2 | 3;

/** The user's visibility policy for a topic (compared case-insensitively), 0 when none. */
export function topicPolicy(state: RealmState, userId: number, streamId: number, topic: string): Policy {
  const rows = state.userTopics.get(userId);
  // Most senders have no topic rows: nothing to fold the topic for.
  if (rows === undefined || rows.length === 0) return 0;
  // A loop, not `find` with a closure; topics compared without folding them when ASCII (a sender
  // who follows several topics of the channel folded each of them on every send).
  for (const row of rows)
    if (row.stream_id === streamId && foldsEqual(row.topic_name, topic)) return row.visibility_policy;
  return 0;
}

/**
 * `foldUserTopic(a) === foldUserTopic(b)`, without building either fold while both are ASCII (an
 * ASCII letter folds to one letter, anything else ASCII to itself); any other character (whose
 * fold may differ in length, or be ASCII: the Kelvin sign is `k`) decides by folding.
 */
function foldsEqual(a: string, b: string): boolean {
  if (a === b) return true;
  const n = a.length;
  if (n !== b.length) return !(isAscii(a) && isAscii(b)) && foldUserTopic(a) === foldUserTopic(b);
  // From the end: topics of a channel often differ only there ("lunch 1", "lunch 2"). Each
  // character folds to as many code units in both strings wherever it is, so a difference at the
  // same distance from either end is a difference of the folds.
  for (let i = n - 1; i >= 0; i--) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if ((x | y) >= 0x80) return foldUserTopic(a) === foldUserTopic(b);
    const lx = x | 0x20;
    if (lx !== (y | 0x20) || lx < 0x61 || lx > 0x7a) return false;
  }
  return true;
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return false;
  return true;
}

/** `can_access_stream_history`. */
export function canAccessChannelHistory(state: RealmState, user: User, channel: Channel): boolean {
  if (!channel.invite_only && !isGuest(user)) return true;
  return channel.history_public_to_subscribers && hasContentAccess(state, user, channel);
}

/**
 * `visibility_policy_for_send_message`: the policy sending should set for the sender, or null.
 * `hadMessages` says whether the sender could already see a message in the topic (initiation).
 */
export function policyForSend(
  sender: User,
  channelMuted: boolean,
  current: Policy,
  hadMessages: () => boolean,
): 2 | 3 | null {
  if (current === VisibilityPolicy.followed) return null;
  const follow = sender.settings.automatically_follow_topics_policy;
  const unmute = sender.settings.automatically_unmute_topics_in_muted_streams_policy;
  const participation =
    follow === AutoPolicy.onParticipation
      ? 3
      : channelMuted && unmute === AutoPolicy.onParticipation
        ? 2
        : null;
  const send = follow === AutoPolicy.onSend ? 3 : channelMuted && unmute === AutoPolicy.onSend ? 2 : null;
  if (participation === 3 || send === 3) return 3;
  let policy: 2 | 3 | null = participation === 2 || send === 2 ? 2 : null;
  if (current !== VisibilityPolicy.inherit) return policy !== null && current === policy ? null : policy;
  if (follow === AutoPolicy.onInitiation && !hadMessages()) return 3;
  if (channelMuted && unmute === AutoPolicy.onInitiation && !hadMessages()) policy = 2;
  return policy;
}

/**
 * Sets users' policy for the topic (Zulip's `bulk_do_set_user_topic_visibility_policy`): an
 * existing row (any case) is updated, else one is added; each user gets `muted_topics` then
 * `user_topic`.
 */
export function setTopicPolicy(
  state: RealmState,
  userIds: readonly number[],
  channel: Channel,
  topic: string,
  policy: 2 | 3,
  now: number,
): { state: RealmState; events: AddressedEvent[] } {
  if (userIds.length === 0) return { state, events: [] };
  const folded = foldUserTopic(topic);
  const lastUpdated = Math.floor(now);
  const next = edit(state, (draft) => {
    for (const userId of userIds) {
      const rows = state.userTopics.get(userId) ?? [];
      const i = rows.findIndex(
        (t) => t.stream_id === channel.stream_id && foldUserTopic(t.topic_name) === folded,
      );
      const row: UserTopic = {
        user_id: userId,
        stream_id: channel.stream_id,
        topic_name: i >= 0 ? rows[i]!.topic_name : topic,
        visibility_policy: policy,
        last_updated: lastUpdated,
      };
      putUserTopics(draft, userId, i >= 0 ? rows.map((t, k) => (k === i ? row : t)) : [...rows, row]);
    }
  });
  const events: AddressedEvent[] = [];
  for (const userId of userIds) {
    events.push(
      to([userId], {
        type: 'muted_topics',
        muted_topics: mutedTopics(next, next.userTopics.get(userId) ?? []),
      }),
    );
    events.push(
      to([userId], {
        type: 'user_topic',
        stream_id: channel.stream_id,
        topic_name: topic,
        last_updated: lastUpdated,
        visibility_policy: policy,
      }),
    );
  }
  return { state: next, events };
}

/**
 * `visibility_policy_for_participation` then `should_change_visibility_policy` (reactions): the
 * policy participating sets, or null when it sets none or the user's current one already says it
 * (an unmute never replaces a follow).
 */
export function policyForParticipation(user: User, channelMuted: boolean, current: Policy): 2 | 3 | null {
  let policy: 2 | 3 | null = null;
  if (user.settings.automatically_follow_topics_policy === AutoPolicy.onParticipation) policy = 3;
  else if (
    channelMuted &&
    user.settings.automatically_unmute_topics_in_muted_streams_policy === AutoPolicy.onParticipation
  )
    policy = 2;
  if (policy === null || policy === current) return null;
  if (policy === 2 && current === VisibilityPolicy.followed) return null;
  return policy;
}

/**
 * `apply_automatic_unmute_follow_topics_policy`, which `do_update_message` calls when a move or
 * topic edit leaves visible messages behind and the edited message becomes the first in its new
 * topic (as its sender sees it): a sender whose `automatically_follow_topics_policy` is "on
 * initiation" follows the new topic; otherwise one whose
 * `automatically_unmute_topics_in_muted_streams_policy` is "on initiation" and who is subscribed
 * to the channel with it muted unmutes it. Setting the policy a user already has changes nothing.
 */
export function followOnInitiation(
  state: RealmState,
  sender: User,
  channel: Channel,
  topic: string,
  now: number,
): { state: RealmState; events: AddressedEvent[] } {
  let policy: 2 | 3 | null = null;
  if (sender.settings.automatically_follow_topics_policy === AutoPolicy.onInitiation) policy = 3;
  else if (sender.settings.automatically_unmute_topics_in_muted_streams_policy === AutoPolicy.onInitiation) {
    const sub = state.subscriptions.get(channel.stream_id)?.get(sender.user_id);
    if (sub !== undefined && sub.active && sender.is_active && sub.is_muted) policy = 2;
  }
  if (policy === null || topicPolicy(state, sender.user_id, channel.stream_id, topic) === policy)
    return { state, events: [] };
  return setTopicPolicy(state, [sender.user_id], channel, topic, policy, now);
}
