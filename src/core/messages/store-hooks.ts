import { carrySearchIndex } from '../search/search-index';
import type { MessageStore } from './store-types';

/** What happened to the messages handed to `messagesChanged`. */
export type MessageChangeKind = 'content' | 'topic' | 'delete' | 'reaction';

/**
 * The one place every change to stored messages passes after the columns and the built-in indexes
 * are updated: `replaceContent` (content edits), `moveMessages` (topic and channel moves),
 * `setReactions` (when the `has_reaction` bit changes) and `deleteMessages`. `before` is the store as it was, `after` the changed store, `ids` the messages
 * concerned (ascending). A derived index kept inside the store (a full-text index, say) hooks in
 * here and returns `after` with its own field brought up to date; by default nothing else changes.
 */
export function messagesChanged(
  before: MessageStore,
  after: MessageStore,
  ids: readonly number[],
  kind: MessageChangeKind,
): MessageStore {
  // The full-text index (keyed by the chunk list, so it follows `after` whatever object carries them).
  carrySearchIndex(before, after, ids);
  if (kind === 'delete') {
    // Deleted messages leave no edit history behind.
    let edits = after.edits;
    for (const id of ids) edits = edits.delete(id);
    if (edits !== after.edits) return after.with({ edits });
  }
  return after;
}
