/**
 * Messages are checked by hand when a realm loads (messages.ts: a million through zod would take
 * minutes), while the types and the shipped JSON Schema come from `snapshotMessageSchema`
 * (format.ts). These properties keep the two in agreement, and check that what `snapshotRealm`
 * writes is what `canonicalSnapshotSchema` (the `RealmSnapshot` type) says.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/context';
import { snapshotRealm } from '../../src/core/snapshot/export';
import { canonicalSnapshotSchema, snapshotMessageSchema } from '../../src/core/snapshot/format';
import { IssueList } from '../../src/core/snapshot/issues';
import { checkMessage } from '../../src/core/snapshot/messages';
import { createRealm } from '../../src/core/snapshot/create';
import { simulateRealm } from '../../src/simulate';
import { arbSnapshot } from '../support/arbitraries';
import { devRealm } from '../support/realm';

const handChecked = (m: unknown) => checkMessage(m, 0, new IssueList()) !== undefined;
const zodChecked = (m: unknown) => snapshotMessageSchema.safeParse(m).success;

/** Values a field may be given: right and wrong types, edges of ids and timestamps. */
const ODD_VALUES: readonly unknown[] = [
  0,
  1,
  -1,
  1.5,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 53,
  '',
  'x',
  'read',
  null,
  true,
  false,
  [],
  [1],
  [0],
  [1, 'x'],
  ['read'],
  {},
  { '4': ['read'] },
  { '04': [] },
  { x: [] },
  { '4': ['shiny'] },
  { '4': 'read' },
  [{ user_id: 1, emoji_name: 'a', emoji_code: '1f', reaction_type: 'unicode_emoji' }],
  [{ user_id: 1, emoji_name: 'a', emoji_code: '1f', reaction_type: 'unicode_emoji', extra: 1 }],
  [{ user_id: 1, emoji_name: 'a', emoji_code: '1f', reaction_type: 'custom' }],
  [{ user_id: 1, emoji_name: 'a' }],
  [{ user_id: 1, timestamp: 5 }],
  [{ user_id: null, timestamp: 5, prev_content: 'a', prev_rendered_content: '<p>a</p>' }],
  [{ user_id: 1, timestamp: 5, prev_stream: 1, stream: 2, prev_topic: 'a', topic: 'b' }],
  [{ user_id: 1, timestamp: -1 }],
  [{ user_id: 0, timestamp: 5 }],
  [{ timestamp: 5 }],
  [{ user_id: 1, timestamp: 5, stream: 0 }],
  [{ user_id: 1, timestamp: 5, topic: 1 }],
  [{ user_id: 1, timestamp: 5, extra: 1 }],
];
const KEYS = [
  'id',
  'sender_id',
  'stream_id',
  'topic',
  'to',
  'content',
  'timestamp',
  'has_link',
  'has_attachment',
  'has_image',
  'reactions',
  'edit_history',
  'last_edit_timestamp',
  'last_moved_timestamp',
  'flags',
  'unknown',
] as const;

const id = fc.integer({ min: 1, max: 2 ** 31 - 1 });
const flags = fc.dictionary(
  id.map(String),
  fc.subarray(['read', 'starred', 'collapsed', 'mentioned', 'historical']),
  { maxKeys: 3 },
);
const reaction = fc.record({
  user_id: id,
  emoji_name: fc.string(),
  emoji_code: fc.string(),
  reaction_type: fc.constantFrom('unicode_emoji', 'realm_emoji', 'zulip_extra_emoji'),
});
const editEntry = fc.record(
  {
    user_id: fc.option(id, { nil: null }),
    timestamp: fc.nat(),
    prev_content: fc.string(),
    prev_rendered_content: fc.string(),
    prev_topic: fc.string(),
    topic: fc.string(),
    prev_stream: id,
    stream: id,
  },
  { requiredKeys: ['user_id', 'timestamp'] },
);
const common = {
  id,
  sender_id: id,
  content: fc.string(),
  timestamp: fc.nat(),
  has_link: fc.boolean(),
  has_attachment: fc.boolean(),
  has_image: fc.boolean(),
  reactions: fc.array(reaction, { maxLength: 2 }),
  edit_history: fc.array(editEntry, { maxLength: 2 }),
  last_edit_timestamp: fc.nat(),
  last_moved_timestamp: fc.nat(),
  flags,
};
const validMessage = fc.oneof(
  fc.record(
    { ...common, stream_id: id, topic: fc.string() },
    { requiredKeys: ['id', 'sender_id', 'content', 'timestamp', 'stream_id'] },
  ),
  fc.record(
    { ...common, to: fc.array(id, { maxLength: 3 }) },
    { requiredKeys: ['id', 'sender_id', 'content', 'timestamp', 'to'] },
  ),
);

