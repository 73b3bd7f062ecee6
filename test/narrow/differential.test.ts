/**
 * Differential test of the narrow engine: random narrows over random small simulated realms,
 * against a reference written here the obvious way (every message, every term, arrays and
 * filters, no indexes, no cursors). They must agree on the selected ids, the counts, found_*, the
 * error (if any) and the flags afterwards.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allMessages, type MessageRecord } from '../../src/core/messages/store';
import { idListToArray } from '../../src/core/messages/idlist';
import { moveMessages } from '../../src/core/messages/store-edit';
import { getRowFlags } from '../../src/core/messages/rows';
import { FLAG_BITS } from '../../src/core/messages/flags';
import { isSubscribed } from '../../src/core/permissions/channels';
import { CHANNEL_SETTING_RULES, hasPermission } from '../../src/core/permissions/setting-rules';
import type { RealmState } from '../../src/core/state';
import type { User } from '../../src/core/model/records';
import { simulateRealm } from '../../src/simulate/simulate';
import { updateMessageFlagsForNarrow } from '../../src/ops/messages/updateMessageFlagsForNarrow';
import { buildNarrow, firstUnreadAnchor, selectWindow } from '../../src/narrow';
import { parseSearch, searchMatches } from '../../src/narrow/search';
import type { NarrowTerm } from '../../src/narrow/terms';

const NEWEST = 10 ** 16;
const realms = new Map<number, { state: RealmState; msgs: MessageRecord[]; topics: string[] }>();
function realm(seed: number) {
  let r = realms.get(seed);
  if (!r) {
    const simulated = simulateRealm({ preset: 'small', seed, users: 30, channels: 6, messages: 600 });
    const state = seed > 20 ? withMoves(simulated, seed) : simulated;
    const msgs = [...allMessages(state.messages)];
    const topics = [...new Set(msgs.filter((m) => m.stream_id !== null).map((m) => m.topic))];
    r = { state, msgs, topics };
    realms.set(seed, r);
  }
  return r;
}

/**
 * Seeds past 20 first move parts of topics within and between channels (issue 25): the engine's
 * topic and channel indexes and the moved chunks' columns (`moved-columns.ts`, folded when first
 * read) must answer as the reference reading every message.
 */
function withMoves(state: RealmState, seed: number): RealmState {
  let store = state.messages;
  for (let j = 0; j < 4; j++) {
    const channels = [...store.byChannel.keys()];
    const from = channels[(seed * 7 + j * 3) % channels.length]!;
    const to = channels[(seed + j) % channels.length]!;
    const ids = idListToArray(store.byChannel.get(from)!).filter((_, i) => (i + j + seed) % 3 === 0);
    store = moveMessages(store, from, ids, j % 2 === 0 ? 'moved here' : 'Moved Here', to);
  }
  return { ...state, messages: store };
}

// --- the reference ------------------------------------------------------------------------------
type Ref =
  | { error: string }
  | { ids: number[]; flags: Map<number, number | undefined>; foundOldest: boolean; foundNewest: boolean };

