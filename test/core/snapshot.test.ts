import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRealm, parseRealm, parseStoredRealm } from '../../src/core/snapshot/create';
import type { RealmSnapshotInput } from '../../src/core/snapshot/format';
import { snapshotRealm } from '../../src/core/snapshot/export';
import { SnapshotError } from '../../src/core/snapshot/issues';
import { seededRandom } from '../../src/core/context';
import { arbSnapshot } from '../support/arbitraries';
import { devSnapshot, looseDevSnapshot, realmFromUnknown } from '../support/realm';

const opts = { random: seededRandom(7) };
const roundTrip = (s: RealmSnapshotInput) => snapshotRealm(createRealm(JSON.parse(JSON.stringify(s)), opts));

describe('createRealm / snapshotRealm', () => {
  it('loads the dev fixture with derived system group membership', () => {
    const state = createRealm(devSnapshot(), opts);
    expect(state.users.size).toBe(16);
    // aaron joined two days before `now` with a 3-day waiting period: not yet a full member.
    expect(state.users.get(8)!.is_full_member).toBe(false);
    expect(state.users.get(4)!.is_full_member).toBe(true);
    expect(state.systemGroups).toEqual({
      'role:nobody': 1,
      'role:owners': 2,
      'role:administrators': 3,
      'role:moderators': 4,
      'role:fullmembers': 5,
      'role:members': 6,
      'role:everyone': 7,
      'role:internet': 8,
    });
  });

  it('hashes fixture passwords and never exports them in plain text', () => {
    const c = roundTrip(devSnapshot());
    const hamlet = c.users.find((u) => u.user_id === 4)!;
    expect('password' in hamlet).toBe(false);
    expect(hamlet.password_hash).toMatch(/^scrypt\$15\$8\$1\$/);
  });

  it('export is idempotent on the dev fixture', () => {
    const c = roundTrip(devSnapshot());
    expect(roundTrip(c)).toEqual(c);
  });

  it('export is idempotent for arbitrary valid snapshots', () => {
    fc.assert(
      fc.property(arbSnapshot(), (s) => {
        const c = roundTrip(s);
        expect(roundTrip(c)).toEqual(c);
      }),
      { numRuns: 150 },
    );
  });

  it('fills defaults as a new Zulip object gets them', () => {
    const c = roundTrip({
      format: 'chat-realm.snapshot/1',
      users: [{ user_id: 1, email: 'a@b.c', full_name: 'A', api_key: 'a'.repeat(32) }],
      channels: [{ stream_id: 1, name: 'x', creator_id: 1 }],
    }) as unknown as Record<string, Array<Record<string, unknown>>>;
    expect(c['channels']![0]).toMatchObject({
      invite_only: false,
      history_public_to_subscribers: true,
      topics_policy: 'inherit',
      can_administer_channel_group: { direct_members: [1], direct_subgroups: [] },
      can_remove_subscribers_group: 3,
      can_send_message_group: 7,
    });
    expect(c['users']![0]).toMatchObject({ role: 400, is_active: true, bot_type: null, avatar_source: 'G' });
  });

  it('writes default flags from subscriptions when a message has none', () => {
    const c = roundTrip({
      format: 'chat-realm.snapshot/1',
      users: [1, 2, 3].map((id) => ({
        user_id: id,
        email: `${id}@x.y`,
        full_name: `U${id}`,
        api_key: String(id).repeat(32),
      })),
      channels: [{ stream_id: 1, name: 'x' }],
      subscriptions: [
        { user_id: 1, stream_id: 1 },
        { user_id: 2, stream_id: 1 },
      ],
      messages: [{ id: 5, sender_id: 1, stream_id: 1, topic: 't', content: 'hi', timestamp: 0 }],
    });
    expect(c.messages[0]!.flags).toEqual({ '1': ['read'], '2': [] });
  });
});

