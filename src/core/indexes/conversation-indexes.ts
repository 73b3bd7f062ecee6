import { conversationParticipants, type Interner } from '../messages/interner';
import type { RealmState } from '../state';
import { derived } from './derived';

/**
 * `user → direct-message partners`, derived from the message store's conversation interner
 * (`state.messages.conversations`, see `derived.ts`): the participants of every conversation the
 * user is in, the user included. A conversation exists once messaged and stays interned when its
 * messages are deleted, as the scan this replaces read it. Not carried forward: a new interner (a
 * new conversation) is indexed from scratch on first use; none of the operations intern one.
 */
const partners = derived<Interner, ReadonlyMap<number, ReadonlySet<number>>>((conversations) => {
  const out = new Map<number, Set<number>>();
  for (const key of conversations.names.values()) {
    const participants = conversationParticipants(key);
    for (const id of participants) {
      let set = out.get(id);
      if (set === undefined) out.set(id, (set = new Set()));
      for (const other of participants) set.add(other);
    }
  }
  return out;
});

/** The conversation indexes, for the tests. */
export const CONVERSATION_INDEXES = { partners } as const;

const NONE: ReadonlySet<number> = new Set();

/** Everyone in a direct-message conversation with `userId` (the user too, when in any), unordered. */
export function dmPartners(state: RealmState, userId: number): ReadonlySet<number> {
  return partners.get(state.messages.conversations).get(userId) ?? NONE;
}
