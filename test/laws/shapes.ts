/**
 * Schema-shaped arbitraries for every operation's parameters, and realms and actors to call them
 * with. Values are derived from each parameter's zod schema (via JSON Schema) and from a few
 * hand-written shapes for the parameters whose schemas are transforms (group-setting change
 * requests, narrows, subscription_data, ...), then bent: wrong types, huge numbers, unicode,
 * empty strings, duplicates.
 */
import fc from 'fast-check';
import { z } from 'zod';
import type { Actor, DefinedOperation } from '../../src/core/operation';
import type { ParamSpec } from '../../src/core/params';
import type { RealmState } from '../../src/core/state';
import type { User } from '../../src/core/model/records';
import { createRealm } from '../../src/core/snapshot/create';
import type { RealmSnapshotInput } from '../../src/core/snapshot/format';
import { seededRandom } from '../../src/core/context';
import { isGuest, isModerator, isRealmAdmin, isRealmOwner } from '../../src/core/permissions/roles';
import { arbSnapshot } from '../support/arbitraries';
import { devRealm } from '../support/realm';

// ---------------------------------------------------------------------------------------------
// Realms

/**
 * A realm in a counterexample: fast-check prints the snapshot it was built from (short, and
 * enough to rebuild it), not the persistent maps inside the state.
 */
export class RealmCase {
  constructor(
    readonly state: RealmState,
    readonly snapshot: RealmSnapshotInput | 'dev',
  ) {}
  [fc.toStringMethod](): string {
    return this.snapshot === 'dev' ? 'devRealm()' : `createRealm(${JSON.stringify(this.snapshot)})`;
  }
}

/** Arbitrary valid realms: the dev fixture, or a random snapshot (arbSnapshot) loaded. */
export function arbRealmCase(): fc.Arbitrary<RealmCase> {
  return fc.oneof(
    { arbitrary: fc.constant(new RealmCase(devRealm(), 'dev')), weight: 1 },
    {
      arbitrary: arbSnapshot().map(
        (s) => new RealmCase(createRealm(structuredClone(s), { random: seededRandom(3) }), s),
      ),
      weight: 2,
    },
    {
      // Realms where guests see only the users they share something with.
      arbitrary: arbSnapshot().map((s) => {
        const restricted = {
          ...s,
          realm: { ...s.realm, can_access_all_users_group: 'role:members' as const },
        };
        return new RealmCase(
          createRealm(structuredClone(restricted), { random: seededRandom(3) }),
          restricted,
        );
      }),
      weight: 1,
    },
  );
}

// ---------------------------------------------------------------------------------------------
// Actors

export const ACTOR_KINDS = [
  'owner',
  'admin',
  'moderator',
  'member',
  'provisional',
  'guest',
  'bot',
  'botOwner',
  'deactivated',
  'anonymous',
] as const;
export type ActorKind = (typeof ACTOR_KINDS)[number];

const ownsActiveBot = (state: RealmState, u: User): boolean => {
  for (const b of state.users.values())
    if (b.is_bot && b.is_active && b.bot_owner_id === u.user_id) return true;
  return false;
};

/** The kind of a user, the most specific first (a member who owns a bot is a `botOwner`). */
export function kindOf(state: RealmState, u: User): ActorKind {
  if (!u.is_active) return 'deactivated';
  if (u.is_bot) return 'bot';
  if (isRealmOwner(u)) return 'owner';
  if (isRealmAdmin(u)) return 'admin';
  if (isModerator(u)) return 'moderator';
  if (isGuest(u)) return 'guest';
  if (ownsActiveBot(state, u)) return 'botOwner';
  return u.is_full_member ? 'member' : 'provisional';
}

/** One user of each kind present in the realm (the lowest id), plus the anonymous spectator. */
export function actorsByKind(state: RealmState): Partial<Record<ActorKind, Actor>> {
  const out: Partial<Record<ActorKind, Actor>> = { anonymous: { anonymous: true } };
  for (const u of state.users.values()) {
    const kind = kindOf(state, u);
    out[kind] ??= { userId: u.user_id };
  }
  return out;
}

