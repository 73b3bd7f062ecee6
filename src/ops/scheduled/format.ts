import { renderMarkdown } from '../../core/markdown';
import type { ScheduledMessage } from '../../core/model/records';

/**
 * Zulip's `get_recipient_ids` for a direct message: the recipients other than the sender, or just
 * the sender for a message to themselves; ascending.
 */
export function directRecipientsForApi(senderId: number, ids: readonly number[]): number[] {
  const others = [...new Set(ids)].filter((id) => id !== senderId).sort((a, b) => a - b);
  return others.length > 0 ? others : [senderId];
}

/**
 * A scheduled message as Zulip's `ScheduledMessage.to_dict` writes it (GET /scheduled_messages and
 * the `scheduled_messages` events): channel messages carry `topic`, direct messages do not.
 */
export function scheduledMessageForApi(m: ScheduledMessage): Record<string, unknown> {
  const rendered = renderMarkdown(m.content);
  const tail = { scheduled_delivery_timestamp: m.scheduled_delivery_timestamp, failed: m.failed };
  if (m.type === 'stream') {
    const head = { scheduled_message_id: m.scheduled_message_id, to: m.to, type: 'stream' };
    return { ...head, content: m.content, rendered_content: rendered, topic: m.topic, ...tail };
  }
  const to = directRecipientsForApi(m.sender_id, typeof m.to === 'number' ? [m.to] : m.to);
  const head = { scheduled_message_id: m.scheduled_message_id, to, type: 'private' };
  return { ...head, content: m.content, rendered_content: rendered, ...tail };
}
