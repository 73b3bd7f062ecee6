/**
 * The message store's mutators against references computed from scratch, on random stores (channel
 * and direct messages, case variants of topics, gaps in the ids, reactions, historical rows of
 * non-recipients and rows for messages missing from the store), small and spanning several chunks:
 * - `deleteMessages` equals a rebuild of the remaining messages and rows, every index included,
 *   and leaves the old store as it was;
 * - `usersWithRows` (answered from the row-holders index) equals a scan of every user's rows, on a
 *   freshly built index and on one carried through random deletions, flag changes that create
 *   historical rows, and mark-as-read;
 * - `unreadInChannel` / `markChannelsRead` equal the scan of the channel's ids;
 * - `removeIds` equals a filter.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { markChannelsRead, type Removal } from '../../src/core/channels/unsubscribe-events';
import { FLAG_BITS } from '../../src/core/messages/flags';
import { buildIdList, ID_CHUNK, idListToArray, removeIds } from '../../src/core/messages/idlist';
import { nameOf } from '../../src/core/messages/interner';
import { channelMessageIds, unreadInChannel, usersWithRows } from '../../src/core/messages/query';
import { buildRowHolders, rowHolders } from '../../src/core/messages/row-holders';
import { EMPTY_ROWS, getRowFlags, toArrays, updateRowFlags } from '../../src/core/messages/rows';
import {
  allMessages,
  buildMessageStore,
  deleteMessages,
  getMessage,
  MESSAGE_CHUNK,
  usersWithRow,
  type MessageInput,
  type MessageStore,
} from '../../src/core/messages/store';
import { commitRows, createdRowFlags, createsRows } from '../../src/core/messages/update-flags';
import { appendMessage, nextMessageId } from '../../src/core/messages/store-append';
import { CONVERSATION_INDEXES } from '../../src/core/indexes/conversation-indexes';
import type { Channel, Reaction, User } from '../../src/core/model/records';

// ---------------------------------------------------------------------------------------------
// random stores

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface StoreSpec {
  readonly seed: number;
  readonly messages: number;
  readonly users: number;
  readonly channels: number;
}

const TOPICS = ['lunch', 'Lunch', 'LUNCH', 'plans', 'ünïcode', 'Ünïcode', '', 'a b'];

type RowMap = Map<number, { ids: number[]; flags: number[] }>;

/** Messages (ascending ids with gaps) and each user's rows, as plain inputs for `buildMessageStore`. */
function randomInputs(spec: StoreSpec): { messages: MessageInput[]; rows: RowMap } {
  const rnd = prng(spec.seed);
  const int = (n: number) => Math.floor(rnd() * n);
  const users = Array.from({ length: spec.users }, (_, i) => i + 1);
  const subscribers = Array.from({ length: spec.channels + 1 }, () => users.filter(() => rnd() < 0.5));
  const rowSets = new Map<number, Map<number, number>>();
  const addRow = (u: number, id: number, flags: number) => {
    let m = rowSets.get(u);
    if (!m) rowSets.set(u, (m = new Map()));
    m.set(id, flags);
  };
  const messages: MessageInput[] = [];
  let id = 1 + int(40);
  for (let k = 0; k < spec.messages; k++) {
    id += rnd() < 0.85 ? 1 : 2 + int(30);
    const sender = 1 + int(spec.users);
    const reactions: Reaction[] =
      rnd() < 0.1
        ? [{ user_id: sender, emoji_name: 'smile', emoji_code: '1f604', reaction_type: 'unicode_emoji' }]
        : [];
    const common = {
      id,
      sender_id: sender,
      content: `m${id}`,
      timestamp: 1_700_000_000 + id,
      has_link: rnd() < 0.2,
      has_attachment: rnd() < 0.1,
      has_image: rnd() < 0.1,
      reactions,
    };
    const flags = () => int(0x200);
    if (rnd() < 0.7) {
      const streamId = 1 + int(spec.channels);
      messages.push({ ...common, stream_id: streamId, topic: TOPICS[int(TOPICS.length)]! });
      for (const u of subscribers[streamId]!) if (rnd() < 0.9) addRow(u, id, flags());
      // Historical rows: non-subscribers who starred or read the message later.
      for (const u of users) if (rnd() < 0.03) addRow(u, id, flags() | FLAG_BITS.historical);
    } else {
      const to = users.filter(() => rnd() < 0.15);
      messages.push({ ...common, to });
      for (const u of new Set([sender, ...to]))
        if (rnd() < 0.95) addRow(u, id, flags() | FLAG_BITS.is_private);
      for (const u of users) if (rnd() < 0.01) addRow(u, id, flags());
    }
  }
  // Rows for messages the store does not have (ids in the gaps and past the end).
  for (const u of users) if (rnd() < 0.2) addRow(u, id + 1 + int(50), flags0(rnd));
  for (const u of users) if (rnd() < 0.1) addRow(u, 1 + int(Math.max(1, id)), flags0(rnd));
  const rows: RowMap = new Map();
  for (const [u, m] of rowSets) {
    const ids = [...m.keys()].sort((a, b) => a - b);
    rows.set(u, { ids, flags: ids.map((x) => m.get(x)!) });
  }
  return { messages, rows };
}

