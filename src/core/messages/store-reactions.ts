import type { Reaction } from '../model/records';
import { MESSAGE_BITS } from './flags';
import { frozenReactions } from './frozen-reactions';
import { lowerBound } from './rows';
import { chunkIndexOf } from './store-chunks';
import { messagesChanged } from './store-hooks';
import { chunkColumns, type MessageStore } from './store-types';

/**
 * The store with message `id`'s reactions replaced by `reactions` (in the order Zulip returns
 * them: oldest first). The `has_reaction` bit (the `has:reaction` narrow) follows; only the one
 * chunk's bit column is copied, and only when the bit changes.
 */
export function setReactions(store: MessageStore, id: number, reactions: readonly Reaction[]): MessageStore {
  const ci = chunkIndexOf(store.chunks, id);
  if (ci < 0) return store;
  const c = store.chunks[ci]!;
  const i = lowerBound(c.ids, id);
  if (c.ids[i] !== id) return store;
  // Stored frozen (frozen-reactions.ts): reads share the stored list instead of copying it.
  const map =
    reactions.length === 0 ? store.reactions.delete(id) : store.reactions.set(id, frozenReactions(reactions));
  const had = (c.bits[i]! & MESSAGE_BITS.has_reaction) !== 0;
  if (had === reactions.length > 0) return store.with({ reactions: map });
  const bits = new Uint8Array(c.bits);
  bits[i] = had ? bits[i]! & ~MESSAGE_BITS.has_reaction : bits[i]! | MESSAGE_BITS.has_reaction;
  const chunks = store.chunks.slice();
  chunks[ci] = chunkColumns(c, { bits });
  return messagesChanged(store, store.with({ chunks, reactions: map }), [id], 'reaction');
}
