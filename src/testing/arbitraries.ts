/**
 * `chat-realm/testing/arbitraries`: fast-check arbitraries for property tests of code built on
 * chat-realm — valid realm snapshots and realms, actors of a realm, and operation calls / wire
 * requests with well-shaped and badly-shaped parameters.
 *
 * This is the only module of the package that imports fast-check (an optional peer dependency),
 * which is why it is its own entry point and not part of `chat-realm/testing`.
 */
import fc from 'fast-check';
import { seededRandom } from '../core/context';
import { untyped, type Actor, type DefinedOperation, type UntypedOperation } from '../core/operation';
import { createRealm } from '../core/snapshot/create';
import type { RealmSnapshotInput } from '../core/snapshot/format';
import type { RealmState } from '../core/state';
import { OPERATIONS } from '../ops/index';
import type { ApiRequest } from '../wire/handle';
import { basicAuthHeader } from '../wire/auth';

const ROLES = [100, 200, 300, 400, 600] as const;
const FLAGS = ['read', 'starred', 'collapsed', 'mentioned', 'historical'] as const;
const SYSTEM = [
  'role:nobody',
  'role:owners',
  'role:administrators',
  'role:moderators',
  'role:members',
  'role:everyone',
] as const;

/** Upper bounds for `arbSnapshot` (each count is drawn between its minimum and this). */
export interface SnapshotShape {
  users: number;
  groups: number;
  channels: number;
  messages: number;
}

const apiKey = (i: number) => `key${String(i).padStart(29, '0')}`;

/**
 * Valid `chat-realm.snapshot/1` documents (docs/realm-snapshot.md): users of every role and bots
 * (some deactivated), user groups whose subgroup graph may have cycles and diamonds, channels with
 * group-setting values of both forms, subscriptions, messages with flags, folders and a few personal
 * records. Every user's API key is `key` followed by the zero-padded id (29 digits).
 *
 * @example
 * ```ts
 * fc.assert(
 *   fc.property(arbSnapshot({ users: 5, messages: 10 }), (snapshot) => {
 *     const state = createRealm(snapshot);
 *     expect(createRealm(snapshotRealm(state))).toBeDefined();
 *   }),
 *   { numRuns: 20 },
 * );
 * ```
 */
