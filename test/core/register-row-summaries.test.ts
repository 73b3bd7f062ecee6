/**
 * Register's walks over a user's rows skip chunks by a remembered per-chunk summary of their flags
 * (row-summary.ts): `starred_messages`, `recent_private_conversations` and the unread rows of
 * `unread_msgs`. These are pinned here against recomputations that read every row, on realms whose
 * users hold rows across several chunks (stars and direct messages among them), and again after
 * flag changes (new chunks replace the old ones), deletions and a reload from a snapshot (chunks
 * built afresh), with the summaries of the earlier states already remembered.
 */
import { describe, expect, it } from 'vitest';
import { FLAG_BITS } from '../../src/core/messages/flags';
import { getMessage } from '../../src/core/messages/store';
import { forEachRow, ROW_CHUNK } from '../../src/core/messages/rows';
import { everyRowHas, someRowHas } from '../../src/core/messages/row-summary';
import { registerState } from '../../src/core/register/register-state';
import { MAX_UNREAD_MESSAGES, unreadMsgs } from '../../src/core/register/unread';
import { RECENT_CONVERSATIONS_LIMIT } from '../../src/core/register/recent-dms';
import { createRealm } from '../../src/core/snapshot/create';
import { snapshotRealm } from '../../src/core/snapshot/export';
import type { RealmState } from '../../src/core/state';
import { deleteMessage } from '../../src/ops/messages/deleteMessage';
import { updateMessageFlags } from '../../src/ops/messages/updateMessageFlags';
import { simulateRealm } from '../../src/simulate/simulate';
import { testCtx } from '../support/realm';

const TYPES = {
  fetch_event_types: ['starred_messages', 'recent_private_conversations', 'message', 'update_message_flags'],
};

function rowsOf(state: RealmState, userId: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const rows = state.messages.rows.get(userId);
  if (rows) forEachRow(rows, (id, flags) => void out.push([id, flags]));
  return out;
}

/** `recent_private_conversations` read from every row and whole messages. */
function recentReference(state: RealmState, userId: number): unknown[] {
  const newest = new Map<string, { max_message_id: number; user_ids: number[] }>();
  let seen = 0;
  for (const [id, flags] of rowsOf(state, userId).reverse()) {
    if ((flags & FLAG_BITS.is_private) === 0) continue;
    if (seen++ >= RECENT_CONVERSATIONS_LIMIT) break;
    const m = getMessage(state.messages, id);
    if (m?.participants == null) continue;
    const key = m.participants.join(',');
    if (!newest.has(key))
      newest.set(key, { max_message_id: id, user_ids: m.participants.filter((u) => u !== userId) });
  }
  return [...newest.values()].sort((a, b) => b.max_message_id - a.max_message_id);
}

/** Every id `unread_msgs` lists: the newest unread rows but those of channels the user left. */
function unreadReference(state: RealmState, userId: number): number[] {
  const unread = rowsOf(state, userId)
    .filter(([, f]) => (f & FLAG_BITS.read) === 0)
    .map(([id]) => id)
    .slice(-MAX_UNREAD_MESSAGES);
  return unread.filter((id) => {
    const m = getMessage(state.messages, id);
    if (m === undefined) return false;
    if (m.stream_id === null) return true;
    const sub = state.subscriptions.get(m.stream_id)?.get(userId);
    return sub === undefined || sub.active;
  });
}

function check(state: RealmState): void {
  for (const userId of state.users.keys()) {
    const rows = rowsOf(state, userId);
    const answer = registerState(state, userId, TYPES);
    expect(answer['starred_messages']).toEqual(
      rows.filter(([, f]) => (f & FLAG_BITS.starred) !== 0).map(([id]) => id),
    );
    expect(answer['recent_private_conversations']).toEqual(recentReference(state, userId));
    const u = unreadMsgs(state, userId, true);
    const listed = [
      ...u.streams.flatMap((s) => s.unread_message_ids),
      ...u.pms.flatMap((p) => p.unread_message_ids),
      ...u.huddles.flatMap((h) => h.unread_message_ids),
    ].sort((a, b) => a - b);
    expect(listed).toEqual(unreadReference(state, userId));
    // The summaries themselves, chunk by chunk, against the chunk's flags.
    const chunks = state.messages.rows.get(userId)?.chunks ?? [];
    chunks.forEach((c, i) => {
      for (const bit of [FLAG_BITS.read, FLAG_BITS.starred, FLAG_BITS.is_private]) {
        expect(someRowHas(chunks, i, bit)).toBe(c.flags.some((f) => (f & bit) !== 0));
        expect(everyRowHas(chunks, i, bit)).toBe(c.flags.every((f) => (f & bit) !== 0));
      }
    });
  }
}

