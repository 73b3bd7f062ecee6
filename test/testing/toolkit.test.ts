import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createRealm,
  editChannel,
  getOwnUser,
  handleApiRequest,
  snapshotRealm,
  unsubscribe,
} from '../../src/index';
import {
  HEAVY_USER_ID,
  RealmBuilder,
  Session,
  actAs,
  assertEvent,
  assertSuccess,
  eventsFor,
  realmBuilder,
  seededRandom,
  simulateRealm,
} from '../../src/testing/index';
import {
  arbActor,
  arbApiRequest,
  arbOperationCall,
  arbParams,
  arbRealm,
  arbSnapshot,
} from '../../src/testing/arbitraries';
import { editChannel as editChannelOp } from '../../src/ops/channels/editChannel';
import { devRealm, testCtx } from '../support/realm';
import { loose } from '../support/loose';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('realmBuilder', () => {
  const state = realmBuilder()
    .realm({ name: 'Acme' })
    .user({ full_name: 'Iago', role: 200 })
    .user({ full_name: 'Hamlet' })
    .user({ user_id: 10, full_name: 'Ten' })
    .user()
    .group({ name: 'team', members: [1, 2] })
    .channel({ name: 'Verona' }, [1, 2])
    .channel({ name: 'Secret', invite_only: true }, [1])
    .message({ sender_id: 2, stream_id: 1, topic: 'lunch', content: 'hi' })
    .message({ sender_id: 1, to: [2], content: 'psst' })
    .build({ random: seededRandom(1) });

  it('numbers users, channels and messages for you, after explicit ids', () => {
    expect([...state.users.keys()]).toEqual([1, 2, 10, 11]);
    expect(state.users.get(11)?.delivery_email).toBe('user11@example.com');
    expect(state.users.get(2)?.api_key).toHaveLength(32);
    expect([...state.channels.keys()]).toEqual([1, 2]);
    expect(state.messages.count).toBe(2);
    expect(state.realm.name).toBe('Acme');
  });

  it('subscribes the given users and loads groups', () => {
    expect([...(state.subscriptions.get(1)?.keys() ?? [])]).toEqual([1, 2]);
    expect(state.groupsByName.get('team')).toBe(101);
  });

  it('gives a snapshot that createRealm loads again, and a fresh copy each time', () => {
    const b = new RealmBuilder().user().channel({ name: 'x' }, [1]);
    const s1 = b.toSnapshot();
    const s2 = b.toSnapshot();
    expect(s1).toEqual(s2);
    expect(s1).not.toBe(s2);
    expect(snapshotRealm(createRealm(s1)).users).toHaveLength(1);
  });

  it('fails like createRealm on a bad record', () => {
    expect(() => realmBuilder().user().message({ sender_id: 7, stream_id: 1, content: 'x' }).build()).toThrow(
      /Invalid realm snapshot/,
    );
  });

  it('accepts other sections through add()', () => {
    const s = realmBuilder()
      .user()
      .add('linkifiers', { id: 1, pattern: '#(?P<id>[0-9]+)', url_template: 'https://example.com/{id}' })
      .build();
    expect(s.linkifiers).toHaveLength(1);
  });
});

describe('Session and actAs', () => {
  it('threads the state through calls and keeps every result', () => {
    const realm = devRealm();
    const iago = actAs(realm, 2, testCtx());
    iago.run('editChannel', { stream_id: 1, description: 'One' });
    iago.run('editChannel', { stream_id: 1, description: 'Two' });
    expect(iago.state.channels.get(1)?.description).toBe('Two');
    expect(iago.results.map((r) => r.status)).toEqual([200, 200]);
    expect(realm.channels.get(1)?.description).toBe('A city in Italy');
  });

  it('keeps the state on errors', () => {
    const hamlet = new Session(devRealm(), 4, testCtx());
    const before = hamlet.state;
    const r = hamlet.run('editChannel', { stream_id: 1, description: 'Mine' });
    expect(r.status).toBe(400);
    expect(hamlet.state).toBe(before);
  });

  it('refuses an unknown operation name', () => {
    const s = actAs(devRealm(), 4);
    expect(() => s.run('noSuchOperation' as 'getOwnUser')).toThrow(/no operation noSuchOperation/);
  });
});

