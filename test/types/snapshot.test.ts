/**
 * Type tests: the snapshot types inferred from the format's zod schemas. `tsc` (npm run typecheck)
 * checks the `@ts-expect-error` lines; vitest runs the few value checks.
 */
import type fc from 'fast-check';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  createRealm,
  parseRealm,
  snapshotChunks,
  createRealmFromChunks,
  snapshotRealm,
  type ParsedRealm,
  type RealmSnapshot,
  type RealmSnapshotInput,
  type RealmState,
  type SnapshotMessage,
  type SnapshotMessageInput,
  type SnapshotRecord,
  type SnapshotRecordInput,
} from '../../src/index';
import { realmBuilder } from '../../src/testing/index';
import { arbSnapshot } from '../../src/testing/arbitraries';
import { openRealm } from '../../src/host/index';
import { memoryStore } from '../../src/stores/memory/index';

const user = { user_id: 1, email: 'ada@example.com', full_name: 'Ada', api_key: 'a'.repeat(32) };

describe('snapshot types', () => {
  it('createRealm takes the input type: misspelled keys and wrong types are compile errors', () => {
    const state = createRealm({ format: 'chat-realm.snapshot/1', users: [user] });
    expect(state.users.size).toBe(1);
    // Defaults stay optional; a readonly (`as const`) fixture is accepted.
    const fixture = {
      format: 'chat-realm.snapshot/1',
      users: [{ ...user, role: 200 }],
      channels: [{ stream_id: 1, name: 'general', can_send_message_group: 'role:members' }],
    } as const;
    createRealm(fixture);

    // @ts-expect-error -- a misspelled section
    expect(() => createRealm({ format: 'chat-realm.snapshot/1', user: [user] })).toThrow();
    const format = 'chat-realm.snapshot/1';
    // @ts-expect-error -- a misspelled field of a record
    expect(() => createRealm({ format, users: [{ ...user, fullname: 'A' }] })).toThrow();
    // @ts-expect-error -- a wrong field type
    expect(() => createRealm({ format, users: [{ ...user, user_id: '1' }] })).toThrow();
    // @ts-expect-error -- a required field left out
    expect(() => createRealm({ format, users: [{ user_id: 1, email: 'a@b.c' }] })).toThrow();
    // @ts-expect-error -- a role that does not exist
    expect(() => createRealm({ format: 'chat-realm.snapshot/1', users: [{ ...user, role: 250 }] })).toThrow();
    expect(() =>
      createRealm({
        format: 'chat-realm.snapshot/1',
        // @ts-expect-error -- not a system group name
        realm: { can_manage_all_groups: 'role:admins' },
      }),
    ).toThrow();
    // @ts-expect-error -- a misspelled realm setting (the realm is a closed record too)
    expect(() => createRealm({ format: 'chat-realm.snapshot/1', realm: { nmae: 'Acme' } })).toThrow();
    // @ts-expect-error -- a misspelled user setting
    expect(() => createRealm({ format, users: [{ ...user, settings: { enter_send: true } }] })).toThrow();
    // @ts-expect-error -- the wrong format
    expect(() => createRealm({ format: 'chat-realm.snapshot/2' })).toThrow();
    // @ts-expect-error -- a value of unknown type goes to parseRealm
    expect(() => createRealm(JSON.parse('null') as unknown)).toThrow();
    // JSON.parse's `any` still compiles, and is checked at run time.
    expect(() => createRealm(JSON.parse('{"format":"chat-realm.snapshot/1","users":"none"}'))).toThrow(
      /users: Invalid input/,
    );
  });

  it('types messages as channel or direct messages, flags by name', () => {
    const channel: SnapshotMessageInput = {
      id: 1,
      sender_id: 1,
      stream_id: 1,
      topic: 't',
      content: '',
      timestamp: 0,
    };
    const direct: SnapshotMessageInput = {
      id: 2,
      sender_id: 1,
      to: [1],
      content: '',
      timestamp: 0,
      flags: { '1': ['read'] },
    };
    void [channel, direct];
    // @ts-expect-error -- both a channel and recipients
    const both: SnapshotMessageInput = {
      id: 3,
      sender_id: 1,
      stream_id: 1,
      to: [1],
      content: '',
      timestamp: 0,
    };
    // @ts-expect-error -- a direct message has no topic
    const topicDm: SnapshotMessageInput = {
      id: 4,
      sender_id: 1,
      to: [1],
      topic: 't',
      content: '',
      timestamp: 0,
    };
    const flag: SnapshotMessageInput = {
      id: 5,
      sender_id: 1,
      to: [1],
      content: '',
      timestamp: 0,
      // @ts-expect-error -- an unknown flag
      flags: { '1': ['unread'] },
    };
    void [both, topicDm, flag];
    expectTypeOf<SnapshotRecordInput<'messages'>>().toEqualTypeOf<SnapshotMessageInput>();
  });

  it('snapshotRealm returns every field typed, no cast needed', () => {
    const s = snapshotRealm(createRealm({ format: 'chat-realm.snapshot/1', users: [user] }));
    expectTypeOf(s).toEqualTypeOf<RealmSnapshot>();
    expectTypeOf(s.users[0]!.email).toEqualTypeOf<string>();
    expectTypeOf(s.users[0]?.email).toEqualTypeOf<string | undefined>();
    expectTypeOf(s.users[0]!.role).toEqualTypeOf<100 | 200 | 300 | 400 | 600>();
    expectTypeOf(s.users[0]!.settings.enter_sends).toEqualTypeOf<boolean>();
    expectTypeOf(s.users[0]!.password_hash).toEqualTypeOf<string | undefined>();
    expectTypeOf(s.now).toEqualTypeOf<number | null>();
    expectTypeOf(s.realm.name).toEqualTypeOf<string>();
    expectTypeOf(s.realm.can_manage_all_groups).toEqualTypeOf<
      number | { direct_members: number[]; direct_subgroups: number[] }
    >();
    expectTypeOf<SnapshotRecord<'channels'>['message_retention_days']>().toEqualTypeOf<number | null>();
    expectTypeOf(s.server.push_notifications).toEqualTypeOf<'off' | 'direct' | 'bouncer'>();
    expectTypeOf<SnapshotRecord<'users'>>().toEqualTypeOf<RealmSnapshot['users'][number]>();
    const m: SnapshotMessage | undefined = s.messages[0];
    if (m !== undefined) {
      expectTypeOf(m.flags).toEqualTypeOf<
        Record<
          string,
          Array<
            | 'read'
            | 'starred'
            | 'collapsed'
            | 'mentioned'
            | 'stream_wildcard_mentioned'
            | 'topic_wildcard_mentioned'
            | 'has_alert_word'
            | 'historical'
          >
        >
      >();
      // Narrowing on the target: a channel message has a topic, a direct message recipients.
      if (m.stream_id !== undefined) expectTypeOf(m.topic).toEqualTypeOf<string>();
      else expectTypeOf(m.to).toEqualTypeOf<number[]>();
      if (m.to !== undefined) expectTypeOf(m.to).toEqualTypeOf<number[]>();
    }
    // @ts-expect-error -- not a section of the snapshot
    void s.usres;
    // @ts-expect-error -- the canonical form never holds plain passwords
    void s.users[0]!.password;
  });

  it('round-trips: what snapshotRealm writes, createRealm takes', () => {
    expectTypeOf<RealmSnapshot>().toExtend<RealmSnapshotInput>();
    expectTypeOf<SnapshotMessage>().toExtend<SnapshotMessageInput>();
    const state: RealmState = createRealm(
      snapshotRealm(createRealm({ format: 'chat-realm.snapshot/1', users: [user] })),
    );
    expect(state.users.get(1)?.full_name).toBe('Ada');
    // The input type is wider: it does not satisfy the output type.
    expectTypeOf<RealmSnapshotInput>().not.toExtend<RealmSnapshot>();
  });

  it('parseRealm takes unknown values and returns the realm or the error as a value', () => {
    const value: unknown = JSON.parse(JSON.stringify({ format: 'chat-realm.snapshot/1', users: [user] }));
    const parsed = parseRealm(value);
    expectTypeOf(parsed).toEqualTypeOf<ParsedRealm>();
    if (parsed.ok) expectTypeOf(parsed.state).toEqualTypeOf<RealmState>();
    else expectTypeOf(parsed.error.issues[0]!.path).toEqualTypeOf<string>();
    expect(parsed.ok).toBe(true);
    const bad = parseRealm({ format: 'chat-realm.snapshot/1', users: [{ ...user, user_id: 0 }] });
    expect(bad.ok ? [] : bad.error.issues.map((i) => i.path)).toEqual(['users[0].user_id']);
  });

  it('the streaming, testing and host APIs carry the same types', async () => {
    const state = realmBuilder()
      .user({ full_name: 'Iago', role: 200 })
      .channel({ name: 'Verona' }, [1])
      .build();
    expectTypeOf(realmBuilder().toSnapshot()).toEqualTypeOf<RealmSnapshotInput>();
    // @ts-expect-error -- a misspelled user field through the builder
    realmBuilder().user({ fullname: 'Iago' });
    // @ts-expect-error -- a role that does not exist through the builder
    realmBuilder().user({ role: 1 });
    // @ts-expect-error -- a message needs a channel or recipients of the right type
    realmBuilder().message({ sender_id: 1, content: 'x', stream_id: '1' });
    realmBuilder().add('linkifiers', { id: 1, pattern: 'a', url_template: 'b' });
    // @ts-expect-error -- a record of another section
    realmBuilder().add('linkifiers', { id: 1, name: 'general' });
    expectTypeOf(arbSnapshot()).toEqualTypeOf<fc.Arbitrary<RealmSnapshotInput>>();

    expectTypeOf(snapshotChunks(state)).toEqualTypeOf<Generator<string, void, undefined>>();
    expectTypeOf(createRealmFromChunks(snapshotChunks(state))).toEqualTypeOf<RealmState>();

    const handle = await openRealm({ store: memoryStore(), snapshot: snapshotRealm(state) });
    expect(handle.state.users.size).toBe(1);
    await handle.close();
    // @ts-expect-error -- the initial snapshot is typed too
    await openRealm({ store: memoryStore(), snapshot: { format: 'chat-realm.snapshot/1', usres: [] } }).catch(
      () => undefined,
    );
  });
});