/** Any user of the realm (every role, bots, deactivated), an unknown id, or the spectator. */
export function arbActor(state: RealmState): fc.Arbitrary<Actor> {
  const ids = [...state.users.keys()];
  return fc.oneof(
    { arbitrary: fc.constantFrom(...ids).map((userId): Actor => ({ userId })), weight: 8 },
    { arbitrary: fc.constant<Actor>({ anonymous: true }), weight: 1 },
    { arbitrary: fc.constantFrom<Actor>({ userId: 0 }, { userId: 9_999 }, { userId: -1 }), weight: 1 },
  );
}

// ---------------------------------------------------------------------------------------------
// Odd values

export const hugeNumber = fc.constantFrom(
  2 ** 31,
  2 ** 53,
  Number.MAX_SAFE_INTEGER,
  -Number.MAX_SAFE_INTEGER,
  1e308,
  -0,
  0.5,
  Number.NaN,
  Number.POSITIVE_INFINITY,
);
export const oddString = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\t\n',
    '\u0000',
    '\u200b',
    '\ud800',
    '\uffff',
    'Ω≈ç√',
    '💥'.repeat(70),
    'a'.repeat(10_001),
  ),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
);

/** A value of the wrong JSON type for anything. */
const wrongType = fc.oneof(
  fc.boolean(),
  fc.integer({ min: -5, max: 5 }),
  hugeNumber,
  oddString,
  fc.constant(null),
  fc.array(fc.integer({ min: -1, max: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
);

/** Duplicates an array's elements (Zulip lists where duplicates matter: keys, order, user ids). */
const withDuplicates = <T>(arb: fc.Arbitrary<T[]>): fc.Arbitrary<T[]> =>
  arb.map((xs) => (xs.length > 0 ? [...xs, ...xs.slice(0, 2)] : xs));

// ---------------------------------------------------------------------------------------------
// From JSON Schema

type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  properties?: Record<string, JsonSchema>;
};

const smallId = fc.integer({ min: -2, max: 40 });

function fromJsonSchema(s: JsonSchema): fc.Arbitrary<unknown> {
  if (s.enum) return fc.constantFrom(...s.enum);
  if (s.anyOf && s.anyOf.length > 0) return fc.oneof(...s.anyOf.map(fromJsonSchema));
  const types = Array.isArray(s.type) ? s.type : s.type === undefined ? [] : [s.type];
  if (types.length > 1) return fc.oneof(...types.map((t) => fromJsonSchema({ ...s, type: t })));
  switch (types[0]) {
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.oneof(smallId, fc.integer({ min: s.minimum ?? -1000, max: Math.min(s.maximum ?? 1e6, 1e6) }));
    case 'number':
      return fc.double({ noNaN: true, min: -1e6, max: 1e6 });
    case 'string':
      return fc.oneof(
        fc.string({ maxLength: 20 }),
        fc.constantFrom('general chat', 'Verona', 'Denmark', 'recent', 'inbox'),
      );
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(s.items ? fromJsonSchema(s.items) : fc.jsonValue(), { maxLength: 5 });
    case 'object':
      return fc.record(
        Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, fromJsonSchema(v)])),
        { requiredKeys: [] },
      );
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

// ---------------------------------------------------------------------------------------------
// Hand-written shapes for transform schemas

const anonGroup = fc.record({
  direct_members: withDuplicates(fc.array(smallId, { maxLength: 4 })),
  direct_subgroups: fc.array(smallId, { maxLength: 3 }),
});
const settingValue = fc.oneof(smallId, anonGroup);
const changeRequest = fc.oneof(
  fc.record({ new: settingValue, old: settingValue }, { requiredKeys: ['new'] }),
  fc.record({ new: wrongType, old: wrongType }, { requiredKeys: [] }),
  settingValue,
);
const flagNames = fc.constantFrom(
  'read',
  'starred',
  'collapsed',
  'mentioned',
  'historical',
  'has_alert_word',
  'unknown',
);
const narrowTerm = fc.oneof(
  fc.record(
    {
      operator: fc.constantFrom(
        'channel',
        'stream',
        'topic',
        'is',
        'sender',
        'dm',
        'search',
        'id',
        'near',
        'has',
        'with',
        'in',
      ),
      operand: fc.oneof(
        fc.string({ maxLength: 10 }),
        smallId,
        fc.array(smallId, { maxLength: 3 }),
        fc.constantFrom('Verona', 'unread', 'starred', 'dm', 'home'),
      ),
      negated: fc.boolean(),
    },
    { requiredKeys: ['operator', 'operand'] },
  ),
  fc.tuple(fc.constantFrom('channel', 'topic', 'is', 'search'), fc.string({ maxLength: 8 })),
  wrongType,
);
const HAND: Record<string, fc.Arbitrary<unknown>> = {
  subscription_data: fc.array(
    fc.record(
      {
        stream_id: smallId,
        property: fc.constantFrom(
          'color',
          'is_muted',
          'in_home_view',
          'pin_to_top',
          'desktop_notifications',
          'audible_notifications',
          'push_notifications',
          'email_notifications',
          'wildcard_mentions_notify',
          'bogus',
        ),
        value: fc.oneof(fc.boolean(), fc.constantFrom('#abc', '#a1b2c3', '#12345', 'red', ''), wrongType),
      },
      { requiredKeys: [] },
    ),
    { maxLength: 4 },
  ),
  to: fc.oneof(
    smallId,
    withDuplicates(fc.array(smallId, { maxLength: 4 })),
    fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
  ),
  narrow: fc.oneof(fc.constant([]), fc.constant(null), fc.array(narrowTerm, { maxLength: 3 })),
  anchor: fc.oneof(
    fc.constantFrom('newest', 'oldest', 'first_unread', 'date', '0', '1000'),
    smallId,
    hugeNumber,
  ),
  flag: flagNames,
  op: fc.constantFrom('add', 'remove', 'toggle', ''),
  data: fc.array(
    fc.record(
      {
        id: smallId,
        value: fc.oneof(
          fc.string({ maxLength: 60 }),
          fc.array(smallId, { maxLength: 3 }),
          fc.constantFrom('0', '1', '1909-03-05', 'https://example.com', ''),
        ),
      },
      { requiredKeys: [] },
    ),
    { maxLength: 3 },
  ),
  field_data: fc.oneof(
    fc.dictionary(
      fc.constantFrom('0', '1', 'x'),
      fc.record(
        { text: fc.string({ maxLength: 5 }), order: fc.oneof(fc.string({ maxLength: 2 }), smallId) },
        { requiredKeys: [] },
      ),
      { maxKeys: 3 },
    ),
    fc.record(
      {
        subtype: fc.constantFrom('github', 'twitter', 'custom', 'x'),
        url_pattern: fc.constantFrom('https://x.com/%(username)s', 'nope'),
      },
      { requiredKeys: [] },
    ),
    wrongType,
  ),
  principals: fc.oneof(
    withDuplicates(fc.array(smallId, { maxLength: 3 })),
    fc.array(fc.constantFrom('hamlet@zulip.com', 'HAMLET@ZULIP.COM', 'nobody@x', 'user1@example.com', ''), {
      maxLength: 3,
    }),
    fc.array(fc.oneof(smallId, fc.string({ maxLength: 4 })), { maxLength: 3 }),
  ),
  subscriptions: withDuplicates(
    fc.array(fc.oneof(fc.constantFrom('Verona', 'verona', ' Denmark ', 'channel 1', 'Rome', ''), oddString), {
      maxLength: 3,
    }),
  ),
  target_users: fc.oneof(
    fc.record(
      {
        user_ids: withDuplicates(fc.array(smallId, { maxLength: 3 })),
        group_ids: fc.array(smallId, { maxLength: 2 }),
        skip_if_already_edited: fc.oneof(fc.boolean(), wrongType),
      },
      { requiredKeys: ['skip_if_already_edited'] },
    ),
    fc.constantFrom('all', 'everyone'),
    withDuplicates(fc.array(smallId, { maxLength: 3 })),
  ),
  keys: fc.oneof(fc.constant(null), withDuplicates(fc.array(fc.string({ maxLength: 6 }), { maxLength: 3 }))),
  order: withDuplicates(fc.array(smallId, { maxLength: 4 })),
  content: fc.oneof(fc.string({ maxLength: 30 }), oddString),
  title: fc.oneof(fc.string({ maxLength: 30 }), oddString),
  message_retention_days: fc.oneof(
    fc.constantFrom('unlimited', 'realm_default', 'forever'),
    smallId,
    hugeNumber,
  ),
  folder_id: fc.oneof(fc.constant(null), smallId),
  topic_name: fc.oneof(fc.constantFrom('general chat', '', 'lunch', 'Lunch', 'work', 'test'), oddString),
  fragment: fc.oneof(
    fc.constantFrom('inbox', 'recent', 'narrow/is/starred', 'narrow/channel/1', ''),
    oddString,
  ),
};

function isTransform(spec: ParamSpec): boolean {
  const js = z.toJSONSchema(spec.schema, { unrepresentable: 'any', io: 'input' }) as JsonSchema;
  return js.type === undefined && js.anyOf === undefined && js.enum === undefined;
}

/** A plausible value for one parameter, from its schema or a hand-written shape. */
export function arbParamValue(spec: ParamSpec): fc.Arbitrary<unknown> {
  if (spec.name.endsWith('_group') && isTransform(spec)) return changeRequest;
  const hand = HAND[spec.name];
  if (hand) return hand;
  const js = z.toJSONSchema(spec.schema, { unrepresentable: 'any', io: 'input' }) as JsonSchema;
  return fromJsonSchema(js);
}

/** A plausible-or-bent value: mostly well-typed, sometimes the wrong type or an extreme. */
export function arbBentValue(spec: ParamSpec): fc.Arbitrary<unknown> {
  return fc.oneof({ arbitrary: arbParamValue(spec), weight: 4 }, { arbitrary: wrongType, weight: 1 });
}

/** Decoded params for the library call: a few of the operation's parameters, plus sometimes an unknown one. */
export function arbShapedParams(op: DefinedOperation): fc.Arbitrary<Record<string, unknown>> {
  const specs = op.def.params;
  const entries = specs.map((spec) => [spec.name, arbBentValue(spec)] as const);
  const required = specs.filter((s) => s.required).map((s) => s.name);
  return fc
    .tuple(
      fc.record(Object.fromEntries(entries), { requiredKeys: [] }),
      fc.subarray(required),
      fc.option(fc.constantFrom('unknown_param', 'subject', 'api_key', '__proto__'), { nil: undefined }),
    )
    .chain(([record, forced, extra]) => {
      const forcedValues = forced.map((name) => {
        const spec = specs.find((s) => s.name === name)!;
        return arbParamValue(spec).map((v) => [name, v] as const);
      });
      return fc.tuple(...forcedValues).map((pairs) => {
        const out: Record<string, unknown> = { ...record };
        for (const [k, v] of pairs) out[k] = v;
        if (extra !== undefined)
          Object.defineProperty(out, extra, {
            value: 'x',
            enumerable: true,
            writable: true,
            configurable: true,
          });
        return out;
      });
    });
}

/** The same params as wire strings: JSON parameters JSON-encoded (sometimes broken), raw ones as text. */
export function arbShapedWireParams(op: DefinedOperation): fc.Arbitrary<Record<string, string>> {
  const jsonNames = new Set(op.def.params.filter((p) => p.json).map((p) => p.name));
  return fc
    .tuple(arbShapedParams(op), fc.infiniteStream(fc.integer({ min: 0, max: 9 })))
    .map(([params, dice]) => {
      const it = dice[Symbol.iterator]();
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(params)) {
        const roll = it.next().value as number;
        const text = typeof v === 'string' && !jsonNames.has(k) ? v : (JSON.stringify(v) ?? 'undefined');
        // One time in ten, break the JSON (a truncated document, a Python literal, unquoted text).
        out[k] = roll === 0 ? text.slice(0, Math.max(0, text.length - 1)) : roll === 1 ? 'True' : text;
      }
      return out;
    });
}
