/**
 * Stored reaction lists are frozen (the list and each reaction), so GET /messages hands them out
 * as they are stored instead of copying them per read. Wherever a list enters the store (a
 * snapshot load, a built store, a reaction added or removed) it must come out frozen, with the
 * same keys in the same order as what went in, and without freezing the caller's objects; and
 * every fetched dict's `reactions` must be the stored list itself, serializing as the copying
 * `messageDict` path does.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { frozenReactions } from '../../src/core/messages/frozen-reactions';
import { decode } from '../../src/core/messages/store';
import { buildMessageStore } from '../../src/core/messages/store-build-messages';
import { MessageCursor } from '../../src/core/messages/store-cursor';
import type { Reaction } from '../../src/core/model/records';
import type { RealmState } from '../../src/core/state';
import { getMessages } from '../../src/ops';
import { messageDict } from '../../src/ops/messages/message-dict';
import { devRealm, wire, type CastName } from '../support/realm';

const octopus: Reaction = {
  user_id: 4,
  emoji_name: 'octopus',
  emoji_code: '1f419',
  reaction_type: 'unicode_emoji',
};

/** Every stored list and reaction is frozen. */
function expectAllFrozen(state: RealmState): number {
  let lists = 0;
  for (const [, list] of state.messages.reactions) {
    expect(list.length).toBeGreaterThan(0);
    expect(Object.isFrozen(list)).toBe(true);
    for (const r of list) expect(Object.isFrozen(r)).toBe(true);
    lists++;
  }
  return lists;
}

describe('frozenReactions', () => {
  it('copies unfrozen reactions (key order kept) and leaves the caller’s objects alone', () => {
    // Keys in an unusual order, as a snapshot's JSON may have them.
    const odd = {
      reaction_type: 'unicode_emoji',
      emoji_code: '1f419',
      user_id: 9,
      emoji_name: 'octopus',
    } as const;
    const input: Reaction[] = [octopus, odd];
    const out = frozenReactions(input);
    expect(out).not.toBe(input);
    expect(Object.isFrozen(out)).toBe(true);
    expect(out.every((r) => Object.isFrozen(r))).toBe(true);
    expect(JSON.stringify(out)).toBe(JSON.stringify(input));
    expect(Object.isFrozen(input)).toBe(false);
    expect(Object.isFrozen(odd)).toBe(false);
  });

  it('keeps a list that is already frozen all through, and frozen reactions inside a new list', () => {
    const frozen = frozenReactions([octopus]);
    expect(frozenReactions(frozen)).toBe(frozen);
    const grown = frozenReactions([...frozen, { ...octopus, user_id: 5 }]);
    expect(grown[0]).toBe(frozen[0]);
  });
});

describe('reaction lists enter the store frozen', () => {
  it('from a snapshot load (the dev realm has reactions)', () => {
    expect(expectAllFrozen(devRealm())).toBeGreaterThan(0);
  });

  it('from buildMessageStore, without freezing the caller’s records', () => {
    const mine: Reaction = { ...octopus };
    const store = buildMessageStore(
      [{ id: 1, sender_id: 4, stream_id: 1, topic: 't', content: 'hi', timestamp: 1, reactions: [mine] }],
      new Map(),
    );
    const stored = store.reactions.get(1)!;
    expect(Object.isFrozen(stored) && Object.isFrozen(stored[0])).toBe(true);
    expect(stored).toEqual([mine]);
    expect(Object.isFrozen(mine)).toBe(false);
  });

  const users: CastName[] = ['hamlet', 'othello', 'iago', 'cordelia'];
  const emoji = ['octopus', 'tada', 'heart', 'smile'];

  it('after any sequence of reactions added and removed: frozen, shared by GET /messages, same JSON', () => {
    const start = devRealm();
    const cursor = new MessageCursor(start.messages);
    // Channel messages of Verona (stream 1 in the dev realm) that hamlet and co. can read.
    const ids = start.messages.chunks
      .flatMap((c) => Array.from(c.ids))
      .filter((id) => cursor.channelOf(id) === 1)
      .slice(-12);
    expect(ids.length).toBeGreaterThan(3);
    const step = fc.record({
      add: fc.boolean(),
      who: fc.constantFrom(...users),
      id: fc.constantFrom(...ids),
      emoji: fc.constantFrom(...emoji),
    });
    let changes = 0;
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 25 }), (steps) => {
        let state = start;
        for (const s of steps) {
          const r = wire(state, s.who, s.add ? 'POST' : 'DELETE', `/messages/${s.id}/reactions`, {
            emoji_name: s.emoji,
          });
          if (r.state !== state) changes++;
          state = r.state;
        }
        expectAllFrozen(state);
        const params = {
          anchor: 'newest',
          num_before: 200,
          num_after: 0,
          narrow: [{ operator: 'channel', operand: 1 }],
        };
        const dicts = getMessages(state, { userId: 4 }, params).body['messages'] as Array<
          Record<string, unknown>
        >;
        const reader = new MessageCursor(state.messages);
        let reacted = 0;
        for (const d of dicts) {
          const id = d['id'] as number;
          const stored = state.messages.reactions.get(id);
          if (stored !== undefined) {
            // The stored list itself, not a copy.
            expect(d['reactions']).toBe(stored);
            reacted++;
          } else expect(d['reactions']).toEqual([]);
          // The same bytes as the copying path (`messageDict` of the decoded record).
          expect(reader.seek(id)).toBe(true);
          const copied = messageDict(state, decode(state.messages, reader.chunk!, reader.index), {
            applyMarkdown: true,
            clientGravatar: true,
            allowEmptyTopicName: false,
          });
          expect(JSON.stringify(d['reactions'])).toBe(JSON.stringify(copied['reactions']));
        }
        expect(reacted).toBe(
          [...state.messages.reactions].filter(([id]) => dicts.some((d) => d['id'] === id)).length,
        );
      }),
      { numRuns: 60 },
    );
    // The sequences did change reactions (not only refused calls).
    expect(changes).toBeGreaterThan(60);
  });
});
