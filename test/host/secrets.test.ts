import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { seededRandom, type PasswordHasher } from '../../src/core/context';
import { defaultPasswordHasher } from '../../src/core/passwords';
import { errors } from '../../src/core/errors';
import { defineOperation } from '../../src/core/operation';
import { param } from '../../src/core/params';
import { edit, failure, success } from '../../src/core/result';
import { putUser } from '../../src/core/state-edit';
import { snapshotRealm } from '../../src/core/snapshot/export';
import { CHANGE_FORMAT, openChange, sealChange, type Change } from '../../src/host/change';
import { checksum } from '../../src/host/checksum';
import { PersistError, ReplayMismatchError } from '../../src/host/errors';
import { PlaybackPasswordHasher, RecordingPasswordHasher } from '../../src/host/passwords';
import { PlaybackRandom, toBase64 } from '../../src/host/random';
import { openRealm, type RealmHandle } from '../../src/host/realm-handle';
import { REDACTED, isSecretName, redactInput } from '../../src/host/redact';
import type { RealmStore } from '../../src/host/store';
import { memoryStore, type MemoryStore } from '../../src/stores/memory/index';
import { sqliteStore } from '../../src/stores/sqlite/index';
import { updateSettings } from '../../src/ops/index';
import { basicAuthHeader } from '../../src/wire/auth';
import { cast, devSnapshot } from '../support/realm';
import { ALL_OPS } from '../support/host-ops';

const OLD = 'Old-Secret-4711';
const NEW = 'Brand-New-Secret-0815';
const hamlet = { userId: cast.hamlet };
const ctx = { now: 1795219200, random: seededRandom(5) };

/** The dev realm with a password for hamlet that appears nowhere else. */
function snapshot() {
  const s = devSnapshot();
  const user = s.users.find((u) => u['user_id'] === cast.hamlet)!;
  user['password'] = OLD;
  return s;
}

/** A hasher that fails the test if a replay calls it. */
const refusingHasher: PasswordHasher = {
  hash: () => {
    throw new Error('the replay hashed a password');
  },
  verify: () => {
    throw new Error('the replay verified a password');
  },
};

interface Backing {
  open(): RealmStore;
  /** Every stored change payload, read back from the storage itself. */
  changePayloads(): string[];
  /** Every byte the backing holds, as text (for searching). */
  rawText(): string;
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const backings: Array<[string, () => Backing]> = [
  [
    'memory',
    () => {
      const store = memoryStore();
      return {
        open: () => store,
        changePayloads: () => store.records.changes.map((c) => c.payload),
        rawText: () =>
          [
            ...store.records.changes.map((c) => c.payload),
            ...store.records.checkpoints.map((c) =>
              typeof c.payload === 'string' ? c.payload : Buffer.from(c.payload).toString('latin1'),
            ),
          ].join('\n'),
      };
    },
  ],
  [
    'sqlite',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'chat-realm-secrets-'));
      dirs.push(dir);
      const filename = join(dir, 'realm.db');
      return {
        open: () => sqliteStore({ filename, realm: 'secrets' }),
        changePayloads: () => {
          const db = new Database(filename, { readonly: true });
          try {
            return db
              .prepare<[], { payload: string }>('SELECT payload FROM changes ORDER BY version')
              .all()
              .map((r) => r.payload);
          } finally {
            db.close();
          }
        },
        rawText: () =>
          ['', '-wal', '-journal']
            .map((suffix) => filename + suffix)
            .filter((f) => existsSync(f))
            .map((f) => readFileSync(f).toString('latin1'))
            .join('\n'),
      };
    },
  ],
];

async function open(backing: Backing, passwords?: PasswordHasher): Promise<RealmHandle> {
  return openRealm({
    store: backing.open(),
    snapshot: snapshot(),
    ctx: { ...ctx, ...(passwords ? { passwords } : {}) },
    operations: ALL_OPS,
    checkpoints: false,
  });
}