export function arbSnapshot(max: Partial<SnapshotShape> = {}): fc.Arbitrary<RealmSnapshotInput> {
  const m = { users: 8, groups: 5, channels: 5, messages: 20, ...max };
  return fc
    .record({
      nUsers: fc.integer({ min: 1, max: Math.max(1, m.users) }),
      nGroups: fc.integer({ min: 0, max: m.groups }),
      nChannels: fc.integer({ min: 0, max: m.channels }),
      seed: fc.infiniteStream(fc.nat({ max: 1_000_000 })),
      nMessages: fc.integer({ min: 0, max: m.messages }),
      threshold: fc.integer({ min: 0, max: 10 }),
    })
    .map(({ nUsers, nGroups, nChannels, seed, nMessages, threshold }): RealmSnapshotInput => {
      const it = seed[Symbol.iterator]();
      const r = (n: number) => (it.next().value as number) % Math.max(1, n);
      const pick = <T>(xs: readonly T[]): T => xs[r(xs.length)]!;
      const userIds = Array.from({ length: nUsers }, (_, i) => i + 1);
      const someUsers = () => userIds.filter(() => r(3) === 0);
      const groupIds = Array.from({ length: nGroups }, (_, i) => 100 + i);
      const allGroupIds = [...groupIds, 1, 2, 3, 4, 5, 6, 7];
      const setting = () =>
        r(3) === 0
          ? pick(SYSTEM)
          : r(2) === 0 && groupIds.length > 0
            ? pick(groupIds)
            : { direct_members: someUsers(), direct_subgroups: allGroupIds.filter(() => r(5) === 0) };
      const users = userIds.map((id) => {
        const isBot = r(6) === 0;
        return {
          user_id: id,
          email: `user${id}@example.com`,
          full_name: `User ${id}`,
          role: pick(ROLES),
          is_active: r(8) !== 0,
          ...(isBot ? { is_bot: true, bot_owner_id: pick(userIds) } : {}),
          date_joined: `2026-0${1 + r(9)}-0${1 + r(9)}T00:00:00+00:00`,
          api_key: apiKey(id),
        };
      });
      const user_groups = groupIds.map((id) => ({
        id,
        name: `group ${id}`,
        members: someUsers(),
        // Subgroups may point anywhere, including back up: cycles are allowed in snapshots.
        direct_subgroup_ids: groupIds.filter((g) => g !== id && r(3) === 0),
        deactivated: r(7) === 0,
        can_manage_group: setting(),
        can_mention_group: setting(),
      }));
      const channels = Array.from({ length: nChannels }, (_, i) => {
        const inviteOnly = r(3) === 0;
        // Drawn either way (the rest of the realm stays the same), kept only for a public channel:
        // Zulip never has a private web-public channel that is not archived, and one made the
        // register law fail (a subscriber gets `create` for a channel they could already see).
        const webPublic = r(5) === 0;
        return {
          stream_id: i + 1,
          name: `channel ${i + 1}`,
          invite_only: inviteOnly,
          is_web_public: webPublic && !inviteOnly,
          can_remove_subscribers_group: setting(),
          can_administer_channel_group: setting(),
        };
      });
      const subscriptions = channels.flatMap((c) =>
        someUsers().map((u) => ({
          user_id: u,
          stream_id: c.stream_id,
          is_muted: r(4) === 0,
          active: r(6) !== 0,
        })),
      );
      const messages = Array.from({ length: nMessages }, (_, i) => {
        const target =
          channels.length > 0 && r(4) !== 0
            ? { stream_id: pick(channels).stream_id, topic: pick(['', 'lunch', 'Lunch', 'work']) }
            : { to: someUsers().slice(0, 3) };
        const withFlags = r(2) === 0;
        return {
          id: 1000 + i * (1 + r(3)),
          sender_id: pick(userIds),
          ...target,
          content: `message ${i}`,
          timestamp: 1_700_000_000 + i * 60,
          ...(withFlags
            ? {
                flags: Object.fromEntries(
                  someUsers().map((u) => [String(u), FLAGS.filter(() => r(3) === 0)]),
                ),
              }
            : {}),
        };
      });
      // Ids may collide after the stride above; keep the first of each.
      const seen = new Set<number>();
      const uniqueMessages = messages.filter((x) => (seen.has(x.id) ? false : (seen.add(x.id), true)));
      return {
        format: 'chat-realm.snapshot/1',
        now: 1_795_219_200,
        realm: {
          waiting_period_threshold: threshold,
          can_manage_all_groups: pick(['role:owners', 'role:administrators']),
        },
        users,
        user_groups,
        channel_folders: r(2) === 0 ? [{ id: 1, name: 'Folder' }] : [],
        channels,
        subscriptions,
        default_channel_ids: channels.filter(() => r(3) === 0).map((c) => c.stream_id),
        messages: uniqueMessages,
        saved_snippets: users
          .slice(0, 2)
          .map((u, i) => ({ id: i + 1, user_id: u.user_id, title: 't', content: 'c' })),
        push_devices: r(2) === 0 ? [{ user_id: 1, kind: 'fcm', token: 'a'.repeat(64) }] : [],
        // Custom emoji in half the realms: one by an author, one deactivated.
        ...(r(2) === 0
          ? {
              realm_emoji: [
                { id: 1, name: 'green_tick', source_url: '/e/1.png', author_id: users[0]?.user_id ?? null },
                { id: 2, name: 'old_logo', source_url: '/e/2.png', deactivated: true },
              ],
            }
          : {}),
      };
    });
}

/**
 * Valid realms: `arbSnapshot` loaded with `createRealm` (seeded randomness, so shrinking is
 * reproducible).
 *
 * @example
 * ```ts
 * fc.assert(
 *   fc.property(arbRealm({ users: 6 }), (state) => {
 *     expect(state.users.maxKey()).toBeGreaterThan(0);
 *   }),
 *   { numRuns: 20 },
 * );
 * ```
 */
export function arbRealm(max: Partial<SnapshotShape> = {}): fc.Arbitrary<RealmState> {
  return arbSnapshot(max).map((snapshot) => createRealm(snapshot, { random: seededRandom(1) }));
}

