/**
 * The derived indexes of src/core/indexes: after any sequence of edits through the draft mutators
 * (directly, or through real operations), every index of the new state was carried forward (not
 * rebuilt) and equals the index rebuilt from scratch; and the functions that now read the indexes
 * answer exactly as the organization-wide scans they replaced (kept here as references).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StrMap } from '../../src/core/collections/str-map';
import { IntMap } from '../../src/core/collections/int-map';
import { isRecentlyActive } from '../../src/core/channels/stream-dict';
import { seededRandom } from '../../src/core/context';
import { to } from '../../src/core/events';
import { CONVERSATION_INDEXES } from '../../src/core/indexes/conversation-indexes';
import { derived } from '../../src/core/indexes/derived';
import { SUBSCRIPTION_INDEXES, subscriberCount } from '../../src/core/indexes/subscription-indexes';
import { USER_INDEXES, foldFullName, userIdsByFoldedName } from '../../src/core/indexes/user-indexes';
import { USER_TOPIC_INDEXES } from '../../src/core/indexes/user-topic-indexes';
import { conversationParticipants } from '../../src/core/messages/interner';
import { allMessages } from '../../src/core/messages/store';
import { Role, type Subscription, type User, type UserTopic } from '../../src/core/model/records';
import { metadataAccessUserIds, isSubscribed, subscriberIds } from '../../src/core/permissions/channels';
import { isUserInSettingValue, settingValueMembers } from '../../src/core/permissions/groups';
import { isGuest, isRealmAdmin } from '../../src/core/permissions/roles';
import { CHANNEL_SETTING_RULES, hasPermission } from '../../src/core/permissions/setting-rules';
import {
  accessibleUserIds,
  accessibleUserIdsAmong,
  canAccessUser,
  isUserAccessRestricted,
} from '../../src/core/permissions/user-access';
import { edit } from '../../src/core/result';
import type { RealmState } from '../../src/core/state';
import { putSubscription, putUser, putUserTopics } from '../../src/core/state-edit';
import { userByDeliveryEmail } from '../../src/core/users/email';
import { humanAdminIds } from '../../src/core/users/realm-users';
import { deleteTopic } from '../../src/ops/channels/deleteTopic';
import { unsubscribe } from '../../src/ops/channels/unsubscribe';
import { updateSettings } from '../../src/ops/settings/updateSettings';
import { simulateRealm } from '../../src/simulate/simulate';
import { createRealm } from '../../src/core/snapshot/create';
import { devRealm, devSnapshot, testCtx } from '../support/realm';

/** A plain, order-independent form of any index, for `toEqual`. */
function plain(value: unknown): unknown {
  if (value instanceof IntMap) return [...value.entries()].map(([k, v]) => [k, plain(v)]);
  if (value instanceof StrMap)
    return [...value.entries()]
      .map(([k, v]) => [k, plain(v)] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (value instanceof Map)
    return [...value.entries()].map(([k, v]) => [k, plain(v)]).sort((a, b) => Number(a[0]) - Number(b[0]));
  if (value instanceof Set) return [...value].sort((a, b) => Number(a) - Number(b));
  if (Array.isArray(value)) return value.map(plain);
  return value;
}

const restricted = (state: RealmState): RealmState =>
  edit(state, (d) => {
    d.realm.can_access_all_users_group = state.systemGroups['role:members'];
  });

const BASES: ReadonlyArray<readonly [string, RealmState]> = [
  ['dev realm', restricted(devRealm())],
  [
    'simulated realm',
    restricted(simulateRealm({ preset: 'small', users: 40, channels: 8, messages: 600, seed: 7 })),
  ],
];

/** Builds every carried index of the state, so that the next edit has something to carry. */
function warm(state: RealmState): void {
  for (const index of Object.values(USER_INDEXES)) index.get(state.users);
  SUBSCRIPTION_INDEXES.byUser.get(state.subscriptions);
  SUBSCRIPTION_INDEXES.activeRows.get(state.subscriptions);
  USER_TOPIC_INDEXES.byTopic.get(state.userTopics);
}

/** Every index of `next` was carried from `prev` (when its collection changed) and equals a rebuild. */
function expectIndexesSound(prev: RealmState, next: RealmState): void {
  for (const index of Object.values(USER_INDEXES)) {
    expect(index.peek(next.users)).toBeDefined();
    expect(plain(index.get(next.users))).toEqual(plain(index.rebuild(next.users)));
  }
  for (const [source, index] of [
    [next.subscriptions, SUBSCRIPTION_INDEXES.byUser],
    [next.subscriptions, SUBSCRIPTION_INDEXES.activeRows],
    [next.userTopics, USER_TOPIC_INDEXES.byTopic],
  ] as const) {
    const i = index as { peek(s: object): unknown; get(s: object): unknown; rebuild(s: object): unknown };
    expect(i.peek(source)).toBeDefined();
    expect(plain(i.get(source))).toEqual(plain(i.rebuild(source)));
  }
  void prev;
}

// --- the organization-wide scans the indexes replaced (references) ---

function scanMetadataAccess(state: RealmState, streamId: number): number[] {
  const channel = state.channels.get(streamId)!;
  const out: number[] = [];
  for (const u of state.users.values()) {
    if (!u.is_active) continue;
    if (isSubscribed(state, streamId, u.user_id)) out.push(u.user_id);
    else if (isGuest(u)) continue;
    else if (!channel.invite_only || isRealmAdmin(u)) out.push(u.user_id);
    else if (
      hasPermission(
        state,
        u,
        CHANNEL_SETTING_RULES.can_administer_channel_group,
        channel.can_administer_channel_group,
      ) ||
      hasPermission(
        state,
        u,
        CHANNEL_SETTING_RULES.can_add_subscribers_group,
        channel.can_add_subscribers_group,
      ) ||
      hasPermission(state, u, CHANNEL_SETTING_RULES.can_subscribe_group, channel.can_subscribe_group)
    )
      out.push(u.user_id);
  }
  return out;
}

function scanShares(state: RealmState, a: number, b: number): boolean {
  for (const perChannel of state.subscriptions.values())
    if (perChannel.get(a)?.active === true && perChannel.get(b)?.active === true) return true;
  for (const key of state.messages.conversations.names.values()) {
    const p = conversationParticipants(key);
    if (p.includes(a) && p.includes(b)) return true;
  }
  return false;
}

function scanAccessible(state: RealmState, viewer: User): number[] {
  if (!isUserAccessRestricted(state, viewer)) return [...state.users.keys()];
  const out = new Set<number>([viewer.user_id]);
  const isActive = (id: number) => state.users.get(id)?.is_active === true;
  for (const perChannel of state.subscriptions.values()) {
    if (perChannel.get(viewer.user_id)?.active !== true) continue;
    for (const sub of perChannel.values()) if (sub.active && isActive(sub.user_id)) out.add(sub.user_id);
  }
  for (const key of state.messages.conversations.names.values()) {
    const p = conversationParticipants(key);
    if (p.includes(viewer.user_id)) for (const id of p) out.add(id);
  }
  for (const u of state.users.values()) if (u.is_bot) out.add(u.user_id);
  return [...out].filter((id) => state.users.has(id)).sort((a, b) => a - b);
}

function expectSameAnswersAsScans(state: RealmState): void {
  const users = [...state.users.values()];
  for (const c of state.channels.values()) {
    expect(metadataAccessUserIds(state, c), `channel ${c.stream_id}`).toEqual(
      scanMetadataAccess(state, c.stream_id),
    );
    const scanned = [...(state.subscriptions.get(c.stream_id)?.values() ?? [])]
      .filter((s) => s.active && state.users.get(s.user_id)?.is_active === true)
      .map((s) => s.user_id);
    expect(subscriberIds(state, c.stream_id), `subscribers of ${c.stream_id}`).toEqual(scanned);
    expect(subscriberCount(state, c.stream_id), `count of ${c.stream_id}`).toBe(scanned.length);
  }
  expect(humanAdminIds(state)).toEqual(
    users.filter((u) => u.is_active && !u.is_bot && isRealmAdmin(u)).map((u) => u.user_id),
  );
  for (const g of state.groups.values())
    expect(settingValueMembers(state, g.id), `group ${g.id}`).toEqual(
      users.filter((u) => isUserInSettingValue(state, u, g.id)).map((u) => u.user_id),
    );
  const ids = [...state.users.keys()];
  for (const u of users) {
    const email = u.delivery_email.toLowerCase();
    expect(userByDeliveryEmail(state, email)?.user_id).toBe(
      users.find((o) => o.delivery_email.toUpperCase() === email.toUpperCase())?.user_id,
    );
    expect(userIdsByFoldedName(state, foldFullName(u.full_name))).toEqual(
      users.filter((o) => foldFullName(o.full_name) === foldFullName(u.full_name)).map((o) => o.user_id),
    );
    const listed = scanAccessible(state, u);
    expect(accessibleUserIds(state, u), `viewer ${u.user_id}`).toEqual(listed);
    expect(accessibleUserIdsAmong(state, u, [...ids].reverse().concat([0, -3, 99999, ids[0]!]))).toEqual(
      listed,
    );
    if (isUserAccessRestricted(state, u))
      for (const t of users)
        expect(canAccessUser(state, u, t), `${u.user_id} sees ${t.user_id}`).toBe(
          u.user_id === t.user_id || t.is_bot || (t.is_active && scanShares(state, u.user_id, t.user_id)),
        );
  }
  expect(userByDeliveryEmail(state, 'nobody@nowhere.example')).toBeUndefined();
}

// --- random edits ---

const NAMES = ['King Hamlet', 'KING HAMLET', 'Straße', 'STRASSE', 'Ｏｔｈｅｌｌｏ', 'othello', 'Zoe'];
const EMAILS = ['a@zulip.com', 'A@ZULIP.COM', 'b@zulip.com', 'hamlet@zulip.com'];
const ROLES = [Role.owner, Role.administrator, Role.moderator, Role.member, Role.guest] as const;
const TOPICS = ['castle', 'Castle', 'weather', 'ghost'];

type Step =
  | {
      kind: 'user';
      pick: number;
      role: (typeof ROLES)[number];
      active: boolean;
      full: boolean;
      name: number;
      email: number;
    }
  | { kind: 'newUser'; bot: boolean; role: (typeof ROLES)[number]; name: number }
  | { kind: 'sub'; pick: number; stream: number; active: boolean }
  | { kind: 'topics'; pick: number; rows: Array<[number, number]> }
  | { kind: 'rename'; pick: number; name: number }
  | { kind: 'unsubscribe'; pick: number; stream: number }
  | { kind: 'deleteTopic'; stream: number; topic: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('user' as const),
    pick: fc.nat(),
    role: fc.constantFrom(...ROLES),
    active: fc.boolean(),
    full: fc.boolean(),
    name: fc.nat(NAMES.length - 1),
    email: fc.nat(EMAILS.length - 1),
  }),
  fc.record({
    kind: fc.constant('newUser' as const),
    bot: fc.boolean(),
    role: fc.constantFrom(...ROLES),
    name: fc.nat(NAMES.length - 1),
  }),
  fc.record({ kind: fc.constant('sub' as const), pick: fc.nat(), stream: fc.nat(), active: fc.boolean() }),
  fc.record({
    kind: fc.constant('topics' as const),
    pick: fc.nat(),
    rows: fc.array(fc.tuple(fc.nat(), fc.nat(TOPICS.length - 1)), { maxLength: 4 }),
  }),
  fc.record({ kind: fc.constant('rename' as const), pick: fc.nat(), name: fc.nat(NAMES.length - 1) }),
  fc.record({ kind: fc.constant('unsubscribe' as const), pick: fc.nat(), stream: fc.nat() }),
  fc.record({
    kind: fc.constant('deleteTopic' as const),
    stream: fc.nat(),
    topic: fc.nat(TOPICS.length - 1),
  }),
);

