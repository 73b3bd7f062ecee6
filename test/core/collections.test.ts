import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IntMap } from '../../src/core/collections/int-map';
import { StrMap } from '../../src/core/collections/str-map';

type Cmd = { kind: 'set'; key: number; value: number } | { kind: 'delete'; key: number };
const key = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 0x7fffffff }));
const cmd: fc.Arbitrary<Cmd> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), key, value: fc.integer() }),
  fc.record({ kind: fc.constant('delete' as const), key }),
);

describe('IntMap', () => {
  it('behaves like a Map, iterates in key order, and never changes an older version', () => {
    fc.assert(
      fc.property(fc.array(cmd, { maxLength: 60 }), (cmds) => {
        let map = IntMap.empty<number>();
        const model = new Map<number, number>();
        const history: Array<[IntMap<number>, Array<[number, number]>]> = [];
        for (const c of cmds) {
          if (c.kind === 'set') {
            map = map.set(c.key, c.value);
            model.set(c.key, c.value);
          } else {
            map = map.delete(c.key);
            model.delete(c.key);
          }
          history.push([map, [...model].sort((a, b) => a[0] - b[0])]);
        }
        for (const [version, entries] of history) {
          expect([...version.entries()]).toEqual(entries);
          const visited: number[] = [];
          version.forEachValue((v) => visited.push(v));
          expect(visited).toEqual([...version.values()]);
          expect(version.size).toBe(entries.length);
          expect(version.maxKey()).toBe(entries.length ? entries[entries.length - 1]![0] : 0);
          for (const [k, v] of entries) expect(version.get(k)).toBe(v);
        }
      }),
    );
  });

  it('hasKeyIn answers whether any key lies in the range, after sets and deletes', () => {
    // Keys near each other and far apart (deep tries), ranges that straddle node boundaries.
    const key = fc.oneof(fc.nat(100), fc.nat(5000), fc.integer({ min: 0, max: 0x7fffffff }));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), key), { maxLength: 40 }),
        fc.array(fc.tuple(key, fc.nat(4200)), { minLength: 1, maxLength: 20 }),
        (ops, ranges) => {
          let map = IntMap.empty<true>();
          const keys = new Set<number>();
          for (const [add, k] of ops) {
            if (add) {
              map = map.set(k, true);
              keys.add(k);
            } else {
              map = map.delete(k);
              keys.delete(k);
            }
          }
          for (const [lo, width] of ranges) {
            const hi = Math.min(lo + width, 0x7fffffff);
            const expected = [...keys].some((k) => k >= lo && k <= hi);
            expect(map.hasKeyIn(lo, hi)).toBe(expected);
            for (const k of keys) expect(map.hasKeyIn(k, k)).toBe(true);
          }
          expect(map.hasKeyIn(5, 4)).toBe(false);
        },
      ),
    );
  });

  it('setAll equals one set per entry and leaves the older version alone', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 5000 }), fc.string()), { maxLength: 60 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 70_000 }), fc.string()), { maxLength: 200 }),
        (start, entries) => {
          const base = IntMap.from(start);
          const before = [...base.entries()];
          let one = base;
          for (const [k, v] of entries) one = one.set(k, v);
          const all = base.setAll(entries);
          expect([...all.entries()]).toEqual([...one.entries()]);
          expect(all.size).toBe(one.size);
          expect([...base.entries()]).toEqual(before);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('updateMany equals one update per key, in any key order, and leaves the older version alone', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 5000 }), fc.integer()), { maxLength: 60 }),
        fc.array(fc.integer({ min: 0, max: 70_000 }), { maxLength: 200 }),
        fc.boolean(),
        (start, keys, sorted) => {
          const ks = sorted ? [...new Set(keys)].sort((a, b) => a - b) : keys;
          const base = IntMap.from(start);
          const before = [...base.entries()];
          let one = base;
          ks.forEach((k, i) => (one = one.set(k, (one.get(k) ?? 0) + i + 1)));
          const many = base.updateMany(ks, (i, old) => (old ?? 0) + i + 1);
          // Repeated keys (unsorted case) see the earlier update within the same call.
          expect([...many.entries()]).toEqual([...one.entries()]);
          expect(many.size).toBe(one.size);
          expect([...base.entries()]).toEqual(before);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('setWith equals a get and a set of the function of the old value, and leaves the older version alone', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 5000 }), fc.integer()), { maxLength: 60 }),
        fc.array(fc.integer({ min: 0, max: 70_000 }), { maxLength: 100 }),
        (start, keys) => {
          const base = IntMap.from(start);
          const before = [...base.entries()];
          let one = base;
          let withFn = base;
          keys.forEach((k, i) => {
            one = one.set(k, (one.get(k) ?? 0) * 2 + i);
            withFn = withFn.setWith(k, (old: number | undefined, arg: number) => (old ?? 0) * 2 + arg, i);
          });
          expect([...withFn.entries()]).toEqual([...one.entries()]);
          expect(withFn.size).toBe(one.size);
          expect([...base.entries()]).toEqual(before);
        },
      ),
      { numRuns: 200 },
    );
    expect(() => IntMap.empty<number>().setWith(-1, () => 1, 0)).toThrow(RangeError);
  });

  it('refuses keys it cannot hold', () => {
    expect(() => IntMap.empty().set(-1, 1)).toThrow(RangeError);
    expect(() => IntMap.empty().set(2 ** 31, 1)).toThrow(RangeError);
    expect(IntMap.empty().get(-1)).toBeUndefined();
  });
});

describe('StrMap', () => {
  it('behaves like a Map and keeps older versions', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.string({ maxLength: 4 }), fc.integer())), (ops) => {
        let map = StrMap.empty<number>();
        const model = new Map<string, number>();
        const before = map;
        for (const [isSet, k, v] of ops) {
          if (isSet) {
            map = map.set(k, v);
            model.set(k, v);
          } else {
            map = map.delete(k);
            model.delete(k);
          }
        }
        expect(map.size).toBe(model.size);
        for (const [k, v] of model) expect(map.get(k)).toBe(v);
        expect(new Map(map.entries())).toEqual(model);
        expect(before.size).toBe(0);
      }),
    );
  });
});