/** `present`: a string the stored bytes must hold (a control that the search sees the records). */
function expectNoSecrets(backing: Backing, present: string, ...secrets: string[]) {
  const payloads = backing.changePayloads();
  const raw = backing.rawText();
  expect(raw).toContain(present);
  for (const secret of secrets) {
    for (const p of payloads) expect(p).not.toContain(secret);
    expect(raw).not.toContain(secret);
    // Also not URL-encoded or as UTF-16 (what a careless adapter might write).
    expect(raw).not.toContain(encodeURIComponent(secret));
    expect(raw).not.toContain(Buffer.from(secret, 'utf16le').toString('latin1'));
  }
}

/** Reopens the store (replaying every change, no checkpoint since 0) with a hasher that must not be used. */
async function reopen(backing: Backing): Promise<RealmHandle> {
  const again = await openRealm({
    store: backing.open(),
    ctx: { ...ctx, passwords: refusingHasher },
    operations: ALL_OPS,
    checkpoints: false,
  });
  expect(again.version).toBeGreaterThan(0);
  return again;
}

function authorization(handle: RealmHandle) {
  const user = handle.state.users.get(cast.hamlet)!;
  return { authorization: basicAuthHeader(user.delivery_email, user.api_key) };
}

describe.each(backings)('password changes on a %s store', (_name, makeBacking) => {
  it('stores a library-call password change without either password, and replays it to the same hash', async () => {
    const backing = makeBacking();
    const handle = await open(backing);
    const before = handle.state.users.get(cast.hamlet)!.password_hash;
    const r = await handle.run(updateSettings, hamlet, { old_password: OLD, new_password: NEW });
    expect(r.status).toBe(200);
    expect(r.version).toBe(1);
    const hash = handle.state.users.get(cast.hamlet)!.password_hash!;
    expect(hash).not.toBe(before);
    expect(defaultPasswordHasher.verify(NEW, hash)).toBe(true);

    const [payload] = backing.changePayloads();
    const change = openChange({ version: 1, payload: payload!, checksum: checksum(payload!) }, 'test', 0);
    expect(change.input).toEqual({
      kind: 'call',
      op: 'updateSettings',
      actor: hamlet,
      params: { old_password: REDACTED, new_password: REDACTED },
    });
    expect(change.passwords).toEqual([{ verify: true }, { hash }]);
    expect(change.redacted).toBe(true);
    // The salt is part of the recorded hash: no random bytes are needed to replay it.
    expect(change.random).toBe('');
    expect(JSON.parse(payload!)['format']).toBe(CHANGE_FORMAT);
    await handle.close();
    expectNoSecrets(backing, hash, OLD, NEW);

    const again = await reopen(backing);
    expect(again.state.users.get(cast.hamlet)!.password_hash).toBe(hash);
    expect(snapshotRealm(again.state)).toEqual(snapshotRealm(handle.state));
    expect(defaultPasswordHasher.verify(NEW, again.state.users.get(cast.hamlet)!.password_hash!)).toBe(true);
    expect(defaultPasswordHasher.verify(OLD, again.state.users.get(cast.hamlet)!.password_hash!)).toBe(false);
    await again.close();
  });

  it('stores wire password changes (form string, parsed fields, query string) without the passwords', async () => {
    const backing = makeBacking();
    const handle = await open(backing);
    const third = 'Third-Secret-Value-99';
    const r1 = await handle.request({
      method: 'PATCH',
      url: '/api/v1/settings',
      headers: authorization(handle),
      body: new URLSearchParams({ old_password: OLD, new_password: NEW, full_name: 'Hamlet P' }).toString(),
    });
    expect(r1.status).toBe(200);
    const r2 = await handle.request({
      method: 'PATCH',
      url: '/api/v1/settings',
      headers: authorization(handle),
      body: { old_password: NEW, new_password: third },
    });
    expect(r2.status).toBe(200);
    const fourth = 'Fourth-Secret-Value-42';
    const r3 = await handle.request({
      method: 'PATCH',
      url: `/api/v1/settings?${new URLSearchParams({ old_password: third, new_password: fourth })}`,
      headers: authorization(handle),
    });
    expect(r3.status).toBe(200);
    expect(handle.version).toBe(3);
    const hash = handle.state.users.get(cast.hamlet)!.password_hash!;
    expect(defaultPasswordHasher.verify(fourth, hash)).toBe(true);
    expect(handle.state.users.get(cast.hamlet)!.full_name).toBe('Hamlet P');

    const inputs = backing
      .changePayloads()
      .map((p, i) => openChange({ version: i + 1, payload: p, checksum: checksum(p) }, 'test', 0).input);
    expect(inputs).toEqual([
      {
        kind: 'request',
        actor: hamlet,
        method: 'PATCH',
        url: '/api/v1/settings',
        // Stored as the operation's parameters (fields), whatever form the request had.
        body: { old_password: REDACTED, new_password: REDACTED, full_name: 'Hamlet P' },
      },
      {
        kind: 'request',
        actor: hamlet,
        method: 'PATCH',
        url: '/api/v1/settings',
        body: { old_password: REDACTED, new_password: REDACTED },
      },
      {
        kind: 'request',
        actor: hamlet,
        method: 'PATCH',
        url: '/api/v1/settings',
        body: { old_password: REDACTED, new_password: REDACTED },
      },
    ]);
    await handle.close();
    expectNoSecrets(backing, hash, OLD, NEW, third, fourth);

    const again = await reopen(backing);
    expect(again.version).toBe(3);
    expect(again.state.users.get(cast.hamlet)!.password_hash).toBe(hash);
    expect(snapshotRealm(again.state)).toEqual(snapshotRealm(handle.state));
    await again.close();
  });

  it('writes nothing for a failed password change', async () => {
    const backing = makeBacking();
    const handle = await open(backing);
    const state = handle.state;
    const wrong = await handle.run(updateSettings, hamlet, { old_password: 'Not-It-123', new_password: NEW });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ result: 'error', msg: 'Wrong password!', code: 'BAD_REQUEST' });
    const weak = await handle.request({
      method: 'PATCH',
      url: '/api/v1/settings',
      headers: authorization(handle),
      body: `old_password=${OLD}&new_password=aaaaaaaa`,
    });
    expect(weak.status).toBe(400);
    expect(weak.body['msg']).toBe('New password is too weak!');
    expect(handle.state).toBe(state);
    expect(handle.version).toBe(0);
    expect(backing.changePayloads()).toEqual([]);
    await handle.close();
    expectNoSecrets(backing, 'King Hamlet', 'Not-It-123', NEW);
  });
});