/**
 * Who may call: any user of the realm (every role, bots, deactivated users), an id that is no
 * user, or the anonymous spectator.
 *
 * @example
 * ```ts
 * fc.assert(
 *   fc.property(arbActor(realm), (actor) => {
 *     const r = getOwnUser(realm, actor);
 *     expect([200, 400, 401]).toContain(r.status);
 *   }),
 *   { numRuns: 50 },
 * );
 * ```
 */
export function arbActor(state: RealmState): fc.Arbitrary<Actor> {
  const ids = [...state.users.keys()];
  const users =
    ids.length > 0
      ? [{ arbitrary: fc.constantFrom(...ids).map((userId): Actor => ({ userId })), weight: 8 }]
      : [];
  return fc.oneof(
    ...users,
    { arbitrary: fc.constant<Actor>({ anonymous: true }), weight: 1 },
    { arbitrary: fc.constantFrom<Actor>({ userId: 0 }, { userId: state.users.maxKey() + 1 }), weight: 1 },
  );
}

/** Integers worth trying for ids and counts: the realm's own ids, boundaries and nonsense. */
function interestingInts(state: RealmState): number[] {
  const ids = new Set<number>([0, 1, -1, 2 ** 31, 5000]);
  for (const k of state.users.keys()) ids.add(k);
  for (const k of state.channels.keys()) ids.add(k);
  for (const k of state.groups.keys()) ids.add(k);
  for (const k of state.scheduledMessages.keys()) ids.add(k);
  for (const k of state.customProfileFields.keys()) ids.add(k);
  for (const k of state.channelFolders.keys()) ids.add(k);
  return [...ids];
}

/** Strings worth trying: names and emails of the realm, flag and op words, odd text. */
function interestingStrings(state: RealmState): string[] {
  const out = new Set<string>([
    '',
    ' ',
    'read',
    'starred',
    'add',
    'remove',
    'oldest',
    'newest',
    'first_unread',
    'lunch',
    '💥',
    'a'.repeat(70),
  ]);
  for (const c of state.channels.values()) out.add(c.name);
  for (const u of state.users.values()) out.add(u.delivery_email);
  for (const g of state.groups.values()) out.add(g.name);
  return [...out];
}

/**
 * Parameters for one operation: each declared parameter present or not, with a value that is
 * well-shaped (an id of the realm, a known name, a list of ids, a small object) or not
 * (`fc.anything()`), and now and then an unknown parameter.
 *
 * @example
 * ```ts
 * fc.assert(
 *   fc.property(arbParams(editChannel, realm), (params) => {
 *     const r = untyped(editChannel)(realm, { userId: 2 }, params, { now });
 *     if (r.status !== 200) expect(r.state).toBe(realm); // errors never change the state
 *   }),
 *   { numRuns: 50 },
 * );
 * ```
 */
export function arbParams(
  operation: DefinedOperation,
  state: RealmState,
): fc.Arbitrary<Record<string, unknown>> {
  const ints = fc.constantFrom(...interestingInts(state));
  const strings = fc.oneof(fc.constantFrom(...interestingStrings(state)), fc.string({ maxLength: 8 }));
  const leaf = fc.oneof(ints, strings, fc.boolean(), fc.constant(null));
  const shaped = fc.oneof(
    { arbitrary: leaf, weight: 4 },
    { arbitrary: fc.array(ints, { maxLength: 4 }), weight: 2 },
    { arbitrary: fc.array(strings, { maxLength: 3 }), weight: 1 },
    {
      arbitrary: fc.array(
        fc.dictionary(
          fc.constantFrom(
            'id',
            'stream_id',
            'property',
            'value',
            'operator',
            'operand',
            'negated',
            'new',
            'old',
          ),
          leaf,
          { maxKeys: 3 },
        ),
        { maxLength: 3 },
      ),
      weight: 2,
    },
    { arbitrary: fc.anything({ maxDepth: 2 }), weight: 1 },
  );
  const declared = Object.fromEntries(operation.def.params.map((p) => [p.name, shaped]));
  // A parameter with an alias (`subject` for `topic`) is sent under it one time in three.
  const aliased = operation.def.params.filter((p) => p.alias !== undefined);
  const spelling = fc.array(fc.constantFrom(false, false, true), {
    minLength: aliased.length,
    maxLength: aliased.length,
  });
  return fc
    .tuple(
      fc.record(declared, { requiredKeys: [] }),
      fc.option(fc.tuple(fc.constantFrom('unknown_param', 'client', 'anchor_date'), leaf), {
        nil: undefined,
        freq: 5,
      }),
      spelling,
    )
    .map(([params, extra, useAlias]) => {
      const out: Record<string, unknown> = extra ? { ...params, [extra[0]]: extra[1] } : { ...params };
      aliased.forEach((p, i) => {
        if (useAlias[i] && p.alias !== undefined && p.name in out) {
          out[p.alias] = out[p.name];
          delete out[p.name];
        }
      });
      return out;
    });
}