const flags0 = (rnd: () => number) => Math.floor(rnd() * 0x100);

const randomStore = (spec: StoreSpec) => {
  const { messages, rows } = randomInputs(spec);
  return buildMessageStore(messages, rows);
};

const smallSpec = fc.record({
  seed: fc.integer(),
  messages: fc.integer({ min: 0, max: 120 }),
  users: fc.integer({ min: 1, max: 12 }),
  channels: fc.integer({ min: 1, max: 4 }),
});

/** Stores over several message chunks (and several row chunks for the busiest users). */
const largeSpec = fc.record({
  seed: fc.integer(),
  messages: fc.integer({ min: MESSAGE_CHUNK - 50, max: 3 * MESSAGE_CHUNK }),
  users: fc.integer({ min: 1, max: 8 }),
  channels: fc.integer({ min: 1, max: 3 }),
});

// ---------------------------------------------------------------------------------------------
// references

/** Everything a store says, in a form independent of chunk boundaries and interned ids. */
function contents(store: MessageStore) {
  const idsOf = (list: { chunks: readonly Int32Array[]; count: number }) => {
    const ids = idListToArray(list);
    expect(ids.length).toBe(list.count);
    expect(list.chunks.every((c) => c.length > 0)).toBe(true);
    return ids;
  };
  // Chunks: non-empty, ids ascending across them, the folded-topic column pointing at the
  // lower-cased topic. (Plain checks, one assertion: `expect` per message is slow.)
  const problems: string[] = [];
  let last = -Infinity;
  for (const c of store.chunks) {
    if (c.ids.length === 0) problems.push('empty chunk');
    for (let i = 0; i < c.ids.length; i++) {
      if (c.ids[i]! <= last) problems.push(`id ${c.ids[i]} out of order`);
      last = c.ids[i]!;
      if (
        c.recipient[i]! > 0 &&
        nameOf(store.foldedTopics, c.topicKey[i]!) !== nameOf(store.topics, c.topic[i]!).toLowerCase()
      )
        problems.push(`topic key of ${c.ids[i]}`);
    }
  }
  expect(problems).toEqual([]);
  const messages = [...allMessages(store)];
  expect(store.count).toBe(messages.length);
  return {
    messages,
    rows: [...store.rows]
      .filter(([, r]) => r.count > 0)
      .map(([u, r]) => {
        const a = toArrays(r);
        expect(r.count).toBe(a.ids.length);
        return [u, [...a.ids], [...a.flags]];
      }),
    reactions: [...store.reactions],
    byChannel: [...store.byChannel].map(([s, l]) => [s, idsOf(l)]),
    byTopic: [...store.byTopic].map(([s, m]) => [
      s,
      [...m]
        .map(([k, l]) => [nameOf(store.foldedTopics, k), idsOf(l)] as const)
        .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)),
    ]),
    byConversation: [...store.byConversation]
      .map(([c, l]) => [nameOf(store.conversations, c), idsOf(l)] as const)
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)),
    bySender: [...store.bySender].map(([s, l]) => [s, idsOf(l)]),
  };
}

