import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/context';
import { createRealm } from '../../src/core/snapshot/create';
import { snapshotRealm } from '../../src/core/snapshot/export';
import { SnapshotError } from '../../src/core/snapshot/issues';
import { updateSubscriptionSettings } from '../../src/ops/index';
import { arbSnapshot } from '../support/arbitraries';
import { devSnapshot, testCtx, realmFromUnknown } from '../support/realm';
import { arbPlausibleCall } from './plausible';
import { fcParams } from './runs';
import { arbRealmCase } from './shapes';
import { loose } from '../support/loose';

/**
 * Snapshot fuzzing: valid snapshots (the dev fixture and arbSnapshot) mutated at random JSON paths —
 * deletions, type changes, duplicated records, dangling ids — are either loaded whole (a deletion
 * of an optional field leaves a valid snapshot) or refused with a SnapshotError whose issues each
 * carry a path and a message. Nothing else is ever thrown, the input is never modified, and what
 * loads round-trips through snapshotRealm. Mutations that always break a snapshot (a duplicated
 * record, a dangling reference, a wrong type on a required field) are always refused, and name the
 * collection at fault.
 */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Path = Array<string | number>;

const opts = { random: seededRandom(5) };

function allPaths(value: Json, prefix: Path = [], out: Path[] = []): Path[] {
  const children: Array<[string | number, Json]> = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : value !== null && typeof value === 'object'
      ? Object.entries(value)
      : [];
  for (const [k, v] of children) {
    out.push([...prefix, k]);
    allPaths(v, [...prefix, k], out);
  }
  return out;
}

function parentOf(root: Json, path: Path): { parent: Json[] | { [k: string]: Json }; key: string | number } {
  let node: Json = root;
  for (const key of path.slice(0, -1)) node = (node as Record<string, Json>)[key as string]!;
  return { parent: node as Json[] | { [k: string]: Json }, key: path[path.length - 1]! };
}

const arbBase = fc.oneof(
  { arbitrary: fc.constant(devSnapshot() as unknown as Json), weight: 1 },
  { arbitrary: arbSnapshot() as fc.Arbitrary<unknown> as fc.Arbitrary<Json>, weight: 5 },
);

const wrongValue: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(null, true, -1, 0, 1.5, '', 'x', [], {}, 2 ** 53, '2026-13-45'),
  fc.string({ maxLength: 5 }),
  fc.integer(),
);

type Mutation =
  | { kind: 'delete'; at: number }
  | { kind: 'retype'; at: number; value: Json }
  | { kind: 'duplicate'; at: number }
  | { kind: 'dangle'; at: number };

const arbMutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('retype' as const), at: fc.nat(), value: wrongValue }),
  fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('dangle' as const), at: fc.nat() }),
);

/** Applies mutations to a deep copy; returns the copy. */
function mutate(base: Json, mutations: readonly Mutation[]): Json {
  const doc = structuredClone(base);
  for (const m of mutations) {
    const paths = allPaths(doc);
    if (paths.length === 0) break;
    const path = paths[m.at % paths.length]!;
    const { parent, key } = parentOf(doc, path);
    const p = parent as Record<string | number, Json>;
    switch (m.kind) {
      case 'delete':
        if (Array.isArray(parent)) parent.splice(key as number, 1);
        else delete p[key];
        break;
      case 'retype':
        p[key] = m.value;
        break;
      case 'duplicate':
        if (Array.isArray(parent)) parent.push(structuredClone(parent[key as number]!));
        else p[key] = [structuredClone(p[key]!), structuredClone(p[key]!)];
        break;
      case 'dangle':
        p[key] = 987_654;
        break;
      default: {
        const never: never = m;
        throw new Error(`unknown mutation ${JSON.stringify(never)}`);
      }
    }
  }
  return doc;
}

type Outcome = { loaded: true; canonical: unknown } | { loaded: false; error: SnapshotError };

function load(doc: Json): Outcome {
  const before = JSON.stringify(doc);
  try {
    const state = realmFromUnknown(doc, opts);
    expect(JSON.stringify(doc)).toBe(before);
    return { loaded: true, canonical: snapshotRealm(state) };
  } catch (error) {
    expect(JSON.stringify(doc)).toBe(before);
    if (!(error instanceof SnapshotError))
      throw new Error(`createRealm threw ${String(error)} instead of a SnapshotError`, { cause: error });
    return { loaded: false, error };
  }
}