describe('redaction', () => {
  it('names secrets by their suffix', () => {
    expect(
      ['old_password', 'new_password', 'NEW_PASSWORD', 'password', 'db_Password'].every(isSecretName),
    ).toBe(true);
    expect(['password_hash', 'passwords', 'full_name', 'email'].some(isSecretName)).toBe(false);
  });

  it('names exactly what a case-blind `password$` names, whatever the name', () => {
    const suffixes = fc.constantFrom(
      'password',
      'PassWord',
      'pASSWORD',
      'passwor',
      'ſassword',
      'pa\u017fsword',
      'p@ssword',
      'password ',
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 12 }), suffixes, (head, tail) => {
        const name = head + tail;
        expect(isSecretName(name)).toBe(/password$/i.test(name));
      }),
    );
  });

  it('leaves inputs without secrets as they are (the same object)', () => {
    const call = { kind: 'call', op: 'x', actor: hamlet, params: { full_name: 'A' } } as const;
    expect(redactInput(call)).toEqual({ input: call, redacted: false });
    expect(redactInput(call).input).toBe(call);
    const arrayParams = { kind: 'call', op: 'x', actor: hamlet, params: ['new_password'] } as const;
    expect(redactInput(arrayParams).redacted).toBe(false);
    const request = {
      kind: 'request',
      actor: hamlet,
      method: 'PATCH',
      url: '/api/v1/settings?x=1',
      body: 'a=%20b+c',
    } as const;
    expect(redactInput(request).input).toBe(request);
  });

  it('replaces every value of a secret field, keeping the other fields decoding the same', () => {
    const body = 'new_password=a%26b&x=%C3%A9+%2B&new_password=two&old_password=&foo_password=z';
    const { input, redacted } = redactInput({
      kind: 'request',
      actor: hamlet,
      method: 'PATCH',
      url: '/api/v1/settings?old_password=q%3D1#frag',
      body,
    });
    expect(redacted).toBe(true);
    if (input.kind !== 'request') throw new Error('kind');
    expect([...new URLSearchParams(input.body as string)]).toEqual([
      ['new_password', REDACTED],
      ['x', 'é +'],
      ['new_password', REDACTED],
      ['old_password', REDACTED],
      ['foo_password', REDACTED],
    ]);
    expect(input.url).toBe('/api/v1/settings?old_password=%5Bredacted%5D');
  });

  it('redacts call params of any type under a secret name, at the top level', () => {
    const { input } = redactInput({
      kind: 'call',
      op: 'x',
      actor: hamlet,
      params: { new_password: 12345, other: { old_password: 'kept: not a parameter' }, name: 'n' },
    });
    expect(input).toMatchObject({
      params: { new_password: REDACTED, other: { old_password: 'kept: not a parameter' }, name: 'n' },
    });
  });
});