/** The store rebuilt from scratch from `store`'s messages and rows. */
function rebuilt(store: MessageStore): MessageStore {
  const messages: MessageInput[] = [...allMessages(store)].map((m) => ({
    id: m.id,
    sender_id: m.sender_id,
    ...(m.stream_id !== null ? { stream_id: m.stream_id, topic: m.topic } : { to: m.participants! }),
    content: m.content,
    timestamp: m.timestamp,
    has_link: m.has_link,
    has_attachment: m.has_attachment,
    has_image: m.has_image,
    reactions: m.reactions,
  }));
  const rows = new Map<number, { ids: Int32Array; flags: Uint16Array }>();
  for (const [u, r] of store.rows) if (r.count > 0) rows.set(u, toArrays(r));
  return buildMessageStore(messages, rows);
}

/** The scan `usersWithRows` replaced. */
function scanHolders(store: MessageStore, ids: readonly number[]): number[] {
  return [...store.rows]
    .filter(([, r]) => ids.some((id) => getRowFlags(r, id) !== undefined))
    .map(([u]) => u);
}

/** Message ids to ask about: stored ones, ones only in rows, and ones nowhere. */
function probeIds(store: MessageStore, pick: number): number[] {
  const stored = [...allMessages(store)].map((m) => m.id);
  const inRows = [...store.rows.values()].flatMap((r) => [...toArrays(r).ids]);
  const pool = [...stored, ...inRows, 0, 1, 999_999];
  const rnd = prng(pick);
  return Array.from({ length: 1 + Math.floor(rnd() * 6) }, () => pool[Math.floor(rnd() * pool.length)]!);
}

/** Ids to delete: a random subset, a contiguous run (possibly a whole chunk), and ids not stored. */
function deletionSet(store: MessageStore, seed: number): Set<number> {
  const rnd = prng(seed);
  const stored = [...allMessages(store)].map((m) => m.id);
  const out = new Set<number>();
  const p = rnd() * 0.2;
  for (const id of stored) if (rnd() < p) out.add(id);
  if (stored.length > 0 && rnd() < 0.5) {
    const from = Math.floor(rnd() * stored.length);
    const len = Math.floor(rnd() * (rnd() < 0.3 ? MESSAGE_CHUNK + 100 : 50));
    for (const id of stored.slice(from, from + len)) out.add(id);
  }
  if (rnd() < 0.5) out.add(999_999);
  if (rnd() < 0.3) out.add(0);
  return out;
}

// ---------------------------------------------------------------------------------------------

