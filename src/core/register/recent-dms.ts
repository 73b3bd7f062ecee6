import { FLAG_BITS } from '../messages/flags';
import { conversationParticipants, nameOf } from '../messages/interner';
import { locateMessage } from '../messages/store';
import { someRowHas } from '../messages/row-summary';
import type { RealmState } from '../state';

/** Zulip's `RECENT_CONVERSATIONS_LIMIT`: the conversations of the user's newest 1000 direct message rows. */
export const RECENT_CONVERSATIONS_LIMIT = 1000;

export interface RecentConversation {
  readonly max_message_id: number;
  readonly user_ids: number[];
}

/**
 * `recent_private_conversations` (Zulip's `get_recent_private_conversations` and its
 * `post_process_state` sort): the direct-message conversations among the user's newest
 * `RECENT_CONVERSATIONS_LIMIT` direct-message rows, each with its newest message id there and the
 * other participants by id (none for messages to oneself), the newest conversation first.
 * O(the rows visited · log messages), chunks without direct messages skipped.
 */
export function recentPrivateConversations(state: RealmState, userId: number): RecentConversation[] {
  const rows = state.messages.rows.get(userId);
  const newest = new Map<number, number>(); // conversation id → newest message id
  let seen = 0;
  if (rows)
    for (let c = rows.chunks.length - 1; c >= 0 && seen < RECENT_CONVERSATIONS_LIMIT; c--) {
      // Chunks without a direct-message row are skipped unread (most users have few DMs).
      if (!someRowHas(rows.chunks, c, FLAG_BITS.is_private)) continue;
      const chunk = rows.chunks[c]!;
      for (let i = chunk.ids.length - 1; i >= 0 && seen < RECENT_CONVERSATIONS_LIMIT; i--) {
        if ((chunk.flags[i]! & FLAG_BITS.is_private) === 0) continue;
        seen++;
        const id = chunk.ids[i]!;
        const at = locateMessage(state.messages, id);
        const recipient = at?.chunk.recipient[at.index];
        if (recipient === undefined || recipient > 0) continue;
        if (!newest.has(-recipient)) newest.set(-recipient, id);
      }
    }
  const out: RecentConversation[] = [];
  for (const [conversation, maxId] of newest) {
    const others = conversationParticipants(nameOf(state.messages.conversations, conversation))
      .filter((u) => u !== userId)
      .sort((a, b) => a - b);
    out.push({ max_message_id: maxId, user_ids: others });
  }
  return out.sort((a, b) => b.max_message_id - a.max_message_id);
}
