import { expect } from 'vitest';
import { seededRandom } from '../../src/core/context';
import { MESSAGE_BITS } from '../../src/core/messages/flags';
import { locateMessage } from '../../src/core/messages/store';
import type { OpResult } from '../../src/core/result';
import { createRealm } from '../../src/core/snapshot/create';
import type { RealmState } from '../../src/core/state';
import { expectValidEvent, expectValidResponse } from './openapi';
import { devSnapshot } from './realm';

/**
 * The dev realm with three custom emoji: `green_tick` (id 1, by Hamlet), `party_parrot` (id 2,
 * animated, by Iago) and a deactivated `old_logo` (id 3, no author).
 */
export function emojiRealm(): RealmState {
  const snap = devSnapshot() as ReturnType<typeof devSnapshot> & { realm_emoji?: unknown[] };
  snap.realm_emoji = [
    { id: 1, name: 'green_tick', source_url: '/user_avatars/2/emoji/images/1.png', author_id: 4 },
    {
      id: 2,
      name: 'party_parrot',
      source_url: '/user_avatars/2/emoji/images/2.gif',
      still_url: '/user_avatars/2/emoji/images/still/2.png',
      author_id: 2,
    },
    { id: 3, name: 'old_logo', source_url: '/user_avatars/2/emoji/images/3.png', deactivated: true },
  ];
  return createRealm(snap, { random: seededRandom(1) });
}

/** A reaction call's success: Zulip's empty success body, and every event valid against the schema. */
export function expectReactionOk(operationId: string, r: OpResult): void {
  expect(r.body).toEqual({ result: 'success', msg: '' });
  expect(r.status).toBe(200);
  expectValidResponse(operationId, 200, r.body);
  for (const e of r.events) expectValidEvent(e.event);
}

/** Whether message `id` carries the store's `has_reaction` bit in `state`. */
export function hasReactionBit(state: RealmState, id: number): boolean {
  const at = locateMessage(state.messages, id)!;
  return (at.chunk.bits[at.index]! & MESSAGE_BITS.has_reaction) !== 0;
}