describe('deleteMessages', () => {
  const check = (spec: StoreSpec, del: number) => {
    const store = randomStore(spec);
    const before = contents(store);
    // Half the runs with a holders index already built (carried), half building it inside.
    if (del % 2 === 0) rowHolders(store);
    const ids = deletionSet(store, del);
    const next = deleteMessages(store, ids);
    const expected = rebuilt(store);
    // The reference: the old store's messages and rows without the deleted ones, rebuilt.
    const keptMessages = before.messages.filter((m) => !ids.has(m.id));
    const keptRows = before.rows
      .map(([u, rowIds, flags]) => {
        const keep = (rowIds as number[])
          .map((id, i) => [id, (flags as number[])[i]!] as const)
          .filter(([id]) => !ids.has(id));
        return [u, keep.map(([id]) => id), keep.map(([, f]) => f)] as const;
      })
      .filter(([, rowIds]) => rowIds.length > 0);
    const reference = buildMessageStore(
      keptMessages.map((m) => ({
        id: m.id,
        sender_id: m.sender_id,
        ...(m.stream_id !== null ? { stream_id: m.stream_id, topic: m.topic } : { to: m.participants! }),
        content: m.content,
        timestamp: m.timestamp,
        has_link: m.has_link,
        has_attachment: m.has_attachment,
        has_image: m.has_image,
        reactions: m.reactions,
      })),
      new Map(keptRows.map(([u, rowIds, flags]) => [u as number, { ids: rowIds, flags }])),
    );
    expect(contents(next)).toEqual(contents(reference));
    // The old store is untouched.
    expect(contents(store)).toEqual(before);
    expect(contents(expected)).toEqual(before);
    for (let k = 0; k < 5; k++) {
      const probe = probeIds(next, del + k);
      expect(usersWithRows(next, probe)).toEqual(scanHolders(next, probe));
    }
  };

  it('equals a rebuild of the remaining messages and rows (small stores)', () => {
    fc.assert(fc.property(smallSpec, fc.integer(), check), { numRuns: 150 });
  });

  it('equals a rebuild of the remaining messages and rows (stores over several chunks)', () => {
    fc.assert(fc.property(largeSpec, fc.integer(), check), { numRuns: 12 });
  });

  it('shares the chunks and rows it does not touch', () => {
    const store = randomStore({ seed: 5, messages: 3 * MESSAGE_CHUNK, users: 6, channels: 3 });
    const victim = [...allMessages(store)][MESSAGE_CHUNK + 7]!;
    const next = deleteMessages(store, new Set([victim.id]));
    expect(next.chunks.length).toBe(store.chunks.length);
    expect(next.chunks.filter((c, i) => c !== store.chunks[i])).toHaveLength(1);
    for (const [u, r] of store.rows) {
      if (getRowFlags(r, victim.id) === undefined) expect(next.rows.get(u)).toBe(r);
      else expect(getRowFlags(next.rows.get(u)!, victim.id)).toBeUndefined();
    }
    expect(deleteMessages(store, new Set())).toBe(store);
  });
});

describe('usersWithRows', () => {
  it('equals the scan of every user on freshly built stores', () => {
    fc.assert(
      fc.property(smallSpec, fc.integer(), (spec, pick) => {
        const store = randomStore(spec);
        for (let k = 0; k < 8; k++) {
          const ids = probeIds(store, pick + k);
          expect(usersWithRows(store, ids)).toEqual(scanHolders(store, ids));
          expect(usersWithRow(store, ids[0]!, (r, id) => getRowFlags(r, id) !== undefined)).toEqual(
            scanHolders(store, [ids[0]!]),
          );
        }
      }),
      { numRuns: 150 },
    );
  });

  /** One step on a store: delete, star (creating historical rows), mark a channel read. */
  const step = fc.oneof(
    fc.record({ kind: fc.constant('delete' as const), seed: fc.integer() }),
    fc.record({
      kind: fc.constant('star' as const),
      user: fc.integer({ min: 1, max: 14 }),
      seed: fc.integer(),
      add: fc.boolean(),
    }),
    fc.record({
      kind: fc.constant('read' as const),
      user: fc.integer({ min: 1, max: 14 }),
      channel: fc.integer({ min: 1, max: 4 }),
    }),
  );

  it('stays equal to the scan while the index is carried through deletions, new rows and reads', () => {
    fc.assert(
      fc.property(smallSpec, fc.array(step, { maxLength: 12 }), fc.integer(), (spec, steps, pick) => {
        let store = randomStore(spec);
        usersWithRows(store, [1]); // build the index now, so every step below carries it
        const history: MessageStore[] = [store];
        for (const s of steps) {
          if (s.kind === 'delete') store = deleteMessages(store, deletionSet(store, s.seed));
          else if (s.kind === 'star') {
            const ids = [...new Set(probeIds(store, s.seed))].sort((a, b) => a - b);
            const rows = store.rows.get(s.user);
            const flags = ids.map((id) => (rows && getRowFlags(rows, id)) ?? -1);
            const bit = s.add ? FLAG_BITS.starred : FLAG_BITS.read;
            const current = store;
            const isPrivate = (id: number) => getMessage(current, id)?.stream_id === null;
            // Existing rows flipped, missing ones created (historical rows), as the flags endpoint does.
            const before = rows ?? EMPTY_ROWS;
            const existing = ids.filter((_, k) => flags[k]! >= 0);
            const flipped = updateRowFlags(before, existing, s.add ? bit : 0, s.add ? 0 : bit);
            const created = createsRows(bit, s.add) ? ids.filter((_, k) => flags[k]! < 0) : [];
            const createdFlags = created.map((id) => createdRowFlags(bit, s.add, isPrivate(id)));
            store = commitRows(current, s.user, before, flipped, created, createdFlags);
          } else {
            const removal = {
              user: { user_id: s.user },
              channel: { stream_id: s.channel },
            } as unknown as Removal;
            store = markChannelsRead(store, [removal]).store;
          }
          history.push(store);
          for (let k = 0; k < 3; k++) {
            const ids = probeIds(store, pick + k);
            expect(usersWithRows(store, ids)).toEqual(scanHolders(store, ids));
          }
        }
        // Every state along the way still answers right (they share one, only growing, index) ...
        for (const old of history) {
          const ids = probeIds(old, pick);
          expect(usersWithRows(old, ids)).toEqual(scanHolders(old, ids));
        }
        // ... which holds every real holder of every recipient.
        const fresh = buildRowHolders(store);
        const carried = rowHolders(store);
        for (const [r, users] of fresh.byRecipient)
          for (const u of users) expect(carried.byRecipient.get(r)?.has(u)).toBe(true);
        // And the store itself equals one rebuilt from scratch.
        expect(contents(store)).toEqual(contents(rebuilt(store)));
      }),
      { numRuns: 100 },
    );
  });
});