function expectWellFormedRefusal(error: SnapshotError): void {
  expect(error.issues.length).toBeGreaterThan(0);
  for (const issue of error.issues) {
    expect(typeof issue.path).toBe('string');
    expect(issue.path.length).toBeGreaterThan(0);
    expect(issue.message.length).toBeGreaterThan(0);
  }
}

describe('snapshot fuzzing', () => {
  it('a mutated snapshot is loaded whole and round-trips, or refused with paths', () => {
    fc.assert(
      fc.property(arbBase, fc.array(arbMutation, { minLength: 1, maxLength: 3 }), (base, mutations) => {
        const outcome = load(mutate(base, mutations));
        if (outcome.loaded) {
          // What loads is a valid realm: its canonical form loads again to the same thing.
          const again = load(JSON.parse(JSON.stringify(outcome.canonical)) as Json);
          expect(again.loaded).toBe(true);
          if (again.loaded) expect(again.canonical).toEqual(outcome.canonical);
        } else {
          expectWellFormedRefusal(outcome.error);
        }
      }),
      fcParams(80),
    );
  });

  const COLLECTIONS = [
    ['users', 'user_id'],
    ['channels', 'stream_id'],
    ['user_groups', 'id'],
    ['channel_folders', 'id'],
    ['saved_snippets', 'id'],
  ] as const;

  it('a duplicated record is refused, naming its collection', () => {
    fc.assert(
      fc.property(arbBase, fc.constantFrom(...COLLECTIONS), fc.nat(), (base, [collection], at) => {
        const doc = structuredClone(base) as Record<string, Json[]>;
        const records = doc[collection] ?? [];
        fc.pre(records.length > 0);
        records.push(structuredClone(records[at % records.length]!));
        const outcome = load(doc as unknown as Json);
        expect(outcome.loaded).toBe(false);
        if (!outcome.loaded) {
          expectWellFormedRefusal(outcome.error);
          expect(outcome.error.issues.some((i) => i.path.startsWith(collection))).toBe(true);
        }
      }),
      fcParams(50),
    );
  });

  /** References that must point at an existing record. */
  const REFERENCES: ReadonlyArray<readonly [string, string]> = [
    ['subscriptions', 'user_id'],
    ['subscriptions', 'stream_id'],
    ['messages', 'sender_id'],
    ['saved_snippets', 'user_id'],
    ['default_channel_ids', ''],
    ['push_devices', 'user_id'],
  ];

  it('a dangling reference is refused, naming its collection', () => {
    fc.assert(
      fc.property(arbBase, fc.constantFrom(...REFERENCES), fc.nat(), (base, [collection, field], at) => {
        const doc = structuredClone(base) as Record<string, Json[]>;
        const records = doc[collection] ?? [];
        fc.pre(records.length > 0);
        const i = at % records.length;
        if (field === '') records[i] = 987_654;
        else (records[i] as Record<string, Json>)[field] = 987_654;
        const outcome = load(doc as unknown as Json);
        expect(outcome.loaded).toBe(false);
        if (!outcome.loaded) {
          expectWellFormedRefusal(outcome.error);
          expect(outcome.error.issues.some((i2) => i2.path.startsWith(collection))).toBe(true);
        }
      }),
      fcParams(50),
    );
  });

  it('a wrong type on a required field is refused with its path', () => {
    const REQUIRED = [
      ['users', 'user_id'],
      ['users', 'email'],
      ['channels', 'stream_id'],
      ['channels', 'name'],
      ['messages', 'id'],
    ] as const;
    fc.assert(
      fc.property(
        arbBase,
        fc.constantFrom(...REQUIRED),
        fc.nat(),
        fc.constantFrom<Json>(null, true, [], {}, -3, 'x', 1.5),
        (base, [collection, field], at, value) => {
          const doc = structuredClone(base) as Record<string, Json[]>;
          const records = doc[collection] ?? [];
          fc.pre(records.length > 0);
          const i = at % records.length;
          const record = records[i] as Record<string, Json>;
          // Keep values that stay valid for the field out (a string name is a string).
          fc.pre(
            typeof value !== typeof record[field] ||
              (typeof value === 'number' && value <= 0) ||
              value === 1.5,
          );
          record[field] = value;
          const outcome = load(doc as unknown as Json);
          expect(outcome.loaded).toBe(false);
          if (!outcome.loaded) {
            expectWellFormedRefusal(outcome.error);
            expect(outcome.error.issues.some((x) => x.path.startsWith(`${collection}[`))).toBe(true);
          }
        },
      ),
      fcParams(50),
    );
  });

  it('refuses a document that is not an object at all', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.anything()), (doc) => {
        fc.pre(typeof doc !== 'object' || doc === null || Array.isArray(doc) || !('format' in doc));
        try {
          realmFromUnknown(doc, opts);
          expect.unreachable('loaded a document without a format');
        } catch (error) {
          expect(error).toBeInstanceOf(SnapshotError);
          expectWellFormedRefusal(error as SnapshotError);
        }
      }),
      fcParams(100),
    );
  });

  /**
   * BUG (snapshot loader, found by this suite): ids of 2^31 and above pass the structural schema
   * (`z.int().positive()`) and then make IntMap throw `RangeError: IntMap key must be a non-negative
   * 31-bit integer` out of createRealm, instead of a SnapshotError with the id's path. Seed-free:
   * `createRealm({format: 'chat-realm.snapshot/1', users: [{user_id: 2 ** 31, email: 'a@b.c',
   * full_name: 'A', api_key: 'a'.repeat(32)}]})`. Remove `.fails` once the loader refuses them.
   */
  it('an id beyond 31 bits is refused with a SnapshotError', () => {
    fc.assert(
      fc.property(fc.constantFrom(2 ** 31, 2 ** 40, Number.MAX_SAFE_INTEGER), (id) => {
        const doc = {
          format: 'chat-realm.snapshot/1',
          users: [{ user_id: id, email: 'a@b.c', full_name: 'A', api_key: 'a'.repeat(32) }],
        };
        const outcome = load(doc);
        expect(outcome.loaded).toBe(false);
        if (!outcome.loaded)
          expect(outcome.error.issues.some((i) => i.path.startsWith('users[0]'))).toBe(true);
      }),
      fcParams(3),
    );
  });
});

