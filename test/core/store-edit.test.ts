import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildIdList, ID_CHUNK, idListToArray, insertIds } from '../../src/core/messages/idlist';
import { allMessages, deleteMessages, type MessageStore } from '../../src/core/messages/store';
import { moveMessages, replaceContent } from '../../src/core/messages/store-edit';
import { usersWithRows } from '../../src/core/messages/query';
import { devRealm } from '../support/realm';
import { runs } from '../laws/runs';

/**
 * The store's indexes after edits, moves and deletes answer exactly as indexes built from scratch
 * from the messages (issue 25, item 4): channel lists, topic lists (by folded topic), senders.
 */
function expectedIndexes(store: MessageStore) {
  const byChannel = new Map<number, number[]>();
  const byTopic = new Map<string, number[]>();
  const bySender = new Map<number, number[]>();
  for (const m of allMessages(store)) {
    const push = <K>(map: Map<K, number[]>, k: K) => map.set(k, [...(map.get(k) ?? []), m.id]);
    push(bySender, m.sender_id);
    if (m.stream_id === null) continue;
    push(byChannel, m.stream_id);
    push(byTopic, `${m.stream_id}:${m.topic.toLowerCase()}`);
  }
  return { byChannel, byTopic, bySender };
}

function actualIndexes(store: MessageStore) {
  const byChannel = new Map<number, number[]>();
  for (const [k, list] of store.byChannel) byChannel.set(k, idListToArray(list));
  const byTopic = new Map<string, number[]>();
  for (const [s, perTopic] of store.byTopic)
    for (const [key, list] of perTopic)
      byTopic.set(`${s}:${store.foldedTopics.names.get(key)!}`, idListToArray(list));
  const bySender = new Map<number, number[]>();
  for (const [k, list] of store.bySender) bySender.set(k, idListToArray(list));
  return { byChannel, byTopic, bySender };
}

const sorted = (m: Map<unknown, number[]>) => [...m].sort((a, b) => String(a[0]).localeCompare(String(b[0])));

type Step =
  | { kind: 'move'; pick: number[]; topic: string; stream: number }
  | { kind: 'delete'; pick: number[] }
  | { kind: 'content'; pick: number[] };

describe('message store edits', () => {
  it('after any sequence of moves, content edits and deletes the indexes equal a rebuild', () => {
    const base = devRealm().messages;
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({
        kind: fc.constant('move' as const),
        pick: fc.array(fc.nat(80), { minLength: 1, maxLength: 6 }),
        topic: fc.constantFrom('lunch', 'LUNCH', 'new', '', '✔ weather'),
        stream: fc.integer({ min: 1, max: 10 }),
      }),
      fc.record({
        kind: fc.constant('delete' as const),
        pick: fc.array(fc.nat(80), { minLength: 1, maxLength: 3 }),
      }),
      fc.record({
        kind: fc.constant('content' as const),
        pick: fc.array(fc.nat(80), { minLength: 1, maxLength: 1 }),
      }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 8 }), (steps) => {
        let store = base;
        for (const s of steps) {
          const channelIds = [...allMessages(store)].filter((m) => m.stream_id !== null);
          if (channelIds.length === 0) break;
          const chosen = [...new Set(s.pick.map((i) => channelIds[i % channelIds.length]!))];
          if (s.kind === 'delete') store = deleteMessages(store, new Set(chosen.map((m) => m.id)));
          else if (s.kind === 'content') store = replaceContent(store, chosen[0]!.id, 'edited', 0);
          else {
            // One move touches one channel's messages.
            const from = chosen[0]!.stream_id!;
            const ids = chosen
              .filter((m) => m.stream_id === from)
              .map((m) => m.id)
              .sort((a, b) => a - b);
            const holders = usersWithRows(store, ids);
            store = moveMessages(store, from, ids, s.topic, s.stream);
            // Rows stay with their messages, and the row-holder index still finds them.
            expect(usersWithRows(store, ids)).toEqual(holders);
          }
        }
        const want = expectedIndexes(store);
        const got = actualIndexes(store);
        expect(sorted(got.byChannel)).toEqual(sorted(want.byChannel));
        expect(sorted(got.byTopic)).toEqual(sorted(want.byTopic));
        expect(sorted(got.bySender)).toEqual(sorted(want.bySender));
        // The base store is untouched (persistence).
        expect(sorted(actualIndexes(base).byTopic)).toEqual(sorted(expectedIndexes(base).byTopic));
      }),
      { numRuns: runs(60) },
    );
  });
});

describe('insertIds (the destination lists of a move)', () => {
  it('equals a sorted rebuild, shares untouched chunks and keeps chunks bounded', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 40_000 }), { maxLength: 12_000 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 40_000 }), { maxLength: 3_000 }),
        (base, add) => {
          base.sort((a, b) => a - b);
          add.sort((a, b) => a - b);
          const list = buildIdList(base);
          const next = insertIds(list, add);
          const want = [...new Set([...base, ...add])].sort((a, b) => a - b);
          expect(idListToArray(next)).toEqual(want);
          expect(next.count).toBe(want.length);
          for (const c of next.chunks) expect(c.length).toBeLessThanOrEqual(2 * ID_CHUNK);
          // A chunk past the last added id (not the first: it takes smaller ids) is the same object.
          list.chunks.forEach((c, i) => {
            if (i > 0 && (add.length === 0 || c[0]! > add[add.length - 1]!)) expect(next.chunks).toContain(c);
          });
          expect(idListToArray(list)).toEqual(base);
        },
      ),
      { numRuns: runs(60) },
    );
  });
});
