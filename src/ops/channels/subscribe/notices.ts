import { channelEventsTopic } from '../../../core/channels/stream-dict';
import type { Addition } from '../../../core/channels/subscribe-events';
import type { Effect } from '../../../core/effects';
import type { Channel, User } from '../../../core/model/records';
import { compareCodePoints } from '../../../core/text/code-points';

/** Zulip's silent mention syntax. */
const mention = (u: User) => `@_**${u.full_name}|${u.user_id}**`;
const link = (c: Channel) => `#**${c.name}**`;

function policyLabel(c: Channel): string {
  if (c.is_web_public) return 'Web-public';
  if (!c.invite_only) return 'Public';
  return c.history_public_to_subscribers ? 'Private, shared history' : 'Private, protected history';
}

/**
 * Zulip's `send_messages_for_new_subscribers`, as effects in its order: a direct message to each
 * non-bot user someone else subscribed to channels that already existed; with `announce`, the
 * "new channels" announcement; then, in each created channel, Notification Bot's creation notice.
 */
export function newSubscriberNotices(
  actor: User,
  added: readonly Addition[],
  created: readonly Channel[],
  announce: boolean,
): Effect[] {
  const effects: Effect[] = [];
  const createdIds = new Set(created.map((c) => c.stream_id));
  const byUser = new Map<number, { user: User; names: Set<string> }>();
  for (const { user, channel } of added) {
    if (user.user_id === actor.user_id || user.is_bot || createdIds.has(channel.stream_id)) continue;
    const entry = byUser.get(user.user_id) ?? { user, names: new Set<string>() };
    entry.names.add(channel.name);
    byUser.set(user.user_id, entry);
  }
  for (const { user, names } of byUser.values()) {
    const sorted = [...names].sort(compareCodePoints);
    const content =
      sorted.length === 1
        ? `${mention(actor)} subscribed you to #**${sorted[0]}**.`
        : `${mention(actor)} subscribed you to the following channels:\n\n` +
          sorted.map((n) => `* #**${n}**\n`).join('');
    effects.push({ type: 'post_notification_direct_message', recipient_id: user.user_id, content });
  }
  if (announce && created.length > 0) {
    const links = created.map(link).join(', ');
    const content =
      created.length > 1
        ? `${mention(actor)} created the following channels: ${links}.`
        : `${mention(actor)} created a new channel ${links}.`;
    effects.push({ type: 'announce_new_channels', topic: 'new channels', content });
  }
  for (const c of created) {
    const description = c.description === '' ? '*No description.*' : c.description;
    effects.push({
      type: 'post_notification_message',
      stream_id: c.stream_id,
      topic: channelEventsTopic(c),
      content: `**${policyLabel(c)}** channel created by ${mention(actor)}. **Description:**\n\`\`\`\` quote\n${description}\n\`\`\`\``,
    });
  }
  return effects;
}
