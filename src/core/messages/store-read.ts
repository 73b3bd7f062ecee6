import type { Reaction } from '../model/records';
import { clientName } from './client-names';
import { conversationParticipants, nameOf } from './interner';
import { MESSAGE_BITS } from './flags';
import { lowerBound } from './rows';
import { chunkIndexOf } from './store-chunks';
import type { MessageChunk, MessageStore } from './store-types';

/** One message, decoded from the columns. */
export interface MessageRecord {
  readonly id: number;
  readonly sender_id: number;
  /** Present for channel messages. */
  readonly stream_id: number | null;
  readonly topic: string;
  /** Direct messages: every participant, sender included, sorted. */
  readonly participants: readonly number[] | null;
  readonly content: string;
  readonly timestamp: number;
  readonly has_link: boolean;
  readonly has_attachment: boolean;
  readonly has_image: boolean;
  readonly reactions: readonly Reaction[];
  /** The sending client's name (client-names.ts). */
  readonly client: string;
}

/** Where message `id` lives, or undefined. */
export function locateMessage(
  store: MessageStore,
  id: number,
): { chunk: MessageChunk; index: number } | undefined {
  const ci = chunkIndexOf(store.chunks, id);
  if (ci < 0) return undefined;
  const chunk = store.chunks[ci]!;
  const index = lowerBound(chunk.ids, id);
  return index < chunk.ids.length && chunk.ids[index] === id ? { chunk, index } : undefined;
}

export function getMessage(store: MessageStore, id: number): MessageRecord | undefined {
  const at = locateMessage(store, id);
  return at && decode(store, at.chunk, at.index);
}

/** Every message in ascending id order. */
export function* allMessages(store: MessageStore): IterableIterator<MessageRecord> {
  for (const c of store.chunks) for (let i = 0; i < c.ids.length; i++) yield decode(store, c, i);
}

/** The message at index `i` of chunk `c`. */
export function decode(store: MessageStore, c: MessageChunk, i: number): MessageRecord {
  const recipient = c.recipient[i]!;
  const bits = c.bits[i]!;
  const id = c.ids[i]!;
  return {
    id,
    sender_id: c.sender[i]!,
    stream_id: recipient > 0 ? recipient : null,
    topic: recipient > 0 ? nameOf(store.topics, c.topic[i]!) : '',
    participants: recipient > 0 ? null : conversationParticipants(nameOf(store.conversations, -recipient)),
    content: c.content[i]!,
    timestamp: c.timestamp[i]!,
    has_link: (bits & MESSAGE_BITS.has_link) !== 0,
    has_attachment: (bits & MESSAGE_BITS.has_attachment) !== 0,
    has_image: (bits & MESSAGE_BITS.has_image) !== 0,
    reactions: store.reactions.get(id) ?? [],
    client: clientName(bits, id, store.clients),
  };
}