function refNarrow(
  state: RealmState,
  user: User,
  msgs: readonly MessageRecord[],
  terms: readonly NarrowTerm[],
  anchorIn: number | null,
  nb: number,
  na: number,
  inc: boolean,
): Ref {
  const me = user.user_id;
  const rows = state.messages.rows.get(me);
  const rowOf = (id: number) => (rows ? getRowFlags(rows, id) : undefined);
  const guest = user.role === 600;
  const chan = (operand: unknown) =>
    typeof operand === 'string'
      ? [...state.channels.values()].find((c) => c.name.toLowerCase() === operand.trim().toLowerCase())
      : state.channels.get(Number(operand));
  const userBy = (operand: unknown) =>
    typeof operand === 'string'
      ? [...state.users.values()].find((u) => u.email.toLowerCase() === operand.toLowerCase())
      : state.users.get(Number(operand));
  const subs = (sid: number) => state.subscriptions.get(sid)?.get(me);
  const mutedChannel = (sid: number) => subs(sid)?.active === true && subs(sid)?.is_muted === true;
  const policy = (sid: number, topic: string) =>
    (state.userTopics.get(me) ?? []).find(
      (t) => t.stream_id === sid && t.topic_name.toLowerCase() === topic.toLowerCase(),
    )?.visibility_policy ?? 0;
  const homeExcluded = (m: MessageRecord) =>
    m.stream_id !== null &&
    (policy(m.stream_id, m.topic) === 1 ||
      (mutedChannel(m.stream_id) &&
        policy(m.stream_id, m.topic) !== 2 &&
        policy(m.stream_id, m.topic) !== 3));

  // History mode.
  let history = false;
  for (const t of terms) {
    if (t.negated) continue;
    if (t.operator === 'channel' || t.operator === 'stream') {
      const c = chan(t.operand);
      history =
        c !== undefined &&
        (c.is_web_public ||
          (!c.invite_only && !guest) ||
          (c.history_public_to_subscribers &&
            (isSubscribed(state, c.stream_id, me) ||
              (!guest && (!c.invite_only || readableByGroup(c.stream_id))))));
    }
    if (
      (t.operator === 'channels' || t.operator === 'streams') &&
      (t.operand === 'public' || t.operand === 'web-public') &&
      !guest
    )
      history = true;
  }
  if (terms.some((t) => t.operator === 'is' && t.operand !== 'resolved')) history = false;
  function readableByGroup(sid: number) {
    const c = state.channels.get(sid)!;
    return (
      hasPermission(state, user, CHANNEL_SETTING_RULES.can_subscribe_group, c.can_subscribe_group) ||
      hasPermission(state, user, CHANNEL_SETTING_RULES.can_add_subscribers_group, c.can_add_subscribers_group)
    );
  }
  const rowReadable = (m: MessageRecord) => {
    if (m.stream_id === null) return true;
    if (isSubscribed(state, m.stream_id, me)) return true;
    if (guest) return false;
    return !state.channels.get(m.stream_id)!.invite_only || readableByGroup(m.stream_id);
  };

  // Terms → predicates, with the builder's errors.
  const preds: Array<(m: MessageRecord, f: number) => boolean> = [];
  let channelMark = false;
  let dmMark = false;
  const markBoth = (c: boolean, d: boolean) => {
    channelMark ||= c;
    dmMark ||= d;
    return channelMark && dmMark;
  };
  const both = { error: 'No message can be both a channel message and direct message' };
  const search: string[] = [];
  const topicTermIndex = terms.findIndex((t) => t.operator === 'topic');
  for (const [ti, t] of terms.entries()) {
    const neg = t.negated;
    const add = (p: (m: MessageRecord, f: number) => boolean) => preds.push(neg ? (m, f) => !p(m, f) : p);
    switch (t.operator) {
      case 'search':
        search.push(String(t.operand));
        break;
      case 'channel': {
        if (markBoth(!neg, false)) return both;
        const c = chan(t.operand);
        if (!c) return { error: `unknown channel ${String(t.operand)}` };
        add((m) => m.stream_id === c.stream_id);
        break;
      }
      case 'channels':
        if (markBoth(!neg, false)) return both;
        add((m) => {
          const c = m.stream_id === null ? undefined : state.channels.get(m.stream_id);
          return (
            c !== undefined &&
            (t.operand === 'web-public' ? c.is_web_public : !c.invite_only && c.history_public_to_subscribers)
          );
        });
        break;
      case 'topic': {
        if (markBoth(!neg, false)) return both;
        const want =
          ti === topicTermIndex && t.operand === 'general chat' ? '' : String(t.operand).toLowerCase();
        add((m) => m.stream_id !== null && m.topic.toLowerCase() === want);
        break;
      }
      case 'sender': {
        const u = userBy(t.operand);
        if (!u) return { error: `unknown user ${String(t.operand)}` };
        add((m) => m.sender_id === u.user_id);
        break;
      }
      case 'dm': {
        if (markBoth(false, !neg)) return both;
        const list = t.operand as number[];
        if (list.some((id) => !state.users.has(id))) return { error: `unknown user in [${list.join(', ')}]` };
        const set = [...new Set([...list, me])].sort((a, b) => a - b).join(',');
        add((m) => list.length > 0 && m.participants !== null && m.participants.join(',') === set);
        break;
      }
      case 'dm-including': {
        if (markBoth(false, !neg)) return both;
        const u = userBy(t.operand);
        if (!u) return { error: `unknown user ${String(t.operand)}` };
        add((m) => m.participants !== null && (u.user_id === me || m.participants.includes(u.user_id)));
        break;
      }
      case 'group-pm-with': {
        if (markBoth(false, !neg)) return both;
        const u = userBy(t.operand);
        if (!u) return { error: `unknown user ${String(t.operand)}` };
        add(
          (m) =>
            m.participants !== null &&
            m.participants.length >= 3 &&
            m.participants.includes(u.user_id) &&
            m.participants.includes(me),
        );
        break;
      }
      case 'is':
        switch (t.operand) {
          case 'dm':
            if (markBoth(neg, !neg)) return both;
            add((_, f) => (f & FLAG_BITS.is_private) !== 0);
            break;
          case 'unread':
            add((_, f) => (f & FLAG_BITS.read) === 0);
            break;
          case 'starred':
            add((_, f) => (f & FLAG_BITS.starred) !== 0);
            break;
          case 'mentioned':
            add(
              (_, f) =>
                (f &
                  (FLAG_BITS.mentioned |
                    FLAG_BITS.stream_wildcard_mentioned |
                    FLAG_BITS.topic_wildcard_mentioned)) !==
                0,
            );
            break;
          case 'resolved':
            add((m) => m.stream_id !== null && m.topic.startsWith('✔ '));
            break;
          case 'followed':
            add((m) => m.stream_id !== null && policy(m.stream_id, m.topic) === 3);
            break;
          case 'muted':
            add((m) => homeExcluded(m));
            break;
        }
        break;
      case 'in':
        if (t.operand === 'home') add((m) => !homeExcluded(m));
        break;
      case 'has': {
        const key = `has_${String(t.operand)}` as 'has_link';
        add((m) => (t.operand === 'reaction' ? m.reactions.length > 0 : m[key]));
        break;
      }
      case 'id':
        add((m) => m.id === Number(t.operand));
        break;
    }
  }
  if (search.length > 0) {
    const q = parseSearch(search.join(' '));
    preds.push((m) => searchMatches(q, m.content, m.topic));
  }
  const NO_ROW = FLAG_BITS.read | FLAG_BITS.historical;
  const matching = msgs.filter((m) => {
    const f = rowOf(m.id);
    if (!history && (f === undefined || !rowReadable(m))) return false;
    return preds.every((p) => p(m, f ?? NO_ROW));
  });

  let anchor = anchorIn;
  if (anchor === null) {
    const dmNarrow = dmMark;
    const channelTerm = terms.find((t) => t.operator === 'channel');
    const cid = channelTerm ? chan(channelTerm.operand)!.stream_id : null;
    const first = msgs.find((m) => {
      const f = rowOf(m.id);
      if (f === undefined || (f & FLAG_BITS.read) !== 0 || !rowReadable(m)) return false;
      if (!preds.every((p) => p(m, f))) return false;
      if (dmNarrow || m.stream_id === null) return true;
      if (cid !== null) return !(m.stream_id === cid && policy(cid, m.topic) === 1);
      return !homeExcluded(m);
    });
    anchor = first?.id ?? NEWEST;
  }
  const ids = matching.map((m) => m.id);
  let sel: number[];
  let foundOldest: boolean;
  let foundNewest: boolean;
  if (anchor === 0) {
    sel = ids.slice(0, na);
    foundOldest = true;
    foundNewest = sel.length < na;
  } else if (anchor >= NEWEST) {
    sel = nb === 0 ? [] : ids.slice(-nb);
    foundNewest = true;
    foundOldest = sel.length < nb;
  } else {
    const before = ids.filter((id) => id < anchor!);
    const after = ids.filter((id) => id > anchor!);
    const b = nb === 0 ? [] : before.slice(-nb);
    const a = after.slice(0, na);
    const at = ids.includes(anchor) && (inc || (nb === 0 && na === 0)) ? [anchor] : [];
    sel = [...b, ...at, ...a];
    foundOldest = b.length < nb;
    foundNewest = a.length < na;
  }
  return { ids: sel, flags: new Map(sel.map((id) => [id, rowOf(id)])), foundOldest, foundNewest };
}

