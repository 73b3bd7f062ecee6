import type { Reaction } from '../model/records';
import { loadedClientBits } from './client-names';
import { conversationKey } from './interner';
import { MESSAGE_BITS } from './flags';
import { buildMessageStoreFromColumns, type RowsInput } from './store-build';
import type { MessageStore } from './store-types';

/** One message as a record (the snapshot loader's input). */
export interface MessageInput {
  readonly id: number;
  readonly sender_id: number;
  readonly stream_id?: number | undefined;
  readonly topic?: string | undefined;
  /** Direct messages: participants other than (or including) the sender. */
  readonly to?: readonly number[] | undefined;
  readonly content: string;
  readonly timestamp: number;
  readonly has_link?: boolean | undefined;
  readonly has_attachment?: boolean | undefined;
  readonly has_image?: boolean | undefined;
  readonly reactions?: readonly Reaction[] | undefined;
  /** The sending client's name (client-names.ts); absent: "API". */
  readonly client?: string | undefined;
}

/**
 * Builds a store in one pass. `messages` must be sorted by id; `rows` gives each user's rows as
 * parallel arrays sorted by message id. The records are laid out as columns and handed to
 * `buildMessageStoreFromColumns`, the one builder that interns and indexes.
 */
export function buildMessageStore(messages: readonly MessageInput[], rows: RowsInput): MessageStore {
  const n = messages.length;
  const cols = {
    ids: new Int32Array(n),
    recipient: new Int32Array(n),
    sender: new Int32Array(n),
    timestamp: new Float64Array(n),
    bits: new Uint8Array(n),
    content: new Array<string>(n),
    topics: new Array<string>(n),
    conversations: new Array<string>(n),
  };
  const reactions: Array<readonly [number, readonly Reaction[]]> = [];
  const clients: Array<readonly [number, string]> = [];
  for (let i = 0; i < n; i++) {
    const m = messages[i]!;
    cols.ids[i] = m.id;
    cols.sender[i] = m.sender_id;
    cols.timestamp[i] = m.timestamp;
    cols.content[i] = m.content;
    if (m.stream_id !== undefined) {
      cols.recipient[i] = m.stream_id;
      cols.topics[i] = m.topic ?? '';
    } else {
      cols.conversations[i] = conversationKey([m.sender_id, ...(m.to ?? [])]);
    }
    const hasReaction = (m.reactions?.length ?? 0) > 0;
    if (hasReaction) reactions.push([m.id, m.reactions!]);
    cols.bits[i] =
      (m.has_link ? MESSAGE_BITS.has_link : 0) |
      (m.has_attachment ? MESSAGE_BITS.has_attachment : 0) |
      (m.has_image ? MESSAGE_BITS.has_image : 0) |
      (hasReaction ? MESSAGE_BITS.has_reaction : 0) |
      loadedClientBits(m.id, m.client, clients);
  }
  return buildMessageStoreFromColumns(cols, rows, reactions, 0, [], clients);
}
