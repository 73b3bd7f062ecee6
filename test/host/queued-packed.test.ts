/**
 * A queue nobody is waiting on holds large flag events packed in typed arrays (packed-event.ts,
 * issue 31: a never-read queue flooded with ~205 KB mark-unread events kept them as object graphs
 * that every scavenge copied). What a client reads must not change: every answer is compared,
 * byte for byte, with a reference that renders events as the queue did when it held objects only
 * (the event in the client's form, `id` last, flag events merged, `delete_message` split for
 * legacy clients), and the byte budget must be the exact UTF-8 length of what the client receives.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { intKeyedObject } from '../../src/core/collections/int-keyed';
import type { AddressedEvent, ZulipEvent } from '../../src/core/events';
import { clientPayload, type ClientForm, type Payload } from '../../src/host/client-payload';
import type { EventQueue, QueuedEvent } from '../../src/host/event-queue';
import { EventQueues } from '../../src/host/event-queues';
import { PackedEvent } from '../../src/host/packed-event';

const USERS = [1, 2, 3, 4];
const utf8 = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** The queues under test: every combination of `empty_topic_name` and `bulk_message_deletion`. */
const KINDS = [
  { empty_topic_name: true, bulk_message_deletion: true },
  { empty_topic_name: false, bulk_message_deletion: true },
  { empty_topic_name: true, bulk_message_deletion: false },
  { empty_topic_name: false, bulk_message_deletion: false },
];

/**
 * The reference: the rendering of the queue when it held objects (before issue 31's last part),
 * written out plainly. It queues the client's form of each event (`clientPayload`).
 */
class Reference {
  readonly held: Record<string, unknown>[] = [];
  private readonly virtual = new Map<string, Record<string, unknown> & { id: number; messages: number[] }>();
  nextId = 0;
  constructor(
    private readonly form: ClientForm,
    private readonly bulk: boolean,
  ) {}

  push(event: Payload): void {
    if (event.type === 'delete_message' && !this.bulk) {
      const { message_ids: ids, ...rest } = event as { message_ids?: readonly number[]; type: string };
      for (const messageId of ids ?? []) this.append({ ...rest, message_id: messageId });
      return;
    }
    if (event.type === 'update_message_flags' && event['all'] !== true) {
      const key = `flags/${String(event['op'])}/${String(event['flag'])}`;
      if (key !== 'flags/remove/read') {
        const id = this.nextId++;
        const messages = (event['messages'] as number[] | undefined) ?? [];
        const pending = this.virtual.get(key);
        if (pending === undefined) this.virtual.set(key, { ...event, messages: [...messages], id });
        else {
          pending.messages.push(...messages);
          pending.id = id;
        }
        return;
      }
    }
    const { for_unarchiving: _internal, ...rest } = event as Payload & { for_unarchiving?: boolean };
    this.append(event.type === 'stream' && event['op'] === 'create' ? rest : event);
  }

  /** Everything held, as the client reads it. */
  read(): Record<string, unknown>[] {
    this.flush();
    return this.held;
  }

  /** The UTF-8 length of everything held, pending merged events included (without merging them). */
  bytes(): number {
    let n = 0;
    for (const e of this.held) n += utf8(e);
    for (const e of this.virtual.values()) n += utf8(e);
    return n;
  }

  prune(through: number): void {
    this.flush();
    while (this.held.length > 0 && (this.held[0]!['id'] as number) <= through) this.held.shift();
  }

  private append(event: Readonly<Record<string, unknown>>): void {
    this.flush();
    this.held.push({ ...event, id: this.nextId++ });
  }

  private flush(): void {
    const pending = [...this.virtual.values()].sort((a, b) => a.id - b.id);
    this.virtual.clear();
    for (const p of pending) {
      let at = this.held.length;
      while (at > 0 && (this.held[at - 1]!['id'] as number) > p.id) at--;
      this.held.splice(at, 0, p);
    }
  }

  formOf(addressed: AddressedEvent): Payload {
    return clientPayload(addressed, this.form, new Map());
  }
}

const topic = fc.constantFrom('', 'x', 'général', '日本語 🎉', 'quote " and \\');
// Both sides of PACK_MIN_IDS (64): small flag events stay objects, larger ones are packed.
const someIds = (minLength: number, maxLength: number) =>
  fc
    .uniqueArray(fc.oneof(fc.integer({ min: 1, max: 5000 }), fc.constant(2 ** 40)), { minLength, maxLength })
    .map((xs) => [...xs].sort((a, b) => a - b));
const ids = fc.oneof(someIds(1, 10), someIds(64, 120));
const entry = fc.oneof(
  fc.record({ type: fc.constant('stream'), stream_id: fc.nat(9), topic, unmuted_stream_msg: fc.boolean() }),
  fc.record({ type: fc.constant('private'), user_ids: fc.array(fc.nat(9), { maxLength: 3 }) }),
);

