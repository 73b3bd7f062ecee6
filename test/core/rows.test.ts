import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TailRows } from '../../src/core/messages/row-tail';
import { appendRow } from '../../src/core/messages/row-tail';
import {
  buildRows,
  deleteRows,
  forEachRow,
  getRowFlags,
  insertRows,
  lowerBound,
  lowerBoundFrom,
  updateRowFlags,
  ROW_CHUNK,
} from '../../src/core/messages/rows';

const sortedIds = fc
  .uniqueArray(fc.integer({ min: 1, max: 20_000 }), { maxLength: 3 * ROW_CHUNK })
  .map((a) => a.sort((x, y) => x - y));
const toList = (r: ReturnType<typeof buildRows>) => {
  const out: Array<[number, number]> = [];
  forEachRow(r, (id, f) => out.push([id, f]));
  return out;
};

describe('UserRows', () => {
  it('updates flags copy-on-write: the old rows are unchanged, untouched chunks are shared', () => {
    fc.assert(
      fc.property(
        sortedIds,
        fc.array(fc.nat()),
        fc.nat({ max: 255 }),
        fc.nat({ max: 255 }),
        (ids, picks, set, clear) => {
          const rows = buildRows(
            ids,
            ids.map(() => 0),
          );
          const before = toList(rows);
          const chosen = [
            ...new Set(
              picks.map((p) => ids[p % Math.max(1, ids.length)]).filter((x): x is number => x !== undefined),
            ),
          ].sort((a, b) => a - b);
          const next = updateRowFlags(rows, chosen, set, clear);
          expect(toList(rows)).toEqual(before);
          const chosenSet = new Set(chosen);
          for (const [id, f] of toList(next)) expect(f).toBe(chosenSet.has(id) ? (0 | set) & ~clear : 0);
          const touched = next.chunks.filter((c, i) => c !== rows.chunks[i]).length;
          expect(touched).toBeLessThanOrEqual(chosen.length);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('inserts and deletes rows', () => {
    fc.assert(
      fc.property(sortedIds, sortedIds, (a, b) => {
        const extra = b.filter((x) => !a.includes(x));
        const rows = insertRows(
          buildRows(
            a,
            a.map(() => 1),
          ),
          extra,
          extra.map(() => 2),
        );
        const merged = [...a, ...extra].sort((x, y) => x - y);
        expect(toList(rows).map(([id]) => id)).toEqual(merged);
        for (const id of extra) expect(getRowFlags(rows, id)).toBe(2);
        const gone = deleteRows(rows, new Set(extra));
        expect(toList(gone)).toEqual(a.map((id) => [id, 1]));
      }),
      { numRuns: 40 },
    );
  });
});

describe('lowerBoundFrom (galloping from a position)', () => {
  it('agrees with lowerBound from any start position, in both directions', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 500 }), { maxLength: 200 }),
        fc.integer({ min: -5, max: 505 }),
        fc.integer({ min: -3, max: 210 }),
        (values, id, from) => {
          const ids = Int32Array.from([...values].sort((a, b) => a - b));
          expect(lowerBoundFrom(ids, id, from)).toBe(lowerBound(ids, id));
        },
      ),
    );
  });

  // The send path's rows (store-append.ts): appends onto shared tail buffers must keep every
  // older version exactly as it was, also when two versions append onto the same parent (a replay
  // or a failed branch) and across chunk boundaries and flag updates between appends.
  it('appendRow keeps every version as it was, through forks, full chunks and flag updates', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat({ max: 6 }), fc.nat({ max: 3 }), fc.nat({ max: 255 })), { maxLength: 120 }),
        fc.nat({ max: ROW_CHUNK + 40 }),
        (steps, prefill) => {
          const ids = Array.from({ length: prefill }, (_, i) => i + 1);
          const versions: Array<{ rows: ReturnType<typeof buildRows>; list: Array<[number, number]> }> = [
            {
              rows: buildRows(
                ids,
                ids.map(() => 0),
              ),
              list: ids.map((i) => [i, 0]),
            },
          ];
          let next = prefill + 1;
          for (const [back, kind, flags] of steps) {
            const from = versions[Math.max(0, versions.length - 1 - back)]!;
            if (kind === 3 && from.rows.count > 0) {
              const id = from.list[flags % from.list.length]![0];
              versions.push({
                rows: updateRowFlags(from.rows, [id], 2, 0),
                list: from.list.map(([i, f]) => [i, i === id ? f | 2 : f]),
              });
              continue;
            }
            // Big steps now and then, to cross chunk boundaries in few steps.
            const id = next + (kind === 2 ? ROW_CHUNK : 0);
            next = id + 1;
            versions.push({ rows: appendRow(from.rows, id, flags), list: [...from.list, [id, flags]] });
          }
          for (const v of versions) {
            expect(toList(v.rows)).toEqual(v.list);
            expect(v.rows.count).toBe(v.list.length);
            for (const c of v.rows.chunks) expect(c.ids.length).toBeLessThanOrEqual(2 * ROW_CHUNK);
            const last = v.list[v.list.length - 1];
            if (last) expect(getRowFlags(v.rows, last[0])).toBe(last[1]);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('appendRow fills chunks to ROW_CHUNK rows, then starts the next', () => {
    let rows = appendRow(undefined, 1, 0);
    for (let id = 2; id <= 2 * ROW_CHUNK + 5; id++) rows = appendRow(rows, id, id & 1);
    expect(rows.chunks.map((c) => c.ids.length)).toEqual([ROW_CHUNK, ROW_CHUNK, 5]);
    expect(getRowFlags(rows, ROW_CHUNK + 1)).toBe(1);
  });

  it('a user starts small, and after a full chunk takes the next chunk whole (no growth per chunk)', () => {
    let rows = appendRow(undefined, 1, 0);
    const capacity = () => (rows as TailRows).tail.ids.length;
    expect(capacity()).toBe(8);
    for (let id = 2; id <= 9; id++) rows = appendRow(rows, id, 0);
    expect(capacity()).toBe(32);
    for (let id = 10; id <= ROW_CHUNK + 1; id++) rows = appendRow(rows, id, 0);
    expect(capacity()).toBe(ROW_CHUNK);
    const buffer = (rows as TailRows).tail.ids;
    for (let id = ROW_CHUNK + 2; id <= 2 * ROW_CHUNK; id++) rows = appendRow(rows, id, id & 1);
    // The second chunk was written into the buffer it started with.
    expect((rows as TailRows).tail.ids).toBe(buffer);
    expect(rows.count).toBe(2 * ROW_CHUNK);
    expect(getRowFlags(rows, 2 * ROW_CHUNK - 1)).toBe(1);
    // Rows built elsewhere whose last chunk is full go on the same way.
    const built = buildRows(
      Array.from({ length: ROW_CHUNK }, (_, i) => i + 1),
      new Uint16Array(ROW_CHUNK),
    );
    const after = appendRow(built, ROW_CHUNK + 1, 0) as TailRows;
    expect(after.tail.ids.length).toBe(ROW_CHUNK);
    expect(toList(after).slice(-2)).toEqual([
      [ROW_CHUNK, 0],
      [ROW_CHUNK + 1, 0],
    ]);
  });
});