describe('states made by operations', () => {
  /**
   * Whatever sequence of successful operations made a state, it exports to a snapshot that loads
   * back to the same snapshot: operations never leave a state the snapshot format cannot carry
   * (a dangling id, a duplicate name, a group setting naming a missing group).
   */
  it('export and reload to the same snapshot', () => {
    fc.assert(
      fc.property(arbRealmCase(), fc.array(fc.integer(), { minLength: 1, maxLength: 5 }), (realm, seeds) => {
        let state = realm.state;
        const log: string[] = [];
        for (const seed of seeds) {
          const [call] = fc.sample(arbPlausibleCall(state), { seed, numRuns: 1 });
          const r = loose(call!.op)(state, { userId: call!.userId }, call!.params, testCtx());
          if (r.body.result !== 'success') continue;
          log.push(fc.stringify(call));
          state = r.state;
        }
        const exported = snapshotRealm(state);
        let reloaded: unknown;
        try {
          reloaded = snapshotRealm(createRealm(JSON.parse(JSON.stringify(exported)), opts));
        } catch (error) {
          throw new Error(`after ${log.join('; ')}: ${String(error)}`, { cause: error });
        }
        expect(reloaded, `after ${log.join('; ')}`).toEqual(exported);
      }),
      fcParams(40),
    );
  });

  /**
   * BUG (found by the law above; updateSubscriptionSettings vs the snapshot format): Zulip accepts
   * subscription colors of 3 to 6 hex digits (`^#[0-9a-fA-F]{3,6}$`) and stores them as sent; the
   * engine does the same, but the snapshot schema (src/core/snapshot/schema.ts, docs/realm-snapshot.md)
   * only accepts `#rrggbb`, so the state exports to a snapshot createRealm refuses:
   * `subscriptions[i].color: must be #rrggbb`. Replay: FC_SEED=-1935515261 FC_PATH="31:7:3:3:1:0:1:2:2:2:2".
   * Remove `.fails` once either side is changed (widen the schema, or normalise the color).
   */
  it('a subscription color like #123 survives export and reload', () => {
    const state = createRealm(devSnapshot(), opts);
    const r = updateSubscriptionSettings(
      state,
      { userId: 4 },
      { subscription_data: [{ stream_id: 1, property: 'color', value: '#123' }] },
      testCtx(),
    );
    expect(r.body.result).toBe('success');
    const exported = snapshotRealm(r.state);
    expect(snapshotRealm(createRealm(JSON.parse(JSON.stringify(exported)), opts))).toEqual(exported);
  });
});
