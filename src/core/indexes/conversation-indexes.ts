import { IntMap } from '../collections/int-map';
import { conversationParticipants, type Interner } from '../messages/interner';
import type { RealmState } from '../state';
import { derived } from './derived';

/**
 * `user → direct-message partners`, derived from the message store's conversation interner
 * (`state.messages.conversations`, see `derived.ts`): the participants of every conversation the
 * user is in, the user included. A conversation exists once messaged and stays interned when its
 * messages are deleted, as the scan this replaces read it. Carried forward by
 * `carryConversationIndexes` when a sent message interns a new conversation (O(participants ·
 * log users): a persistent map whose participants' sets alone are replaced).
 */
type Partners = IntMap<ReadonlySet<number>>;

const partners = derived<Interner, Partners, readonly number[]>(
  (conversations) => {
    const out = new Map<number, Set<number>>();
    for (const key of conversations.names.values()) {
      const participants = conversationParticipants(key);
      for (const id of participants) {
        let set = out.get(id);
        if (set === undefined) out.set(id, (set = new Set()));
        for (const other of participants) set.add(other);
      }
    }
    return IntMap.from([...out].sort((a, b) => a[0] - b[0]));
  },
  (index, participants) => {
    let out = index;
    for (const id of participants) {
      const set = new Set(index.get(id));
      for (const other of participants) set.add(other);
      out = out.set(id, set);
    }
    return out;
  },
);

/** The conversation indexes, for the tests. */
export const CONVERSATION_INDEXES = { partners } as const;

/** Called when `to` is `from` with one new conversation of these participants interned. */
export function carryConversationIndexes(
  from: Interner,
  to: Interner,
  participants: readonly number[],
): void {
  partners.carry(from, to, participants);
}

const NONE: ReadonlySet<number> = new Set();

/** Everyone in a direct-message conversation with `userId` (the user too, when in any), unordered. */
export function dmPartners(state: RealmState, userId: number): ReadonlySet<number> {
  return partners.get(state.messages.conversations).get(userId) ?? NONE;
}
