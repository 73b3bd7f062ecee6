import { IntMap } from '../collections/int-map';
import { StrMap } from '../collections/str-map';

/**
 * A persistent string ↔ small-integer table. Topics and direct-message conversations are stored as
 * ids in the message columns. A store's tables are built in bulk with it (`store-build.ts`); no
 * operation adds to them.
 */
export interface Interner {
  readonly ids: StrMap<number>;
  readonly names: IntMap<string>;
}

export const emptyInterner: Interner = { ids: StrMap.empty(), names: IntMap.empty() };

export function nameOf(table: Interner, id: number): string {
  const name = table.names.get(id);
  if (name === undefined) throw new RangeError(`no interned string ${id}`);
  return name;
}

/** A direct-message conversation's key: its sorted participant ids, sender included. */
export function conversationKey(participants: Iterable<number>): string {
  return [...new Set(participants)].sort((a, b) => a - b).join(',');
}

export function conversationParticipants(key: string): number[] {
  return key.split(',').map(Number);
}

/**
 * The last `foldedTopicId` answer and what it was asked: a send asks for its topic's folded id
 * in its checks and again for the sender's topic policy, and the next send of a conversation asks
 * the same of the same table (interners are persistent: same table, same answer).
 */
const lastFold: {
  table: Interner | undefined;
  topic: string;
  id: number | undefined;
} = {
  table: undefined,
  topic: '',
  id: undefined,
};

/** The id of `topic`'s lower-cased form in a folded-topic table (`MessageStore.foldedTopics`), if any. */
export function foldedTopicId(table: Interner, topic: string): number | undefined {
  const memo = lastFold;
  if (memo.table === table && memo.topic === topic) return memo.id;
  const id = table.ids.get(topic.toLowerCase());
  // Written in place: a new memo object per miss was a send's allocation when topics alternate.
  memo.table = table;
  memo.topic = topic;
  memo.id = id;
  return id;
}
