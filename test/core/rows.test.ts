import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
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
});