function apply(state: RealmState, s: Step): RealmState {
  const userIds = [...state.users.keys()];
  const streamIds = [...state.channels.keys()];
  const userId = (pick: number) => userIds[pick % userIds.length]!;
  const streamId = (pick: number) => streamIds[pick % streamIds.length]!;
  const admin = [...state.users.values()].find((u) => u.is_active && !u.is_bot && isRealmAdmin(u));
  switch (s.kind) {
    case 'user': {
      const u = state.users.get(userId(s.pick))!;
      return edit(state, (d) =>
        putUser(d, {
          ...u,
          role: s.role,
          is_active: s.active,
          is_full_member: s.full,
          full_name: NAMES[s.name]!,
          delivery_email: EMAILS[s.email]!,
        }),
      );
    }
    case 'newUser': {
      const model = state.users.get(userIds[0]!)!;
      const id = state.users.maxKey() + 1;
      return edit(state, (d) =>
        putUser(d, {
          ...model,
          user_id: id,
          email: `new${id}@zulip.com`,
          delivery_email: `new${id}@zulip.com`,
          api_key: `key${id}`,
          full_name: NAMES[s.name]!,
          role: s.role,
          is_bot: s.bot,
          is_active: true,
        }),
      );
    }
    case 'sub': {
      const stream = streamId(s.stream);
      const user = userId(s.pick);
      const model = [...state.subscriptions.values()].flatMap((m) => [...m.values()])[0]!;
      const current = state.subscriptions.get(stream)?.get(user);
      const sub: Subscription = { ...(current ?? model), user_id: user, stream_id: stream, active: s.active };
      return edit(state, (d) => putSubscription(d, sub));
    }
    case 'topics': {
      const user = userId(s.pick);
      const rows: UserTopic[] = s.rows.map(([stream, topic]) => ({
        user_id: user,
        stream_id: streamId(stream),
        topic_name: TOPICS[topic]!,
        visibility_policy: 1,
        last_updated: 1735694600,
      }));
      return edit(state, (d) => putUserTopics(d, user, rows));
    }
    case 'rename':
      return updateSettings(state, { userId: userId(s.pick) }, { full_name: NAMES[s.name]! }, testCtx())
        .state;
    case 'unsubscribe': {
      const name = state.channels.get(streamId(s.stream))!.name;
      return unsubscribe(state, { userId: userId(s.pick) }, { subscriptions: [name] }, testCtx()).state;
    }
    case 'deleteTopic':
      if (admin === undefined) return state;
      return deleteTopic(
        state,
        { userId: admin.user_id },
        { stream_id: streamId(s.stream), topic_name: TOPICS[s.topic]! },
        testCtx(),
      ).state;
    default: {
      const never: never = s;
      return never;
    }
  }
}