describe('unreadInChannel / markChannelsRead', () => {
  const naiveUnread = (store: MessageStore, userId: number, streamId: number) => {
    const rows = store.rows.get(userId);
    if (rows === undefined) return [];
    return channelMessageIds(store, streamId).filter((id) => {
      const f = getRowFlags(rows, id);
      return f !== undefined && (f & FLAG_BITS.read) === 0;
    });
  };

  it('equal the scan of the channel', () => {
    fc.assert(
      fc.property(fc.oneof(smallSpec, largeSpec), (spec) => {
        const store = randomStore(spec);
        for (let u = 0; u <= spec.users + 1; u++)
          for (let c = 0; c <= spec.channels + 1; c++)
            expect(unreadInChannel(store, u, c)).toEqual(naiveUnread(store, u, c));
        const removals = [1, 2].flatMap((u) =>
          [1, 2].map((c) => ({ user: { user_id: u } as User, channel: { stream_id: c } as Channel })),
        );
        const r = markChannelsRead(store, removals);
        let expectedRows = store.rows;
        const messages: number[][] = [];
        for (const { user, channel } of removals) {
          const unread = naiveUnread(store, user.user_id, channel.stream_id);
          if (unread.length === 0) continue;
          messages.push(unread);
          expectedRows = expectedRows.set(
            user.user_id,
            updateRowFlags(expectedRows.get(user.user_id)!, unread, FLAG_BITS.read, 0),
          );
        }
        expect(r.events.map((e) => (e.event as { messages?: unknown }).messages)).toEqual(messages);
        expect(contents(r.store)).toEqual(contents(store.with({ rows: expectedRows })));
        for (const { user, channel } of removals)
          expect(unreadInChannel(r.store, user.user_id, channel.stream_id)).toEqual([]);
      }),
      { numRuns: 40 },
    );
  });
});