/** A valid message, then a few fields removed or set to odd values. */
const nearMessage = fc
  .tuple(
    validMessage,
    fc.array(
      fc.tuple(fc.constantFrom(...KEYS), fc.option(fc.constantFrom(...ODD_VALUES), { nil: undefined })),
      {
        maxLength: 3,
      },
    ),
  )
  .map(([m, edits]) => {
    const out: Record<string, unknown> = { ...m };
    for (const [key, value] of edits) {
      if (value === undefined) delete out[key];
      else out[key] = structuredClone(value);
    }
    return out;
  });

describe('the messages’ zod schema and the hand-written check', () => {
  it('accept the same messages (property)', () => {
    fc.assert(
      fc.property(fc.oneof(validMessage, nearMessage), (m) => {
        expect(handChecked(m), JSON.stringify(m)).toBe(zodChecked(m));
      }),
      { numRuns: 3000 },
    );
  });

  it('agree at the edge of safe integers, also on the plain-message fast path (found by the property)', () => {
    for (const timestamp of [2 ** 53 - 1, 2 ** 53, 2 ** 53 + 2]) {
      for (const m of [
        { id: 1, sender_id: 1, content: '', timestamp, to: [] },
        { id: 1, sender_id: 1, content: '', timestamp, stream_id: 1, topic: 't' },
      ]) {
        expect(handChecked(m), JSON.stringify(m)).toBe(zodChecked(m));
        expect(handChecked(m)).toBe(timestamp <= Number.MAX_SAFE_INTEGER);
      }
    }
  });

  it('accept every message of the fixture and of a simulated organization', () => {
    const { messages } = snapshotRealm(simulateRealm({ preset: 'small', seed: 5 }));
    for (const m of [...snapshotRealm(devRealm()).messages, ...messages.slice(0, 2000)]) {
      const plain: unknown = JSON.parse(JSON.stringify(m));
      expect(handChecked(plain)).toBe(true);
      expect(zodChecked(plain)).toBe(true);
    }
  });

  it('refuse the same classic mistakes', () => {
    const base = { id: 1, sender_id: 2, content: 'hi', timestamp: 0 };
    for (const bad of [
      { ...base, stream_id: 1, to: [2] },
      { ...base },
      { ...base, to: [2], topic: 't' },
      { ...base, stream_id: 1, flags: { '4': ['shiny'] } },
      { ...base, stream_id: 1, reactions: [{ user_id: 1 }] },
      { ...base, stream_id: 1, colour: 'red' },
    ]) {
      expect(handChecked(bad), JSON.stringify(bad)).toBe(false);
      expect(zodChecked(bad), JSON.stringify(bad)).toBe(false);
    }
  });
});

describe('the canonical schema (RealmSnapshot)', () => {
  it('describes what snapshotRealm writes, exactly (no unknown keys, every field present)', () => {
    const states = [devRealm(), simulateRealm({ preset: 'small', seed: 2 })];
    for (const state of states) {
      const parsed = canonicalSnapshotSchema.safeParse(JSON.parse(JSON.stringify(snapshotRealm(state))));
      expect(parsed.success, JSON.stringify(parsed.error?.issues.slice(0, 5))).toBe(true);
    }
  });

  it('holds for arbitrary valid snapshots (property)', () => {
    fc.assert(
      fc.property(arbSnapshot(), (s) => {
        const out = snapshotRealm(createRealm(s, { random: seededRandom(1) }));
        const parsed = canonicalSnapshotSchema.safeParse(JSON.parse(JSON.stringify(out)));
        expect(parsed.success, JSON.stringify(parsed.error?.issues.slice(0, 5))).toBe(true);
      }),
      { numRuns: 40 },
    );
  });
});
