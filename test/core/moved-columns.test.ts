import { describe, expect, it } from 'vitest';
import { idListToArray } from '../../src/core/messages/idlist';
import { FOLD_AT, hasPendingMoves } from '../../src/core/messages/moved-columns';
import { buildSearchIndex, hasSearchIndex, searchIndexOf } from '../../src/core/search/search-index';
import { allMessages, getMessage } from '../../src/core/messages/store';
import { moveMessages } from '../../src/core/messages/store-edit';
import { chunkColumns, type MessageStore } from '../../src/core/messages/store-types';
import { simulateRealm } from '../../src/simulate/simulate';

/**
 * Moved chunks keep their moves as patches until first read (issue 25, item 5): a move costs O(k),
 * older states keep their columns, and every reader (records, copies, narrow predicates) sees
 * the moved columns. Zulip has no such structure; the rule followed is `do_update_message`'s
 * (the moved messages' topic and channel change, nothing else).
 */
const base = simulateRealm({ preset: 'small', seed: 3, users: 20, channels: 4, messages: 1500 }).messages;
const busiest = [...base.byChannel].sort((a, b) => b[1].count - a[1].count)[0]!;
const [from, list] = busiest;
const to = [...base.byChannel.keys()].find((s) => s !== from)!;
const channelIds = idListToArray(list);

const snapshot = (store: MessageStore) =>
  [...allMessages(store)].map((m) => `${m.id}:${m.stream_id}:${m.topic}`).join('|');

describe('moved columns', () => {
  it('a move patches the chunk; the record, a spread and the older store are right', () => {
    const before = snapshot(base);
    const ids = channelIds.filter((_, i) => i % 7 === 0).slice(0, 5);
    const moved = moveMessages(base, from, ids, 'moved', to);
    const touched = moved.chunks.filter((c) => hasPendingMoves(c));
    expect(touched.length).toBeGreaterThan(0);
    for (const id of ids) expect(getMessage(moved, id)).toMatchObject({ stream_id: to, topic: 'moved' });
    // A copy (as content edits make: `chunkColumns`) reads the folded columns.
    const copy = chunkColumns(touched[0]!);
    expect(Array.from(copy.topic)).toEqual(Array.from(touched[0]!.topic));
    expect(Array.from(copy.recipient)).toEqual(Array.from(touched[0]!.recipient));
    expect(snapshot(base)).toBe(before);
  });

  it('moves of a moved chunk compose, older states keep their own answers', () => {
    const a = channelIds.slice(0, 3);
    const s1 = moveMessages(base, from, a, 'first');
    const s2 = moveMessages(s1, from, a.slice(1), 'second', to);
    const s3 = moveMessages(s2, to, a.slice(2), 'Third');
    expect(getMessage(s1, a[2]!)).toMatchObject({ stream_id: from, topic: 'first' });
    expect(getMessage(s2, a[2]!)).toMatchObject({ stream_id: to, topic: 'second' });
    expect(getMessage(s3, a[2]!)).toMatchObject({ stream_id: to, topic: 'Third' });
    expect(getMessage(s3, a[1]!)).toMatchObject({ stream_id: to, topic: 'second' });
    expect(getMessage(s3, a[0]!)).toMatchObject({ stream_id: from, topic: 'first' });
    // Moving a message back out of a topic it was moved into finds it under its patched key.
    const back = moveMessages(s3, to, a.slice(2), 'first', from);
    expect(
      idListToArray(
        back.byTopic.get(to)!.get(back.foldedTopics.ids.get('third')!) ?? { chunks: [], count: 0 },
      ),
    ).toEqual([]);
  });

  it('carrying a search index through a move folds nothing, and the index equals a rebuild', () => {
    searchIndexOf(base);
    const ids = channelIds.filter((_, i) => i % 5 === 0).slice(0, 20);
    const moved = moveMessages(base, from, ids, 'searchable words', to);
    expect(hasSearchIndex(moved)).toBe(true);
    const touched = moved.chunks.filter((c) => hasPendingMoves(c));
    expect(touched.length).toBeGreaterThan(0);
    const carried = searchIndexOf(moved);
    const rebuilt = buildSearchIndex(moved);
    expect(carried.size).toBe(rebuilt.size);
    expect([...carried.postings.entries()].map(([l, list]) => [l, idListToArray(list)]).sort()).toEqual(
      [...rebuilt.postings.entries()].map(([l, list]) => [l, idListToArray(list)]).sort(),
    );
  });

  it('past FOLD_AT patches a chunk is folded right away', () => {
    const ids = channelIds.slice(0, FOLD_AT + 1);
    expect(ids.length).toBe(FOLD_AT + 1);
    const moved = moveMessages(base, from, ids, 'many');
    expect(moved.chunks.some((c) => hasPendingMoves(c))).toBe(false);
    for (const id of ids) expect(getMessage(moved, id)?.topic).toBe('many');
  });
});