describe('SnapshotError', () => {
  const base = looseDevSnapshot;

  it('lists every problem with its path and builds nothing', () => {
    const s = base();
    s['channels']![0]!['folder_id'] = 99;
    s['subscriptions']!.push({ user_id: 999, stream_id: 1 });
    s['messages']![0]!['sender_id'] = 777;
    s['messages']![1]!['flags'] = { '4': ['shiny'] };
    let error: unknown;
    try {
      realmFromUnknown(s);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SnapshotError);
    const paths = (error as SnapshotError).issues.map((i) => `${i.path}: ${i.message}`);
    expect(paths).toContain('messages[1].flags["4"][0]: unknown flag "shiny"');
  });

  it('reports dangling references with their paths', () => {
    const s = base();
    s['channels']![0]!['folder_id'] = 99;
    s['subscriptions']!.push({ user_id: 999, stream_id: 1 });
    s['channels']![2]!['can_add_subscribers_group'] = { direct_members: [4, 99], direct_subgroups: [] };
    const issues = (() => {
      try {
        realmFromUnknown(s);
        return [];
      } catch (e) {
        return (e as SnapshotError).issues.map((i) => `${i.path}: ${i.message}`);
      }
    })();
    expect(issues).toEqual(
      expect.arrayContaining([
        'channels[0].folder_id: no channel folder 99',
        'subscriptions[46].user_id: no user 999',
        'channels[2].can_add_subscribers_group.direct_members[1]: no user 99',
      ]),
    );
  });

  it('refuses an unarchived channel that is both private and web-public, and reads a stored one back', () => {
    const s = base();
    Object.assign(s['channels']![0]!, { invite_only: true, is_web_public: true });
    Object.assign(s['channels']![1]!, { invite_only: true, is_web_public: true, is_archived: true });
    const parsed = parseRealm(s);
    expect(parsed.ok ? [] : parsed.error.issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      'channels[0].is_web_public: a channel cannot be both private (invite_only) and web-public unless it is archived',
    ]);
    // A store written before the rule holds such a realm: its checkpoint still reads back.
    const stored = parseStoredRealm(s);
    expect(
      stored.ok && stored.state.channels.get(s['channels']![0]!['stream_id'] as number)?.is_web_public,
    ).toBe(true);
  });

  it('says which part of a group-setting value is wrong, not just "Invalid input"', () => {
    const s = base();
    s['channels']![0]!['can_send_message_group'] = 'role:nonsense';
    s['channels']![1]!['can_send_message_group'] = { direct_members: [4] };
    s['realm'] = { can_manage_all_groups: 0, nmae: 'x' } as unknown as Array<Record<string, unknown>>;
    const parsed = parseRealm(s);
    expect(parsed.ok ? [] : parsed.error.issues.map((i) => `${i.path}: ${i.message}`)).toEqual(
      expect.arrayContaining([
        'channels[0].can_send_message_group: "role:nonsense" is not a system group name',
        'channels[1].can_send_message_group.direct_subgroups: Invalid input: expected array, received undefined',
        'realm.can_manage_all_groups: Too small: expected number to be >0',
        'realm: Unrecognized key: "nmae"',
      ]),
    );
  });

  it('refuses duplicate ids and names', () => {
    const s = base();
    s['users']!.push({ ...s['users']![0]!, api_key: 'Z'.repeat(32) });
    s['channels']!.push({ stream_id: 77, name: 'VERONA' });
    expect(() => realmFromUnknown(s)).toThrow(
      /duplicate user_id 1[\s\S]*duplicate email[\s\S]*duplicate name "verona"/,
    );
  });

  it('refuses any mutation of a valid snapshot into an invalid one, with a path', () => {
    const mutations: Array<(s: Record<string, Array<Record<string, unknown>>>) => void> = [
      (s) => (s['users']![0]!['role'] = 250),
      (s) => (s['users']![0]!['api_key'] = 'short'),
      (s) => (s['channels']![0]!['stream_id'] = -1),
      (s) => (s['messages']![0]!['stream_id'] = 12345),
      (s) => (s['user_groups']![0]!['direct_subgroup_ids'] = [4242]),
      (s) => (s['channels']![0]!['can_send_message_group'] = 'role:nonsense'),
      (s) => s['messages']!.push({ ...s['messages']![0]! }),
      (s) => (s['saved_snippets']![0]!['user_id'] = 9999),
    ];
    // Each mutation once: a property over seven constants drew each about fourteen times, and a
    // load of the dev snapshot costs most of a second on a busy machine (the test neared its limit).
    for (const mutate of mutations) {
      const s = looseDevSnapshot();
      mutate(s);
      let error: unknown;
      try {
        realmFromUnknown(s);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(SnapshotError);
      expect((error as SnapshotError).issues.length).toBeGreaterThan(0);
      for (const issue of (error as SnapshotError).issues) expect(issue.path).not.toBe('');
    }
  });
});