/** Events that every queue accepts, in the shapes whose client form or queueing differs. */
const event: fc.Arbitrary<ZulipEvent> = fc.oneof(
  fc
    .record({ op: fc.constantFrom('add', 'remove'), flag: fc.constantFrom('read', 'starred'), messages: ids })
    .map(({ op, flag, messages }) => ({
      type: 'update_message_flags',
      op,
      operation: op,
      flag,
      messages,
      all: false,
    })),
  fc
    .record({
      messages: ids,
      entries: fc.array(entry, { minLength: 1, maxLength: 4 }),
      built: fc.boolean(),
      gone: fc.nat(5),
    })
    .map(({ messages, entries, built, gone }) => {
      // As the operations build it (`intKeyedObject`, some messages gone) or as a plain object.
      const keys = messages.filter((_, k) => gone === 0 || k % 7 !== gone);
      const values = keys.map((_, k) => entries[k % entries.length]);
      const details: Record<number, unknown> = built ? intKeyedObject(keys, values) : {};
      if (!built) keys.forEach((id, k) => (details[id] = values[k]));
      return {
        type: 'update_message_flags',
        op: 'remove',
        operation: 'remove',
        flag: 'read',
        messages,
        all: false,
        message_details: details,
      };
    }),
  fc.record({ topic, ids }).map(({ topic: t, ids: messageIds }) => ({
    type: 'delete_message',
    message_type: 'stream',
    stream_id: 1,
    topic: t,
    message_ids: messageIds,
  })),
  fc.record({ topic, id: fc.nat(), content: fc.string() }).map(({ topic: t, id, content }) => ({
    type: 'message',
    flags: [],
    message: {
      id,
      type: 'stream',
      stream_id: 1,
      subject: t,
      content,
      sender_email: 'iago@zulip.com',
      avatar_url: null,
    },
  })),
  fc.constant({ type: 'stream', op: 'create', streams: [], for_unarchiving: false }),
  fc.constant({ type: 'heartbeat' }),
) as fc.Arbitrary<ZulipEvent>;

/** A step: deliver events, poll a queue (read and acknowledge), or leave a poll waiting on it. */
const step = fc.oneof(
  { weight: 4, arbitrary: fc.array(event, { minLength: 1, maxLength: 3 }).map((es) => ({ deliver: es })) },
  { weight: 1, arbitrary: fc.nat(KINDS.length - 1).map((k) => ({ poll: k })) },
  { weight: 1, arbitrary: fc.nat(KINDS.length - 1).map((k) => ({ wait: k })) },
);