// --- random narrows -----------------------------------------------------------------------------
function termArb(r: ReturnType<typeof realm>): fc.Arbitrary<NarrowTerm> {
  const { state, topics } = r;
  const channels = [...state.channels.values()];
  const userIds = [...state.users.keys()];
  const operand: Record<string, fc.Arbitrary<NarrowTerm['operand']>> = {
    channel: fc.oneof(
      fc.constantFrom(...channels.map((c) => c.stream_id)),
      fc.constantFrom(...channels.map((c) => c.name)).map((n) => n.toUpperCase()),
      fc.constant('no such channel'),
    ),
    channels: fc.constantFrom('public', 'web-public'),
    topic: fc.oneof(
      fc.constantFrom(...topics),
      fc.constantFrom(...topics).map((t) => t.toUpperCase()),
      fc.constant('general chat'),
    ),
    sender: fc.oneof(
      fc.constantFrom(...userIds),
      fc.constantFrom(...userIds).map((u) => state.users.get(u)!.email),
    ),
    dm: fc.uniqueArray(fc.constantFrom(...userIds), { maxLength: 3 }),
    'dm-including': fc.constantFrom(...userIds),
    'group-pm-with': fc.constantFrom(...userIds),
    is: fc.constantFrom('dm', 'unread', 'starred', 'mentioned', 'resolved', 'followed', 'muted'),
    in: fc.constantFrom('home', 'all'),
    has: fc.constantFrom('link', 'image', 'attachment', 'reaction'),
    id: fc.integer({ min: 1, max: 620 }),
    search: fc.constantFrom('lunch', 'deploy review', '"server database"', 'https', 'the'),
  };
  return fc
    .constantFrom(...Object.keys(operand))
    .chain((operator) =>
      fc.record({ operator: fc.constant(operator), operand: operand[operator]!, negated: fc.boolean() }),
    )
    .map((t) => t as NarrowTerm);
}