describe('recorded password hasher', () => {
  it('records answers in order and plays them back without hashing', () => {
    const recording = new RecordingPasswordHasher(defaultPasswordHasher, seededRandom(9));
    const hash = recording.hash('pw-one', seededRandom(1));
    expect(recording.verify('pw-one', hash)).toBe(true);
    expect(recording.verify('nope', hash)).toBe(false);
    expect(recording.recorded()).toEqual([{ hash }, { verify: true }, { verify: false }]);
    // The salt came from the host's own source, not from the one passed in.
    expect(hash).toBe(defaultPasswordHasher.hash('pw-one', seededRandom(9)));

    const playback = new PlaybackPasswordHasher(recording.recorded(), 7);
    expect(playback.hash('anything', seededRandom(2))).toBe(hash);
    expect(playback.exhausted).toBe(false);
    expect(playback.verify('anything', 'x')).toBe(true);
    expect(playback.verify('anything', 'x')).toBe(false);
    expect(playback.exhausted).toBe(true);
    expect(() => playback.verify('a', 'b')).toThrow(
      new ReplayMismatchError(7, 'the replay made more password hasher calls (a verify) than the 3 recorded'),
    );
  });

  it('refuses a call of the other kind', () => {
    const playback = new PlaybackPasswordHasher([{ verify: true }], 3);
    expect(() => playback.hash('a', seededRandom(1))).toThrow(
      'Replaying change 3 diverged from the recorded result: the replay hashed a password where the original verified one',
    );
    const second = new PlaybackPasswordHasher([{ hash: 'h' }], 3);
    expect(() => second.verify('a', 'h')).toThrow(/verified a password where the original hashed one/);
  });
});

