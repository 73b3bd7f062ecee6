/**
 * `jsonBytes` (src/host/event-queue.ts) adds up the length of flag events from their parts instead
 * of serializing them (issue 31: a mark-unread flood). The queues' byte budget rests on it, so it
 * must equal the UTF-8 length of `JSON.stringify` exactly, for every event shape it takes apart.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonBytes } from '../../src/host/event-queue';

const utf8 = (value: unknown) => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');

const topic = fc.oneof(
  fc.string(),
  fc.constantFrom('', 'général', '日本語', '🎉 emoji', 'quote " and \\ slash'),
);
const entry = fc.oneof(
  fc.record(
    {
      type: fc.constant('stream'),
      stream_id: fc.nat(),
      topic,
      unmuted_stream_msg: fc.boolean(),
      mentioned: fc.constant(true),
    },
    { requiredKeys: ['type', 'stream_id', 'topic', 'unmuted_stream_msg'] },
  ),
  fc.record(
    { type: fc.constant('private'), user_ids: fc.array(fc.nat()), mentioned: fc.constant(true) },
    { requiredKeys: ['type', 'user_ids'] },
  ),
);

/** A flag event as the operations build it: `message_details` keyed by (some of) `messages`. */
const flagEvent = fc
  .record({
    ids: fc.uniqueArray(fc.nat({ max: 2 ** 40 }), { maxLength: 60 }),
    entries: fc.array(entry, { minLength: 1, maxLength: 5 }),
    pick: fc.array(fc.nat(), { maxLength: 60 }),
    keep: fc.array(fc.boolean(), { maxLength: 60 }),
    op: fc.constantFrom('add', 'remove'),
    flag: fc.constantFrom('read', 'starred', 'collapsed'),
    withDetails: fc.boolean(),
    extra: fc.option(fc.string(), { nil: undefined }),
  })
  .map(({ ids, entries, pick, keep, op, flag, withDetails, extra }) => {
    const messages = [...ids].sort((a, b) => a - b);
    const details: Record<number, unknown> = {};
    // Entries are shared between messages, as message-details.ts shares them.
    messages.forEach((id, k) => {
      if (keep[k] ?? true) details[id] = entries[(pick[k] ?? 0) % entries.length];
    });
    return {
      type: 'update_message_flags',
      op,
      operation: op,
      flag,
      messages,
      all: false,
      ...(withDetails ? { message_details: details } : {}),
      ...(extra === undefined ? {} : { timestamp: extra }),
      id: 7,
    };
  });

describe('jsonBytes', () => {
  it('equals the UTF-8 length of JSON.stringify for flag events', () => {
    fc.assert(
      fc.property(flagEvent, (e) => {
        expect(jsonBytes(e)).toBe(utf8(e));
      }),
    );
  });

  it('equals it for arrays of integers and for anything else', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.constant(-0))), (xs) => {
        expect(jsonBytes(xs)).toBe(utf8(xs));
      }),
    );
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(jsonBytes(v)).toBe(utf8(v));
      }),
    );
  });

  it('falls back to serializing details whose ids repeat (POST /messages/flags keeps request order)', () => {
    const d = { type: 'stream', stream_id: 1, topic: 'é', unmuted_stream_msg: true };
    const e = {
      type: 'update_message_flags',
      op: 'remove',
      messages: [12, 5, 12],
      message_details: { 5: d, 12: d },
    };
    expect(jsonBytes(e)).toBe(utf8(e));
  });
});
