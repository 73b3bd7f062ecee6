/**
 * `unread_msgs` slices its id lists out of one array kept from one call to the next
 * (`placedScratch`). No answer may depend on an earlier call: every user's answer is the same
 * whether it comes first, after a heavier user's (the array left longer and full of that user's
 * ids) or after a lighter one's, and the same again when asked twice.
 */
import { describe, expect, it } from 'vitest';
import { unreadMsgs } from '../../src/core/register/unread';
import { simulateRealm } from '../../src/simulate/simulate';

describe('unreadMsgs with a kept scratch array', () => {
  const state = simulateRealm({ preset: 'small', seed: 3 });
  const users = [...state.users.values()].filter((u) => u.is_active && !u.is_bot).slice(0, 12);
  const answer = (id: number, emptyTopicName: boolean): string =>
    JSON.stringify(unreadMsgs(state, id, emptyTopicName));

  it('gives each user the same answer in any order of calls', () => {
    const first = new Map(users.map((u) => [u.user_id, answer(u.user_id, false)]));
    // Heaviest first, then lightest first, each call following a different user's.
    const bySize = [...users].sort((a, b) => first.get(b.user_id)!.length - first.get(a.user_id)!.length);
    expect(first.get(bySize[0]!.user_id)!.length).toBeGreaterThan(first.get(bySize.at(-1)!.user_id)!.length);
    for (const order of [bySize, [...bySize].reverse()])
      for (const u of order) {
        expect(answer(u.user_id, false)).toBe(first.get(u.user_id));
        // The other spelling of the empty topic in between, then this one again.
        answer(u.user_id, true);
        expect(answer(u.user_id, false)).toBe(first.get(u.user_id));
      }
  });
});
