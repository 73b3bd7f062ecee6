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