describe('derived indexes', () => {
  for (const [name, base] of BASES) {
    it(`are carried forward through random edits and equal a rebuild (${name})`, () => {
      fc.assert(
        fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) => {
          let state = base;
          warm(state);
          for (const s of steps) {
            const next = apply(state, s);
            expectIndexesSound(state, next);
            state = next;
          }
          expectSameAnswersAsScans(state);
        }),
        { numRuns: name === 'dev realm' ? 60 : 15 },
      );
    });

    it(`answer as the scans they replaced on the untouched state (${name})`, () => {
      expectSameAnswersAsScans(base);
      expect(plain(CONVERSATION_INDEXES.partners.get(base.messages.conversations))).toEqual(
        plain(CONVERSATION_INDEXES.partners.rebuild(base.messages.conversations)),
      );
    });
  }

  it('rebuild a state assembled without the mutators (a cache miss), and never carry an unindexed one', () => {
    const state = devRealm();
    const copy = edit(state, (d) => {
      d.users = IntMap.from([...state.users.entries()]);
    });
    expect(USER_INDEXES.ranks.peek(copy.users)).toBeUndefined();
    expect(plain(USER_INDEXES.ranks.get(copy.users))).toEqual(plain(USER_INDEXES.ranks.rebuild(state.users)));
    const fresh = IntMap.from([...state.users.entries()]);
    const next = edit({ ...state, users: fresh }, (d) =>
      putUser(d, { ...state.users.get(4)!, full_name: 'X' }),
    );
    expect(USER_INDEXES.byFoldedName.peek(next.users)).toBeUndefined();
  });

  it('derived() builds once per source and carries only from an indexed source', () => {
    let builds = 0;
    const d = derived<{ n: number }, number, number>(
      (s) => (builds++, s.n),
      (v, c) => v + c,
    );
    const a = { n: 1 };
    const b = { n: 3 };
    expect(d.get(a)).toBe(1);
    expect(d.get(a)).toBe(1);
    expect(builds).toBe(1);
    d.carry(a, b, 2);
    expect(d.peek(b)).toBe(3);
    const c = { n: 5 };
    d.carry({ n: 0 }, c, 5);
    expect(d.peek(c)).toBeUndefined();
  });
});