/** One library call: an operation, who calls it and with what. */
export interface OperationCall {
  /** The operation, typed to take parameters of any shape (see `untyped`). */
  readonly operation: UntypedOperation;
  readonly actor: Actor;
  readonly params: Record<string, unknown>;
}

/**
 * Library calls over a realm: any of `operations` (default: all twenty), any actor, parameters from
 * `arbParams`.
 *
 * @example
 * ```ts
 * fc.assert(
 *   fc.property(arbOperationCall(realm), ({ operation, actor, params }) => {
 *     const r = operation(realm, actor, params, { now, random: seededRandom(1) });
 *     if (r.body.result === 'error') expect(r.events).toEqual([]);
 *   }),
 *   { numRuns: 100 },
 * );
 * ```
 */
export function arbOperationCall(
  state: RealmState,
  operations: readonly DefinedOperation[] = OPERATIONS,
): fc.Arbitrary<OperationCall> {
  return fc.constantFrom(...operations).chain((operation) =>
    fc.record({
      operation: fc.constant(untyped(operation)),
      actor: arbActor(state),
      params: arbParams(operation, state),
    }),
  );
}

/** A wire value for a parameter: JSON text for JSON parameters, the string itself for raw ones. */
function wireValue(value: unknown, json: boolean): string {
  if (!json && typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? 'undefined';
  } catch {
    return String(value);
  }
}

/**
 * HTTP requests for `handleApiRequest`: an operation's method and path (path parameters filled
 * in), credentials of any user (or none, or wrong ones), and form-encoded parameters — the
 * `arbParams` values as a client would send them.
 *
 * @example
 * ```ts
 * fc.assert(
 *   fc.property(arbApiRequest(realm), (request) => {
 *     const r = handleApiRequest(realm, request, { now, random: seededRandom(1) });
 *     expect(r.status).toBeGreaterThanOrEqual(200);
 *   }),
 *   { numRuns: 100 },
 * );
 * ```
 */
export function arbApiRequest(
  state: RealmState,
  operations: readonly DefinedOperation[] = OPERATIONS,
): fc.Arbitrary<ApiRequest> {
  const users = [...state.users.values()];
  const credentials = fc.oneof(
    ...(users.length > 0
      ? [
          {
            arbitrary: fc.constantFrom(...users).map((u) => basicAuthHeader(u.delivery_email, u.api_key)),
            weight: 8,
          },
        ]
      : []),
    { arbitrary: fc.constant(undefined), weight: 1 },
    {
      arbitrary: fc.constantFrom(
        basicAuthHeader('nobody@example.com', 'x'.repeat(32)),
        'Bearer token',
        'Basic !!',
      ),
      weight: 1,
    },
  );
  return fc.constantFrom(...operations).chain((operation) =>
    fc
      .record({ authorization: credentials, params: arbParams(operation, state) })
      .map(({ authorization, params }): ApiRequest => {
        const { def } = operation;
        const specs = new Map(
          def.params.flatMap((p) =>
            p.alias === undefined
              ? [[p.name, p]]
              : [
                  [p.name, p],
                  [p.alias, p],
                ],
          ),
        );
        let path = def.path;
        const form = new URLSearchParams();
        for (const [name, value] of Object.entries(params)) {
          const text = wireValue(value, specs.get(name)?.json ?? false);
          if (def.pathParams?.includes(name)) path = path.replace(`{${name}}`, encodeURIComponent(text));
          else form.append(name, text);
        }
        // A path parameter left out still needs a segment for the route to match.
        path = path.replace(/\{\w+\}/g, '1');
        const headers = authorization === undefined ? {} : { authorization };
        const query = form.toString();
        return def.method === 'GET'
          ? { method: def.method, url: `/api/v1${path}${query ? `?${query}` : ''}`, headers }
          : { method: def.method, url: `/api/v1${path}`, headers, body: query };
      }),
  );
}