describe('register row walks with per-chunk summaries', () => {
  const initial = simulateRealm({ users: 8, channels: 3, messages: 9000, dmRatio: 0.05, seed: 11 });
  const dmRows = (userId: number) =>
    rowsOf(initial, userId).filter(([, f]) => (f & FLAG_BITS.is_private) !== 0).length;
  // The user with the most rows among those who have direct messages.
  const heavy = [...initial.users.keys()]
    .filter((id) => dmRows(id) > 0)
    .sort((a, b) => rowsOf(initial, b).length - rowsOf(initial, a).length)[0]!;

  it('spans several chunks, with stars and direct messages', () => {
    const rows = rowsOf(initial, heavy);
    expect(rows.length).toBeGreaterThan(2 * ROW_CHUNK);
    expect(rows.some(([, f]) => (f & FLAG_BITS.starred) !== 0)).toBe(true);
    expect(rows.some(([, f]) => (f & FLAG_BITS.is_private) !== 0)).toBe(true);
  });

  it('answers as a walk of every row does, through flag changes, deletions and a reload', () => {
    check(initial);
    // Rows of messages the user may still flag (not in channels they left).
    const rows = rowsOf(initial, heavy).filter(([id]) => {
      const m = getMessage(initial.messages, id);
      return (
        m !== undefined &&
        (m.stream_id === null || initial.subscriptions.get(m.stream_id)?.get(heavy)?.active === true)
      );
    });
    // Star a spread of rows (new chunks for each one touched), unstar some, mark some unread.
    const pick = (step: number, offset: number) =>
      rows.filter((_, i) => i % step === offset).map(([id]) => id);
    let state = initial;
    for (const [messages, op, flag] of [
      [pick(997, 5), 'add', 'starred'],
      [
        rows
          .filter(([, f]) => (f & FLAG_BITS.starred) !== 0)
          .map(([id]) => id)
          .slice(0, 3),
        'remove',
        'starred',
      ],
      [pick(613, 1), 'remove', 'read'],
      [pick(101, 0), 'add', 'read'],
    ] as const) {
      const r = updateMessageFlags(state, { userId: heavy }, { messages: [...messages], op, flag });
      expect(r.status).toBe(200);
      state = r.state;
    }
    check(state);
    // The older state still answers from its own flags.
    check(initial);
    // Deletions by an administrator: starred rows and direct messages among them (those the
    // administrator may not access are refused and skipped).
    const admin = [...state.users.values()].find((u) => u.role === 100 && u.is_active && !u.is_bot)!;
    const victims = rowsOf(state, heavy)
      .filter(([, f]) => (f & (FLAG_BITS.is_private | FLAG_BITS.starred)) !== 0)
      .filter((_, i) => i % 3 === 0)
      .slice(0, 25)
      .map(([id]) => id);
    let deleted = 0;
    for (const id of victims) {
      const r = deleteMessage(state, { userId: admin.user_id }, { message_id: id }, testCtx());
      if (r.status !== 200) continue;
      state = r.state;
      deleted++;
    }
    expect(deleted).toBeGreaterThan(5);
    check(state);
    // A reload builds every chunk afresh.
    check(createRealm(snapshotRealm(state)));
  });
});

describe('starred_messages over flag columns at any offset', () => {
  // The walk reads flags in 32-bit pairs: a column that starts mid-word (a view at an odd row of a
  // shared buffer) or holds an odd number of rows must answer as a row-by-row walk does.
  it.each([0, 1, 2, 3])('a column starting %i rows into its buffer', (lead) => {
    const state = simulateRealm({ preset: 'small', seed: 7, messages: 300 });
    const userId = [...state.messages.rows.keys()][0]!;
    const rows = state.messages.rows.get(userId)!;
    const all = rowsOf(state, userId);
    const flags = new Uint16Array(lead + all.length);
    all.forEach(([, f], k) => (flags[lead + k] = (k * 7) % 5 === 0 ? f | FLAG_BITS.starred : f));
    const ids = Int32Array.from(all, ([id]) => id);
    // Chunks of uneven, odd sizes, each a view into the shared buffers.
    const chunks = [];
    for (let at = 0, size = 3; at < all.length; at += size, size = size === 3 ? 17 : 3)
      chunks.push({
        ids: ids.subarray(at, Math.min(at + size, all.length)),
        flags: flags.subarray(lead + at, lead + Math.min(at + size, all.length)),
      });
    const moved: RealmState = {
      ...state,
      messages: state.messages.with({ rows: state.messages.rows.set(userId, { chunks, count: rows.count }) }),
    };
    const expected = all.filter((_, k) => (flags[lead + k]! & FLAG_BITS.starred) !== 0).map(([id]) => id);
    expect(expected.length).toBeGreaterThan(0);
    expect(
      registerState(moved, userId, { fetch_event_types: ['starred_messages'] })['starred_messages'],
    ).toEqual(expected);
  });
});