describe('event and result assertions', () => {
  const r = editChannel(devRealm(), { userId: 2 }, { stream_id: 1, description: 'New' }, testCtx());

  it('eventsFor lists what one user receives', () => {
    const forHamlet = eventsFor(r, 4);
    expect(forHamlet.length).toBeGreaterThan(0);
    expect(forHamlet).toContainEqual(
      expect.objectContaining({ type: 'stream', op: 'update', property: 'description' }),
    );
    expect(eventsFor(r, 12_345)).toEqual([]);
  });

  it('assertEvent finds a matching event, optionally for a user, and explains a miss', () => {
    expect(assertEvent(r, { type: 'stream', property: 'description' }).users).toContain(2);
    expect(assertEvent(r, { value: 'New' }, 4).event['type']).toBe('stream');
    expect(() => assertEvent(r, { type: 'stream' }, 12_345)).toThrow(/for user 12345/);
    expect(() => assertEvent(r, { type: 'stream', value: 'Old' })).toThrow(/no event matching/);
  });

  it('assertSuccess returns the body or throws with the error', () => {
    expect(assertSuccess(getOwnUser(devRealm(), { userId: 4 }))['user_id']).toBe(4);
    const failed = unsubscribe(devRealm(), { userId: 4 }, { subscriptions: ['No such channel'] }, testCtx());
    expect(() => assertSuccess(failed)).toThrow(/operation failed with 400/);
  });
});

describe('simulateRealm', () => {
  it('is deterministic for a seed and honours the counts', () => {
    const a = simulateRealm({ preset: 'small', seed: 3, users: 20, messages: 150 });
    const b = simulateRealm({ preset: 'small', seed: 3, users: 20, messages: 150 });
    expect(a.messages.count).toBe(150);
    expect(snapshotRealm(a)).toEqual(snapshotRealm(b));
    expect(a.users.get(HEAVY_USER_ID)?.is_active).toBe(true);
  });
});

describe('arbitraries', () => {
  it('arbSnapshot gives snapshots createRealm accepts', () => {
    fc.assert(
      fc.property(arbSnapshot(), (s) => {
        expect(() => createRealm(structuredClone(s))).not.toThrow();
      }),
      { numRuns: 60 },
    );
  });

  it('arbRealm respects its bounds', () => {
    fc.assert(
      fc.property(arbRealm({ users: 3, channels: 2, messages: 4 }), (s) => {
        expect(s.users.maxKey()).toBeLessThanOrEqual(3);
        expect(s.channels.maxKey()).toBeLessThanOrEqual(2);
        expect(s.messages.count).toBeLessThanOrEqual(4);
      }),
      { numRuns: 40 },
    );
  });

  it('arbActor draws users of the realm, unknown ids and the spectator', () => {
    const realm = devRealm();
    const seen = new Set(
      fc
        .sample(arbActor(realm), { numRuns: 400, seed: 1 })
        .map((a) => ('userId' in a ? a.userId : 'anonymous')),
    );
    expect(seen).toContain('anonymous');
    expect(seen).toContain(0);
    for (const id of [1, 4, 10, 14]) expect(seen).toContain(id);
  });

  it('arbParams only uses declared parameter names, plus the odd unknown one', () => {
    const declared = new Set(editChannelOp.def.params.map((p) => p.name));
    const samples = fc.sample(arbParams(editChannelOp, devRealm()), { numRuns: 200, seed: 2 });
    const names = new Set(samples.flatMap((p) => Object.keys(p)));
    const unknown = [...names].filter((n) => !declared.has(n));
    expect(unknown.length).toBeGreaterThan(0);
    expect(unknown.every((n) => ['unknown_param', 'client', 'anchor_date'].includes(n))).toBe(true);
    expect(names).toContain('stream_id');
  });

  it('library calls never throw; errors keep the state and send nothing', () => {
    const realm = devRealm();
    fc.assert(
      fc.property(arbOperationCall(realm), ({ operation, actor, params }) => {
        const r = loose(operation)(realm, actor, params, testCtx());
        if (r.body.result === 'error') {
          expect(r.state).toBe(realm);
          expect(r.events).toEqual([]);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('wire requests never throw and authenticate with real credentials', () => {
    const realm = devRealm();
    let authenticated = 0;
    fc.assert(
      fc.property(arbApiRequest(realm), (request) => {
        const r = handleApiRequest(realm, request, testCtx());
        expect(r.status).toBeGreaterThanOrEqual(200);
        if (r.status !== 401) authenticated++;
        if (r.body.result === 'error') expect(r.state).toBe(realm);
      }),
      { numRuns: 150 },
    );
    expect(authenticated).toBeGreaterThan(50);
  });
});

describe('packaging', () => {
  /** Relative imports reachable from a module (static `import`/`export … from` only). */
  function reachable(entry: string): Map<string, string> {
    const seen = new Map<string, string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      const text = readFileSync(file, 'utf8');
      seen.set(file, text);
      for (const m of text.matchAll(/^(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gm)) {
        const base = resolve(dirname(file), m[1]!);
        visit(existsSync(`${base}.ts`) ? `${base}.ts` : resolve(base, 'index.ts'));
      }
    };
    visit(resolve(ROOT, entry));
    return seen;
  }

  it('keeps fast-check out of chat-realm and chat-realm/testing (it is an optional peer)', () => {
    for (const entry of ['src/index.ts', 'src/testing/index.ts']) {
      const offenders = [...reachable(entry)]
        .filter(([, text]) => /from\s+'fast-check'/.test(text))
        .map(([f]) => f);
      expect(offenders).toEqual([]);
    }
  });
});
