import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allMessages, deleteMessages } from '../../src/core/messages/store';
import {
  channelMessageIds,
  firstMessageIdInChannel,
  topicMessageIds,
  usersWithRows,
} from '../../src/core/messages/query';
import { getRowFlags } from '../../src/core/messages/rows';
import { idListToArray } from '../../src/core/messages/idlist';
import { simulateRealm } from '../../src/simulate/simulate';

describe('message store indexes', () => {
  const base = simulateRealm({ preset: 'small', seed: 11 });

  it('stay equal to a scan after random deletions, and old stores keep theirs', () => {
    const all = [...allMessages(base.messages)];
    fc.assert(
      fc.property(fc.uniqueArray(fc.constantFrom(...all.map((m) => m.id)), { maxLength: 400 }), (gone) => {
        const store = deleteMessages(base.messages, new Set(gone));
        const left = [...allMessages(store)];
        expect(left.length).toBe(all.length - gone.length);
        for (const streamId of base.channels.keys()) {
          const expected = left.filter((m) => m.stream_id === streamId).map((m) => m.id);
          expect(channelMessageIds(store, streamId)).toEqual(expected);
          expect(firstMessageIdInChannel(store, streamId)).toBe(expected[0] ?? null);
          for (const topic of new Set(left.filter((m) => m.stream_id === streamId).map((m) => m.topic))) {
            expect(topicMessageIds(store, streamId, topic.toUpperCase())).toEqual(
              left
                .filter((m) => m.stream_id === streamId && m.topic.toLowerCase() === topic.toLowerCase())
                .map((m) => m.id),
            );
          }
        }
        for (const [cid, list] of store.byConversation) {
          expect(idListToArray(list)).toEqual(
            left
              .filter(
                (m) =>
                  m.participants !== null && m.participants.join(',') === store.conversations.names.get(cid),
              )
              .map((m) => m.id),
          );
        }
        for (const [sender, list] of store.bySender)
          expect(idListToArray(list)).toEqual(left.filter((m) => m.sender_id === sender).map((m) => m.id));
        expect(channelMessageIds(base.messages, 1)).toEqual(
          all.filter((m) => m.stream_id === 1).map((m) => m.id),
        );
      }),
      { numRuns: 15 },
    );
  });

  it('answers usersWithRows', () => {
    const ids = [1, 2, 3];
    const expected = [...base.messages.rows]
      .filter(([, r]) => ids.some((id) => getRowFlags(r, id) !== undefined))
      .map(([u]) => u);
    expect(usersWithRows(base.messages, ids)).toEqual(expected);
  });
});