describe('loading changes with recorded hasher answers', () => {
  async function storedPasswordChange() {
    const store = memoryStore();
    const handle = await openRealm({
      store,
      snapshot: snapshot(),
      ctx,
      operations: ALL_OPS,
      checkpoints: false,
    });
    await handle.run(updateSettings, hamlet, { old_password: OLD, new_password: NEW });
    await handle.close();
    return { store, handle };
  }
  const reload = (store: MemoryStore) =>
    openRealm({ store, ctx, operations: ALL_OPS, checkpoints: false }).catch((e: unknown) => e);
  const rewrite = (store: MemoryStore, edit: (c: Change) => Change) => {
    const c = openChange(store.records.changes[0]!, 'x', 0);
    store.records.changes[0] = sealChange(edit(c), 0);
  };

  it('refuses a change whose replay makes more hasher calls than recorded', async () => {
    const { store } = await storedPasswordChange();
    rewrite(store, ({ passwords: _p, ...c }) => ({ ...c, passwords: [{ verify: true }] }));
    const error = await reload(store);
    expect(error).toBeInstanceOf(ReplayMismatchError);
    expect((error as Error).message).toBe(
      'Replaying change 1 diverged from the recorded result: the replay made more password hasher calls (a hash) than the 1 recorded',
    );
  });

  it('refuses a change whose replay makes fewer hasher calls than recorded', async () => {
    const { store } = await storedPasswordChange();
    rewrite(store, (c) => ({ ...c, passwords: [...(c.passwords ?? []), { verify: true }] }));
    const error = await reload(store);
    expect((error as Error).message).toMatch(/change 1 .*fewer password hasher calls than recorded/);
  });

  it('takes the recorded verify answer, so a tampered answer changes the outcome and is caught', async () => {
    const { store } = await storedPasswordChange();
    rewrite(store, (c) => ({ ...c, passwords: [{ verify: false }, ...(c.passwords ?? []).slice(1)] }));
    const error = await reload(store);
    expect((error as Error).message).toMatch(/change 1 .*status 400, recorded 200/);
  });

  it('still loads format-1 changes, which stored passwords and replay with the live hasher', async () => {
    const { store } = await storedPasswordChange();
    const salt = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    const legacy = JSON.stringify({
      format: 1,
      version: 1,
      input: {
        kind: 'call',
        op: 'updateSettings',
        actor: hamlet,
        params: { old_password: OLD, new_password: NEW },
      },
      now: ctx.now,
      random: toBase64(salt),
      status: 200,
    });
    store.records.changes[0] = { version: 1, payload: legacy, checksum: checksum(legacy) };
    store.records.head = { version: 1, checksum: checksum(legacy) };
    const again = await openRealm({ store, operations: ALL_OPS, checkpoints: false });
    const hash = again.state.users.get(cast.hamlet)!.password_hash!;
    expect(hash).toBe(defaultPasswordHasher.hash(NEW, new PlaybackRandom(toBase64(salt), 1)));
    expect(defaultPasswordHasher.verify(NEW, hash)).toBe(true);
    expect(openChange(store.records.changes[0], 'x', 0).liveHasher).toBe(true);
    // A migrated record re-sealed is written in the current format and still loads.
    store.records.changes[0] = sealChange(openChange(store.records.changes[0], 'x', 0), 0);
    store.records.head = { version: 1, checksum: store.records.changes[0].checksum };
    const third = await openRealm({ store, operations: ALL_OPS, checkpoints: false });
    expect(third.state.users.get(cast.hamlet)!.password_hash).toBe(hash);
  });
});

/**
 * An operation that looks at a secret's value in a way the redaction marker fails (a PIN of 12+
 * characters; the marker has 10): a stored change would not replay, so it must not be stored.
 */
const setPin = defineOperation({
  name: 'testSetPin',
  method: 'POST',
  path: '/test/set_pin',
  operationId: 'test-set-pin',
  params: [param('pin_password', z.string(), { required: true })],
  handler: ({ state, user, params }) => {
    if ([...params.pin_password].length < 12) return failure(state, errors.badRequest('PIN too short'));
    const next = Object.freeze({ ...user!, full_name: `${user!.full_name} (pin set)` });
    return success(
      edit(state, (draft) => putUser(draft, next)),
      {},
    );
  },
});

describe('a redacted change that would not replay', () => {
  it('is refused before it is stored (PersistError), leaving the realm and the store as they were', async () => {
    const store = memoryStore();
    const handle = await openRealm({
      store,
      snapshot: snapshot(),
      ctx,
      operations: [...ALL_OPS, setPin],
      checkpoints: false,
    });
    const before = handle.state;
    const error = await handle
      .run(setPin, hamlet, { pin_password: 'a-long-secret-pin' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PersistError);
    expect((error as PersistError).cause).toBeInstanceOf(ReplayMismatchError);
    expect((error as Error).message).toBe(
      'Change 1 could not be persisted: Replaying change 1 diverged from the recorded result: status 400, recorded 200',
    );
    expect(handle.state).toBe(before);
    expect(handle.version).toBe(0);
    expect(store.records.changes).toEqual([]);
    await handle.close();
  });
});