describe('queues holding events as text', () => {
  it('answer every poll byte for byte as the object queue did, with an exact byte count', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        const queues = new EventQueues({ gcIntervalMs: 0, maxPollBytes: Infinity });
        const subjects = KINDS.map((capabilities, k) => ({
          queue: queues.create(USERS[k]!, { eventTypes: null, capabilities }),
          ref: new Reference(
            { applyMarkdown: false, emptyTopicName: capabilities.empty_topic_name, clientGravatar: true },
            capabilities.bulk_message_deletion,
          ),
          answered: undefined as QueuedEvent[] | undefined,
        }));
        const same = (got: readonly QueuedEvent[], want: Record<string, unknown>[]) =>
          expect(JSON.stringify(got)).toBe(JSON.stringify(want));
        const acknowledge = (s: (typeof subjects)[number], got: readonly QueuedEvent[]) => {
          const last = got.at(-1);
          if (last === undefined) return;
          s.queue.prune(last.id);
          s.ref.prune(last.id);
        };
        for (const st of steps) {
          if ('deliver' in st) {
            const addressed = st.deliver.map((e) => ({ event: e, users: USERS }));
            for (const s of subjects) for (const a of addressed) s.ref.push(s.ref.formOf(a));
            queues.deliver(addressed);
            // A waiting poll is answered with everything the delivery brought.
            for (const s of subjects)
              if (s.answered !== undefined) {
                same(s.answered, s.ref.read());
                acknowledge(s, s.answered);
                s.answered = undefined;
              }
          } else if ('poll' in st) {
            const s = subjects[st.poll]!;
            if (s.queue.waiter !== undefined) continue;
            const got = s.queue.head(Infinity);
            same(got, s.ref.read());
            acknowledge(s, got);
          } else {
            const s = subjects[st.wait]!;
            if (s.queue.length > 0 || s.queue.waiter !== undefined) continue;
            s.queue.waiter = { resolve: (a) => (s.answered = [...a.events]), timer: undefined };
          }
          // The byte count is exact: the UTF-8 length of what the client would read, ids included.
          for (const s of subjects) expect(s.queue.bytes).toBe(s.ref.bytes());
        }
        for (const s of subjects) {
          s.queue.waiter = undefined;
          same(s.queue.events, s.ref.read());
        }
        queues.close();
      }),
      { numRuns: 300 },
    );
  });

  it('holds a large mark-unread event of a never-read queue packed, once for all its queues', () => {
    const queues = new EventQueues({ gcIntervalMs: 0 });
    const legacy = queues.create(4, { eventTypes: ['update_message_flags'] });
    const modern = queues.create(4, {
      eventTypes: ['update_message_flags'],
      capabilities: { empty_topic_name: true },
    });
    const polling = queues.create(4, { eventTypes: ['update_message_flags'] });
    const answers: QueuedEvent[][] = [];
    polling.waiter = { resolve: (a) => answers.push([...a.events]), timer: undefined };
    const messages = Array.from({ length: 5000 }, (_, i) => 10_000 + i);
    const shared = [
      { type: 'stream', stream_id: 1, topic: '', unmuted_stream_msg: true },
      { type: 'stream', stream_id: 1, topic: 'topic', unmuted_stream_msg: true },
    ];
    const details = intKeyedObject(
      messages,
      messages.map((_, k) => shared[k % 2]),
    );
    const unread = {
      type: 'update_message_flags',
      op: 'remove',
      operation: 'remove',
      flag: 'read',
      messages,
      all: false,
      message_details: details,
    } as unknown as ZulipEvent;
    queues.deliver([{ event: unread, users: [4] }]);

    // The queues nobody waits on hold it packed; the one with a poll waiting answered at once.
    expect(legacy.heldPacked()).toBe(1);
    expect(modern.heldPacked()).toBe(1);
    const held = (q: EventQueue) => (q as unknown as { queue: { value: object }[] }).queue[0]!.value;
    // One packed copy for both (the legacy client's renaming is applied when it reads), whose
    // ids lie outside the collected heap.
    expect(held(legacy)).toBe(held(modern));
    const packed = held(legacy) as unknown as Record<string, unknown>;
    expect(packed['messages']).toBeInstanceOf(Int32Array);
    expect(answers).toHaveLength(1);
    expect(answers[0]![0]).toMatchObject({ id: 0, messages });
    expect(modern.bytes).toBeGreaterThan(200_000);

    const [legacyEvent] = legacy.events;
    const [modernEvent] = modern.events;
    const renamed = legacyEvent!['message_details'] as Record<number, { topic: string }>;
    expect(renamed[10_000]!.topic).toBe('general chat');
    expect((modernEvent!['message_details'] as Record<number, { topic: string }>)[10_000]!.topic).toBe('');
    expect(JSON.stringify(modernEvent)).toBe(JSON.stringify({ ...unread, id: 0 }));
    expect(legacy.bytes).toBe(utf8(legacyEvent));
    expect(modern.bytes).toBe(utf8(modernEvent));
    // (The polling client has not acknowledged its answer yet: its queue still holds it.)
    expect(queues.bytes).toBe(utf8(legacyEvent) + utf8(modernEvent) + utf8(answers[0]![0]));
    queues.close();
  });
});

describe('PackedEvent', () => {
  const entryA = { type: 'stream', stream_id: 1, topic: 'é', unmuted_stream_msg: true };
  const entryB = { type: 'private', user_ids: [3] };

  it('unpacks to the same JSON for ids in request order, repeated, large, and details for some of them', () => {
    const messages = [...Array.from({ length: 70 }, (_, k) => 900 - k), 5, 5, 2 ** 45];
    const keys = [2 ** 45, 5, 800, 850];
    const event = {
      type: 'update_message_flags',
      op: 'remove',
      operation: 'remove',
      flag: 'read',
      messages,
      all: false,
      message_details: intKeyedObject(keys, [entryA, entryB, entryA, entryB]),
    };
    const packed = PackedEvent.of(event)!;
    expect(packed).toBeInstanceOf(PackedEvent);
    expect(JSON.stringify(packed.unpack())).toBe(JSON.stringify(event));
    // Unpacking twice gives two independent events.
    expect(packed.unpack()).not.toBe(packed.unpack());
  });

  it('leaves small events, non-integer ids and details it cannot enumerate cheaply as objects', () => {
    const base = { type: 'update_message_flags', op: 'add', flag: 'read', all: false };
    const many = Array.from({ length: 100 }, (_, k) => k + 1);
    expect(PackedEvent.of({ ...base, messages: many.slice(0, 63) })).toBeUndefined();
    expect(PackedEvent.of({ ...base, messages: many })).toBeInstanceOf(PackedEvent);
    expect(PackedEvent.of({ ...base, messages: [...many, 1.5] })).toBeUndefined();
    expect(PackedEvent.of({ ...base, messages: many, message_details: { 1: entryA } })).toBeUndefined();
    expect(PackedEvent.of({ type: 'message', messages: many })).toBeUndefined();
  });
});