describe('to()', () => {
  it('sorts and dedupes, and copies an ascending input', () => {
    const event = { type: 'realm_export_consent', user_id: 1, consented: true } as const;
    const ascending = [1, 2, 5];
    const r = to(ascending, event);
    expect(r.users).toEqual([1, 2, 5]);
    expect(r.users).not.toBe(ascending);
    expect(to([5, 1, 5, 2], event).users).toEqual([1, 2, 5]);
    expect(to(new Set([3, 1]), event).users).toEqual([1, 3]);
    expect(to([1, 1, 2], event).users).toEqual([1, 2]);
    fc.assert(
      fc.property(fc.array(fc.nat(50)), (ids) => {
        expect(to(ids, event).users).toEqual([...new Set(ids)].sort((a, b) => a - b));
      }),
    );
  });
});

describe('isRecentlyActive', () => {
  it('reads the channel newest first and agrees with a scan, timestamps in any order', () => {
    const snap = devSnapshot();
    // Verona's newest message is old and an older one is recent: only a full read of the channel finds it.
    const verona = (snap['messages'] as Array<Record<string, unknown>>).filter((m) => m['stream_id'] === 1);
    for (const m of verona) m['timestamp'] = 1600000000;
    verona[0]!['timestamp'] = 1735695660;
    for (const state of [createRealm(snap, { random: seededRandom(1) }), BASES[1]![1]]) {
      const messages = [...allMessages(state.messages)];
      const times = [...new Set(messages.map((m) => m.timestamp + 180 * 86400))];
      for (const now of [...times, 0, 2e9])
        for (const c of state.channels.keys())
          expect(isRecentlyActive(state, c, now), `channel ${c} at ${now}`).toBe(
            messages.some((m) => m.stream_id === c && m.timestamp >= now - 180 * 86400),
          );
    }
  });
});