const scenario = fc.integer({ min: 1, max: 40 }).chain((seed) => {
  const r = realm(seed);
  const humans = [...r.state.users.values()].filter((u) => u.is_active).map((u) => u.user_id);
  return fc.record({
    seed: fc.constant(seed),
    userId: fc.constantFrom(...humans),
    terms: fc.array(termArb(r), { maxLength: 3 }),
    anchor: fc.oneof(
      fc.constantFrom<string | number>('oldest', 'newest', 'first_unread'),
      fc.integer({ min: -5, max: 640 }),
    ),
    numBefore: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.constant(0)),
    numAfter: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.constant(0)),
    includeAnchor: fc.boolean(),
    flag: fc.constantFrom('read', 'starred', 'collapsed'),
    op: fc.constantFrom('add', 'remove'),
  });
});

describe('narrow engine (differential)', () => {
  it('agrees with the reference on ids, counts, found_*, errors and flags', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const { state, msgs } = realm(s.seed);
        const user = state.users.get(s.userId)!;
        const anchorText = String(s.anchor);
        const anchorValue =
          s.anchor === 'oldest'
            ? 0
            : s.anchor === 'newest'
              ? NEWEST
              : s.anchor === 'first_unread'
                ? null
                : Math.max(0, Number(s.anchor));
        const inc = s.includeAnchor;
        const r = updateMessageFlagsForNarrow(
          state,
          { userId: s.userId },
          {
            anchor: anchorText,
            flag: s.flag,
            op: s.op,
            narrow: s.terms,
            num_before: s.numBefore,
            num_after: s.numAfter,
            include_anchor: inc,
          },
        );
        if (s.numBefore > 0 && s.numAfter > 0 && !inc) {
          expect(r.status).toBe(400);
          return;
        }
        const ref = refNarrow(state, user, msgs, s.terms, anchorValue, s.numBefore, s.numAfter, inc);
        if ('error' in ref) {
          expect(r.body).toMatchObject({ result: 'error', code: 'BAD_NARROW', desc: ref.error });
          expect(r.state).toBe(state);
          return;
        }
        // The engine directly: same selection.
        const built = buildNarrow(
          state,
          user,
          s.terms.map((t, i) =>
            i === s.terms.findIndex((x) => x.operator === 'topic') && t.operand === 'general chat'
              ? { ...t, operand: '' }
              : t,
          ),
        );
        if (!built.ok) throw new Error('engine refused what the reference accepted');
        const sel = selectWindow(
          built.plan,
          anchorValue ?? firstUnreadAnchor(built.plan),
          s.numBefore,
          s.numAfter,
          inc,
        );
        expect(Array.from(sel.ids)).toEqual(ref.ids);
        expect(r.body).toMatchObject({
          result: 'success',
          processed_count: ref.ids.length,
          first_processed_id: ref.ids[0] ?? null,
          last_processed_id: ref.ids[ref.ids.length - 1] ?? null,
          found_oldest: ref.foundOldest,
          found_newest: ref.foundNewest,
        });
        // Flags afterwards, computed the obvious way.
        const bit =
          s.flag === 'read' ? FLAG_BITS.read : s.flag === 'starred' ? FLAG_BITS.starred : FLAG_BITS.collapsed;
        const add = s.op === 'add';
        const after = r.state.messages.rows.get(s.userId);
        let updated = 0;
        const updatedIds: number[] = [];
        const ignored = new Set<number>();
        for (const id of ref.ids) {
          const m = msgs.find((x) => x.id === id)!;
          const before = ref.flags.get(id);
          let expected = before;
          if (
            s.flag === 'read' &&
            !add &&
            m.stream_id !== null &&
            !isSubscribed(state, m.stream_id, s.userId)
          )
            ignored.add(m.stream_id);
          else {
            const current = before ?? FLAG_BITS.read | FLAG_BITS.historical;
            if (((current & bit) !== 0) !== add) {
              updated++;
              updatedIds.push(id);
              const next = add ? current | bit : current & ~bit;
              expected =
                before === undefined && next === (FLAG_BITS.read | FLAG_BITS.historical) ? undefined : next;
            }
          }
          expect(after ? getRowFlags(after, id) : undefined).toBe(expected);
        }
        expect(r.body).toMatchObject({
          updated_count: updated,
          ignored_because_not_subscribed_channels: [...ignored].sort((a, b) => a - b),
        });
        // The event lists exactly the changed ids, ascending (they are collected during the scan).
        const event = r.events[0]?.event as { messages?: number[] } | undefined;
        expect(event?.messages ?? []).toEqual(updatedIds);
        // Copy-on-write: the state before still has its flags.
        const beforeRows = state.messages.rows.get(s.userId);
        for (const id of ref.ids)
          expect(beforeRows ? getRowFlags(beforeRows, id) : undefined).toBe(ref.flags.get(id));
        // Nobody else's rows changed.
        for (const [uid, rows] of state.messages.rows)
          if (uid !== s.userId) expect(r.state.messages.rows.get(uid)).toBe(rows);
      }),
      { numRuns: 2500 },
    );
  }, 60_000);
});
