import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildIdList, ID_CHUNK, idListToArray, removeIds, type IdList } from '../../src/core/messages/idlist';
import { appendId, lastIdOf } from '../../src/core/messages/store-append';

/**
 * Appended id lists share their tail buffer and their full chunks with every older list, and put
 * their chunks together only when read: every version must keep reading exactly its own ids,
 * whether it was read before or after newer versions grew in place, forked or sealed a chunk.
 */
describe('appendId keeps every version of a list', () => {
  it('through forks, reads before and after growth, and removals', () => {
    const step = fc.record({
      back: fc.nat({ max: 6 }),
      gap: fc.integer({ min: 1, max: 3 }),
      readFirst: fc.boolean(),
      remove: fc.nat({ max: 19 }),
    });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 60 }), (steps) => {
        const versions: Array<{ list: IdList; ids: number[] }> = [
          { list: buildIdList([1, 2, 5]), ids: [1, 2, 5] },
        ];
        for (const s of steps) {
          const from = versions[Math.max(0, versions.length - 1 - s.back)]!;
          // Reading a version makes its chunks: before or after newer versions grow from it.
          if (s.readFirst) expect(idListToArray(from.list)).toEqual(from.ids);
          if (s.remove === 0 && from.ids.length > 1) {
            const gone = from.ids[from.ids.length - 1]!;
            versions.push({ list: removeIds(from.list, new Set([gone])), ids: from.ids.slice(0, -1) });
            continue;
          }
          const id = from.ids[from.ids.length - 1]! + s.gap;
          versions.push({ list: appendId(from.list, id), ids: [...from.ids, id] });
        }
        for (const v of versions) {
          expect(v.list.count).toBe(v.ids.length);
          expect(idListToArray(v.list)).toEqual(v.ids);
          expect(lastIdOf(v.list)).toBe(v.ids[v.ids.length - 1]);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('across a full chunk, with a fork on either side of the seal', () => {
    let list: IdList | undefined;
    const kept: Array<[IdList, number]> = [];
    for (let id = 1; id <= ID_CHUNK + 40; id++) {
      list = appendId(list, id);
      if (id % 997 === 0 || (id >= ID_CHUNK - 2 && id <= ID_CHUNK + 2)) kept.push([list, id]);
    }
    // Forks of the versions around the seal, appended after the newest grew past them.
    const forks = kept.map(([l, n]) => [appendId(l, n + 1_000_000), n] as const);
    for (const [l, n] of kept) {
      expect(l.count).toBe(n);
      expect(idListToArray(l)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
      expect(l.chunks.every((c) => c.length <= ID_CHUNK)).toBe(true);
    }
    for (const [f, n] of forks) {
      const ids = idListToArray(f);
      expect(ids.length).toBe(n + 1);
      expect(ids[n]).toBe(n + 1_000_000);
      expect(lastIdOf(f)).toBe(n + 1_000_000);
    }
    expect(list!.chunks.map((c) => c.length)).toEqual([ID_CHUNK, 40]);
    expect(lastIdOf(list!)).toBe(ID_CHUNK + 40);
  });

  it('starts a new list small, and the chunk after a full one whole (no growth per chunk)', () => {
    const capacity = (l: IdList) => l.chunks[l.chunks.length - 1]!.buffer.byteLength / 4;
    let list = appendId(undefined, 1);
    expect(capacity(list)).toBe(16);
    for (let id = 2; id <= ID_CHUNK + 1; id++) list = appendId(list, id);
    expect(capacity(list)).toBe(ID_CHUNK);
    const buffer = list.chunks[1]!.buffer;
    for (let id = ID_CHUNK + 2; id <= ID_CHUNK + 500; id++) list = appendId(list, id);
    expect(list.chunks[1]!.buffer).toBe(buffer);
    expect(idListToArray(list)).toEqual(Array.from({ length: ID_CHUNK + 500 }, (_, i) => i + 1));
    // A list built elsewhere whose last chunk is full goes on the same way.
    const built = appendId(buildIdList(Array.from({ length: ID_CHUNK }, (_, i) => i + 1)), ID_CHUNK + 1);
    expect(capacity(built)).toBe(ID_CHUNK);
    expect(lastIdOf(built)).toBe(ID_CHUNK + 1);
  });
});