describe('removeIds', () => {
  it('equals a filter and shares untouched chunks', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 4 * ID_CHUNK }), { maxLength: 3 * ID_CHUNK }),
        fc.array(fc.integer({ min: 0, max: 4 * ID_CHUNK + 5 }), { maxLength: 300 }),
        (raw, gone) => {
          const ids = raw.sort((a, b) => a - b);
          const list = buildIdList(ids);
          const drop = new Set(gone);
          const next = removeIds(list, drop);
          expect(idListToArray(next)).toEqual(ids.filter((id) => !drop.has(id)));
          expect(next.count).toBe(idListToArray(next).length);
          expect(next.chunks.every((c) => c.length > 0)).toBe(true);
          if (!ids.some((id) => drop.has(id))) expect(next).toBe(list);
          for (const c of next.chunks)
            if (list.chunks.includes(c)) expect(c.some((id) => drop.has(id))).toBe(false);
          expect(idListToArray(list)).toEqual(ids);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('appendMessage', () => {
  /** Appends `n` random messages (channel or direct, rows for random users) onto `store`, one at a time. */
  function appendRandom(store: MessageStore, n: number, seed: number, users: number): MessageStore[] {
    const rnd = prng(seed);
    const int = (k: number) => Math.floor(rnd() * k);
    const states = [store];
    let s = store;
    for (let k = 0; k < n; k++) {
      const id = nextMessageId(s) + (rnd() < 0.2 ? int(5) : 0);
      const sender = 1 + int(users);
      const direct = rnd() < 0.3;
      const participants = direct
        ? [...new Set([sender, 1 + int(users), 1 + int(users)])].sort((a, b) => a - b)
        : [];
      const recipients = direct
        ? participants
        : Array.from({ length: users }, (_, i) => i + 1).filter(() => rnd() < 0.6);
      s = appendMessage(
        s,
        {
          id,
          sender,
          timestamp: 1_700_000_000 + k,
          bits: int(8) & 7,
          content: `appended ${k}`,
          streamId: direct ? null : 1 + int(3),
          topic: TOPICS[int(TOPICS.length)]!,
          participants,
        },
        recipients.map((u) => [u, (flags0(rnd) & 0xff) | (direct ? FLAG_BITS.is_private : 0)] as const),
      );
      states.push(s);
    }
    return states;
  }

  it('equals a rebuild after every append, keeps every older store as it was, and carries the holder index', () => {
    fc.assert(
      fc.property(smallSpec, fc.integer(), fc.integer({ min: 1, max: 60 }), (spec, seed, n) => {
        const store = randomStore(spec);
        const snapshots = [contents(store)];
        if (seed % 2 === 0) rowHolders(store);
        const states = appendRandom(store, n, seed, spec.users);
        for (const s of states.slice(1)) snapshots.push(contents(s));
        // Every store still says what it said when it was made (appends never show through).
        states.forEach((s, k) => expect(contents(s)).toEqual(snapshots[k]));
        const last = states[states.length - 1]!;
        expect(contents(last)).toEqual(contents(rebuilt(last)));
        const probe = probeIds(last, seed);
        expect(usersWithRows(last, probe)).toEqual(scanHolders(last, probe).sort((a, b) => a - b));
      }),
      { numRuns: 40 },
    );
  });

  it('carries the direct-message partners index through new conversations', () => {
    const base = randomStore({ seed: 3, messages: 50, users: 6, channels: 2 });
    const plain = (m: ReturnType<typeof CONVERSATION_INDEXES.partners.get>) =>
      [...m].map(([u, set]) => [u, [...set].sort((a, b) => a - b)]);
    CONVERSATION_INDEXES.partners.get(base.conversations);
    const states = appendRandom(base, 40, 11, 9);
    const last = states[states.length - 1]!;
    expect(CONVERSATION_INDEXES.partners.peek(last.conversations)).toBeDefined();
    expect(plain(CONVERSATION_INDEXES.partners.get(last.conversations))).toEqual(
      plain(CONVERSATION_INDEXES.partners.rebuild(last.conversations)),
    );
  });

  it('an appended chunk reads as a plain chunk of the same columns, each state its own prefix, however late its views are made', () => {
    const base = randomStore({ seed: 5, messages: 20, users: 4, channels: 2 });
    const states = appendRandom(base, 12, 3, 4);
    // Read only now, after every later append (and a fork onto the middle state).
    appendRandom(states[6]!, 5, 9, 4);
    states.forEach((s, k) => {
      const last = s.chunks[s.chunks.length - 1]!;
      const plain = {
        ids: last.ids.slice(),
        recipient: last.recipient.slice(),
        topic: last.topic.slice(),
        topicKey: last.topicKey.slice(),
        sender: last.sender.slice(),
        timestamp: last.timestamp.slice(),
        bits: last.bits.slice(),
        content: last.content.slice(0, last.ids.length),
      };
      expect(last.ids.length).toBe(20 + k);
      // Deep equality compares an appended chunk by its columns (test/support/chunk-equality.ts).
      if (k > 0) {
        expect(last).toEqual(plain);
        expect(last).not.toEqual({ ...plain, sender: plain.sender.map((x) => x + 1) });
        expect(last).not.toEqual(states[k - 1]!.chunks[states[k - 1]!.chunks.length - 1]);
      }
    });
  });

  it('a fork (two appends onto one store) keeps both branches apart, across chunk boundaries', () => {
    const base = randomStore({ seed: 7, messages: MESSAGE_CHUNK - 3, users: 4, channels: 2 });
    const [, ...left] = appendRandom(base, 10, 1, 4);
    const [, ...right] = appendRandom(base, 10, 2, 4);
    const l = left[left.length - 1]!;
    const r = right[right.length - 1]!;
    expect(contents(l)).toEqual(contents(rebuilt(l)));
    expect(contents(r)).toEqual(contents(rebuilt(r)));
    expect([...allMessages(l)].slice(-10).map((m) => m.content)).toEqual(
      Array.from({ length: 10 }, (_, k) => `appended ${k}`),
    );
  });
});

describe('MessageStore chunk list', () => {
  const append = (s: MessageStore, k: number): MessageStore =>
    appendMessage(
      s,
      {
        id: nextMessageId(s),
        sender: 1,
        timestamp: 1_700_000_000 + k,
        bits: 0,
        content: `m ${k}`,
        streamId: 1,
        topic: 'a',
        participants: [],
      },
      [[1, 0]],
    );

  it('appends put the list together only when read, and each store keeps its own list', () => {
    const base = randomStore({ seed: 4, messages: MESSAGE_CHUNK - 2, users: 3, channels: 2 });
    const states = [base];
    for (let k = 0; k < 5; k++) states.push(append(states[states.length - 1]!, k));
    // Across the chunk boundary: one full chunk, then a new one.
    expect(states.map((s) => s.chunkCount)).toEqual([1, 1, 1, 2, 2, 2]);
    states.forEach((s, k) => {
      expect(s.chunks.length).toBe(s.chunkCount);
      expect(s.lastChunk).toBe(s.chunks[s.chunks.length - 1]);
      expect(s.chunks.reduce((n, c) => n + c.ids.length, 0)).toBe(MESSAGE_CHUNK - 2 + k);
      // Read twice: the same list.
      expect(s.chunks).toBe(s.chunks);
    });
    expect(new Set(states.map((s) => s.chunksKey)).size).toBe(states.length);
    expect(contents(states[5]!)).toEqual(contents(rebuilt(states[5]!)));
  });

  it('`with` keeps the chunk list (and its key) unless it is given one', () => {
    const s = append(randomStore({ seed: 2, messages: 30, users: 3, channels: 2 }), 0);
    const key = s.chunksKey;
    const rows = s.with({ rows: s.rows.delete(2) });
    expect(rows.chunksKey).toBe(key);
    expect(rows.chunks).toEqual(s.chunks);
    expect(rows.rows.has(2)).toBe(false);
    expect(rows.count).toBe(s.count);
    const chunks = s.with({ chunks: s.chunks.slice(0, 0), count: 0 });
    expect(chunks.chunksKey).not.toBe(key);
    expect(chunks.chunks).toEqual([]);
    expect(chunks.lastChunk).toBeUndefined();
    expect(Object.isFrozen(rows)).toBe(true);
  });

  it('deep equality sees the chunk list (a getter), and JSON holds it', () => {
    const base = randomStore({ seed: 6, messages: 12, users: 3, channels: 2 });
    const a = append(base, 0);
    const b = append(base, 0);
    const c = append(base, 1);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    expect(Object.keys(JSON.parse(JSON.stringify(a)) as object)).toContain('chunks');
  });
});
