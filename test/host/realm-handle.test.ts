import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { openRealm, type RealmHandle } from '../../src/host/realm-handle';
import { sealChange, openChange } from '../../src/host/change';
import { sealCheckpoint } from '../../src/host/checkpoint';
import { checksum } from '../../src/host/checksum';
import {
  CorruptStoreError,
  PersistError,
  RealmClosedError,
  ReplayMismatchError,
  UnsupportedFormatError,
  VersionConflictError,
} from '../../src/host/errors';
import type { RealmStore } from '../../src/host/store';
import { memoryStore } from '../../src/stores/memory/index';
import { sqliteStore } from '../../src/stores/sqlite/index';
import { snapshotRealm } from '../../src/core/snapshot/export';
import { seededRandom } from '../../src/core/context';
import {
  createSavedSnippet,
  deleteTopic,
  sendMessage,
  updateMessageFlagsForNarrow,
  updateSettings,
} from '../../src/ops/index';
import { basicAuthHeader } from '../../src/wire/auth';
import { devRealm, devSnapshot, cast } from '../support/realm';
import { ALL_OPS, appendMark, randomSnippet } from '../support/host-ops';

const hamlet = { userId: cast.hamlet };
const ctx = { now: 1795219200, random: seededRandom(5) };

async function fresh(options: { store?: RealmStore; checkpoints?: false | { everyChanges?: number } } = {}) {
  const store = options.store ?? memoryStore();
  const handle = await openRealm({
    store,
    snapshot: devSnapshot(),
    ctx,
    operations: ALL_OPS,
    ...(options.checkpoints === undefined ? {} : { checkpoints: options.checkpoints }),
  });
  return { store, handle };
}

/** A memory store whose appends fail while `failing` is set. */
function flakyStore() {
  const inner = memoryStore();
  const state = { failing: false };
  const store: RealmStore = {
    ...inner,
    appendBatch: (changes, expected) =>
      state.failing ? Promise.reject(new Error('disk full')) : inner.appendBatch(changes, expected),
  };
  return { store, inner, state };
}

describe('realm handle', () => {
  it('does not acknowledge a change it could not persist, and leaves the realm as it was', async () => {
    const { store, inner, state } = flakyStore();
    const { handle } = await fresh({ store });
    const heard: number[] = [];
    handle.subscribe((n) => heard.push(n.version));
    const before = handle.state;
    state.failing = true;
    const error = await handle.run(appendMark, hamlet, { mark: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PersistError);
    expect((error as PersistError).cause).toEqual(new Error('disk full'));
    expect((error as Error).message).toBe('Change 1 could not be persisted: disk full');
    expect(handle.state).toBe(before);
    expect(handle.version).toBe(0);
    expect(heard).toEqual([]);
    state.failing = false;
    const ok = await handle.run(appendMark, hamlet, { mark: 'y' });
    expect(ok.version).toBe(1);
    expect(handle.state.users.get(cast.hamlet)?.full_name).toMatch(/[^x]y$/);
    expect(inner.records.changes).toHaveLength(1);
  });

  it('runs operations one at a time, in call order', async () => {
    const { handle } = await fresh();
    const results = await Promise.all(
      'abcdefgh'.split('').map((mark) => handle.run(appendMark, hamlet, { mark })),
    );
    expect(results.map((r) => r.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(handle.state.users.get(cast.hamlet)?.full_name).toMatch(/abcdefgh$/);
  });

  it('answers with the operation result and the version it left', async () => {
    const { handle } = await fresh();
    const r = await handle.run(randomSnippet, hamlet, { content: 'hi' });
    expect(r).toMatchObject({
      status: 200,
      version: 1,
      body: { result: 'success', msg: '', saved_snippet_id: expect.any(Number) },
    });
    expect(r.state).toBe(handle.state);
  });

  it('refuses operations it could not replay, and params that are not JSON', async () => {
    const { handle } = await fresh();
    await expect(handle.run('nope', hamlet, {})).rejects.toThrow(/nope is not among the handle's operations/);
    // @ts-expect-error -- a bigint is not a string (and not JSON): refused at run time too
    await expect(handle.run(appendMark, hamlet, { mark: 10n })).rejects.toThrow(/JSON-serializable/);
    const other = await openRealm({ store: memoryStore(), snapshot: devSnapshot(), ctx });
    await expect(other.run(appendMark, hamlet, { mark: 'a' })).rejects.toThrow(TypeError);
  });

  it('runs an operation on the JSON form of its params, as a replay will', async () => {
    const { handle, store } = await fresh();
    // @ts-expect-error -- `extra` is not a parameter (reported as ignored at run time)
    await handle.run(appendMark, hamlet, { mark: 'z', extra: undefined });
    const again = await openRealm({ store, operations: ALL_OPS });
    expect(snapshotRealm(again.state)).toEqual(snapshotRealm(handle.state));
  });

  it('rejects work after close', async () => {
    const { handle } = await fresh();
    await handle.close();
    await expect(handle.run(appendMark, hamlet, { mark: 'a' })).rejects.toBeInstanceOf(RealmClosedError);
    await handle.close();
  });

  it('needs a snapshot to start an empty store', async () => {
    await expect(openRealm({ store: memoryStore({ name: 'mem-x' }) })).rejects.toThrow(/mem-x is empty/);
  });

  it('ignores the snapshot when the store already holds the realm', async () => {
    const { handle, store } = await fresh();
    await handle.run(appendMark, hamlet, { mark: 'q' });
    const again = await openRealm({
      store,
      snapshot: { format: 'chat-realm.snapshot/1' },
      operations: ALL_OPS,
    });
    expect(again.version).toBe(1);
  });

  it('writes checkpoints automatically after `everyChanges` changes', async () => {
    const { handle, store } = await fresh({ checkpoints: { everyChanges: 3 } });
    for (const mark of 'abcdefg') await handle.run(appendMark, hamlet, { mark });
    // Written in the background, one at a time: at 3, then at 6 (or at 7, if 3 was still being
    // written when change 6 was acknowledged).
    await vi.waitFor(async () => expect((await store.load()).checkpoint?.version).toBeGreaterThanOrEqual(6));
    const loaded = await store.load();
    expect(loaded.changes.map((c) => c.version)).toEqual(loaded.checkpoint?.version === 6 ? [7] : []);
  });

  it('writes a checkpoint on close unless told not to', async () => {
    const { handle, store } = await fresh();
    await handle.run(appendMark, hamlet, { mark: 'a' });
    await handle.close();
    expect((await store.load()).checkpoint?.version).toBe(1);
    const quiet = await fresh({ checkpoints: false });
    await quiet.handle.run(appendMark, hamlet, { mark: 'a' });
    await quiet.handle.close();
    expect((await quiet.store.load()).checkpoint?.version).toBe(0);
  });

  it('keeps going when a subscriber throws', async () => {
    const onBackgroundError = vi.fn();
    const handle = await openRealm({
      store: memoryStore(),
      snapshot: devSnapshot(),
      ctx,
      operations: ALL_OPS,
      onBackgroundError,
    });
    handle.subscribe(() => {
      throw new Error('boom');
    });
    const r = await handle.run(appendMark, hamlet, { mark: 'a' });
    expect(r.version).toBe(1);
    expect(onBackgroundError).toHaveBeenCalledWith(new Error('boom'));
  });

  it('retries an operation that lost a race, on the caught-up state', async () => {
    const shared = memoryStore();
    const { handle: h1 } = await fresh({ store: shared });
    // h2 misses h1's change once when catching up, as if h1 appended between h2's read and write.
    let hide = true;
    const racy: RealmStore = {
      ...shared,
      changesSince: async (after) => (hide ? ((hide = false), []) : shared.changesSince(after)),
    };
    const h2 = await openRealm({ store: racy, ctx, operations: ALL_OPS });
    await h1.run(appendMark, hamlet, { mark: '1' });
    const r = await h2.run(appendMark, hamlet, { mark: '2' });
    expect(r.version).toBe(2);
    expect(h2.state.users.get(cast.hamlet)?.full_name).toMatch(/12$/);
  });

  it('gives up after maxRetries conflicts with a PersistError caused by the conflict', async () => {
    const shared = memoryStore();
    const { handle: h1 } = await fresh({ store: shared });
    const blind: RealmStore = { ...shared, changesSince: async () => [] };
    const h2 = await openRealm({ store: blind, ctx, operations: ALL_OPS, maxRetries: 2 });
    await h1.run(appendMark, hamlet, { mark: '1' });
    const error = await h2.run(appendMark, hamlet, { mark: '2' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PersistError);
    expect((error as PersistError).cause).toBeInstanceOf(VersionConflictError);
    expect(h2.version).toBe(0);
  });

  it('records the random bytes an operation used (and only those)', async () => {
    const { handle, store } = await fresh();
    await handle.run(randomSnippet, hamlet, { content: 'x' });
    await handle.run(appendMark, hamlet, { mark: 'm' });
    const [first, second] = (await store.changesSince(0)).map((c, i, all) =>
      openChange(c, 'test', i === 0 ? 0 : all[i - 1]!.checksum),
    );
    expect(atob(first!.random)).toHaveLength(6);
    expect(first!.now).toBe(1795219200);
    expect(second!.random).toBe('');
  });
});

describe('realm handle: the Zulip operations', () => {
  const flagParams = {
    anchor: 'oldest',
    num_before: 0,
    num_after: 100,
    narrow: [],
    op: 'add',
    flag: 'starred',
  };
  it('persists and replays them to the same realm', async () => {
    const { handle, store } = await fresh();
    const events: string[] = [];
    handle.subscribe((n) => events.push(...n.events.map((e) => e.event.type)));
    expect((await handle.run(updateSettings, hamlet, { full_name: 'Hamlet II' })).status).toBe(200);
    expect((await handle.run(createSavedSnippet, hamlet, { title: 't', content: 'c' })).status).toBe(200);
    expect((await handle.run(updateMessageFlagsForNarrow, hamlet, flagParams)).status).toBe(200);
    expect(handle.version).toBe(3);
    expect(events).toContain('update_message_flags');
    // A flag update stores the request, not the rows it changed.
    const [, , flags] = await store.changesSince(0);
    expect(flags!.payload.length).toBeLessThan(600);
    const again = await openRealm({ store, operations: ALL_OPS });
    expect(again.version).toBe(3);
    expect(snapshotRealm(again.state)).toEqual(snapshotRealm(handle.state));
  });
});

describe('realm handle: sending messages', () => {
  it('replays sends to the same messages, ids and timestamps (the clock is recorded)', async () => {
    const store = memoryStore();
    let clock = 1795219200;
    const handle = await openRealm({
      store,
      snapshot: devSnapshot(),
      ctx: { now: () => clock++ },
      operations: ALL_OPS,
    });
    const ids: number[] = [];
    for (const content of ['one', 'two @**all**', 'three']) {
      const r = await handle.run(sendMessage, hamlet, {
        type: 'stream',
        to: 'Verona',
        topic: 'replayed',
        content,
      });
      ids.push((r.body as unknown as { id: number }).id);
    }
    const dm = await handle.run(sendMessage, hamlet, {
      type: 'direct',
      to: [cast.cordelia],
      content: 'psst',
    });
    ids.push((dm.body as unknown as { id: number }).id);
    expect(ids).toEqual([ids[0]!, ids[0]! + 1, ids[0]! + 2, ids[0]! + 3]);
    // Far later, with another clock: the replay uses the recorded times.
    clock = 1999999999;
    const again = await openRealm({ store, operations: ALL_OPS });
    expect(again.version).toBe(4);
    expect(snapshotRealm(again.state)).toEqual(snapshotRealm(handle.state));
    // And through a binary checkpoint of the appended chunks.
    await handle.close();
    const fromCheckpoint = await openRealm({ store, operations: ALL_OPS });
    expect(snapshotRealm(fromCheckpoint.state)).toEqual(snapshotRealm(again.state));
  });
});

describe('realm handle: message ids after a restart (sqlite)', () => {
  it('never gives again the id of a deleted newest message, replaying the log or from a checkpoint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chat-realm-ids-'));
    const open = (snapshot?: ReturnType<typeof devSnapshot>) =>
      openRealm({
        store: sqliteStore({ filename: join(dir, 'realm.db'), realm: 'ids' }),
        ...(snapshot === undefined ? {} : { snapshot }),
        ctx,
        operations: ALL_OPS,
        checkpoints: false,
      });
    const send = async (handle: RealmHandle) =>
      (
        (
          await handle.run(sendMessage, hamlet, {
            type: 'stream',
            to: 'Verona',
            topic: 'doomed',
            content: 'x',
          })
        ).body as unknown as { id: number }
      ).id;
    try {
      const first = await open(devSnapshot());
      const id = await send(first);
      const deleted = await first.run(
        deleteTopic,
        { userId: cast.iago },
        { stream_id: 1, topic_name: 'doomed' },
      );
      expect(deleted.status).toBe(200);
      await first.close(); // no checkpoint: the next open replays the whole log
      const replayed = await open();
      expect(replayed.state.messages.lastId).toBe(id);
      expect(await send(replayed)).toBe(id + 1);
      await replayed.run(deleteTopic, { userId: cast.iago }, { stream_id: 1, topic_name: 'doomed' });
      await replayed.checkpoint(); // taken with the newest message deleted
      await replayed.close();
      const fromCheckpoint = await open();
      expect(fromCheckpoint.state.messages.lastId).toBe(id + 1);
      expect(await send(fromCheckpoint)).toBe(id + 2);
      await fromCheckpoint.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('realm handle: wire requests', () => {
  const headers = (id: number) => {
    const u = devRealm().users.get(id)!;
    return { authorization: basicAuthHeader(u.delivery_email, u.api_key) };
  };

  it('answers refused and failed requests without writing', async () => {
    const { handle, store } = await fresh();
    const anonymous = await handle.request({
      method: 'POST',
      url: '/api/v1/saved_snippets',
      body: 'title=a',
    });
    expect(anonymous.status).toBe(401);
    const wrong = await handle.request({
      method: 'GET',
      url: '/api/v1/nowhere',
      headers: headers(cast.hamlet),
    });
    expect(wrong.status).toBe(404);
    expect(handle.version).toBe(0);
    expect(await store.changesSince(0)).toEqual([]);
  });

  it('stores a request without its credentials and replays it as the same user', async () => {
    const { handle, store } = await fresh();
    const r = await handle.request({
      method: 'POST',
      url: '/api/v1/saved_snippets',
      headers: headers(cast.hamlet),
      body: 'title=Hello&content=World',
    });
    expect(r.status).toBe(200);
    expect(r.version).toBe(1);
    const [stored] = await store.changesSince(0);
    expect(stored!.payload).not.toContain('authorization');
    // Only what a replay needs: the operation's parameters, as fields.
    expect(openChange(stored!, 'test', 0).input).toEqual({
      kind: 'request',
      actor: hamlet,
      method: 'POST',
      url: '/api/v1/saved_snippets',
      body: { title: 'Hello', content: 'World' },
    });
    const again = await openRealm({ store, operations: ALL_OPS });
    expect(snapshotRealm(again.state)).toEqual(snapshotRealm(handle.state));
    void createSavedSnippet;
  });
});

describe('realm handle: refusing bad stores', () => {
  async function storeWith(mutate: (store: ReturnType<typeof memoryStore>) => void) {
    const { handle, store } = await fresh({ checkpoints: false });
    for (const mark of 'abc') await handle.run(appendMark, hamlet, { mark });
    mutate(store as ReturnType<typeof memoryStore>);
    return openRealm({ store, operations: ALL_OPS }).catch((e: unknown) => e);
  }
  // A record rewritten with a valid checksum, chained to change 1 as a writer would have.
  const reseal = (s: ReturnType<typeof memoryStore>, payload: string) => ({
    version: 2,
    payload,
    checksum: checksum(payload, s.records.changes[0]!.checksum),
  });

  it('refuses a change whose replay gives another status', async () => {
    const error = await storeWith((s) => {
      const chain = s.records.changes[0]!.checksum;
      const c = openChange(s.records.changes[1]!, 'x', chain);
      s.records.changes[1] = sealChange({ ...c, status: 201 }, chain);
    });
    expect(error).toBeInstanceOf(ReplayMismatchError);
    expect((error as Error).message).toBe(
      'Replaying change 2 diverged from the recorded result: status 200, recorded 201',
    );
  });

  it('refuses a change that now fails', async () => {
    const error = await storeWith((s) => {
      const chain = s.records.changes[0]!.checksum;
      const c = openChange(s.records.changes[1]!, 'x', chain);
      s.records.changes[1] = sealChange(
        { ...c, input: { ...c.input, params: { mark: '' } } as typeof c.input },
        chain,
      );
    });
    expect(error).toBeInstanceOf(ReplayMismatchError);
    expect((error as Error).message).toMatch(/change 2 .*status 400, recorded 200/);
  });

  it('refuses a missing change', async () => {
    const error = await storeWith((s) => s.records.changes.splice(1, 1));
    expect(error).toBeInstanceOf(CorruptStoreError);
    expect((error as Error).message).toBe(
      'Corrupt realm store at memory, change 3: expected change 2 next (a change is missing)',
    );
  });

  it('refuses a record from a newer format', async () => {
    const error = await storeWith((s) => {
      s.records.changes[1] = reseal(s, s.records.changes[1]!.payload.replace('"format":3', '"format":9'));
    });
    expect(error).toBeInstanceOf(UnsupportedFormatError);
    expect((error as Error).message).toMatch(
      /memory, change 2 has format 9; this chat-realm reads formats up to 4/,
    );
  });

  it('refuses records that are not JSON or not changes', async () => {
    const notJson = await storeWith((s) => {
      s.records.changes[1] = reseal(s, '{"format":3,');
    });
    expect((notJson as Error).message).toBe(
      'Corrupt realm store at memory, change 2: the record is not valid JSON',
    );
    const shape = await storeWith((s) => {
      s.records.changes[1] = reseal(
        s,
        s.records.changes[1]!.payload.replace('"kind":"call"', '"kind":"other"'),
      );
    });
    expect(shape).toBeInstanceOf(CorruptStoreError);
    expect((shape as Error).message).toMatch(/change 2: malformed change \(input\.kind/);
    const noFormat = await storeWith((s) => {
      s.records.changes[1] = reseal(s, s.records.changes[1]!.payload.replace('"format":3,', ''));
    });
    expect((noFormat as Error).message).toMatch(/change 2: the record has no format version/);
  });

  it('refuses a damaged or invalid checkpoint, naming it', async () => {
    const damaged = await storeWith((s) => {
      const cp = s.records.checkpoints[0]!;
      s.records.checkpoints[0] = { ...cp, payload: cp.payload.slice(0, 1000) };
    });
    expect((damaged as Error).message).toBe(
      'Corrupt realm store at memory, checkpoint 0: checksum mismatch (the checkpoint is damaged or truncated)',
    );
    const invalid = await storeWith((s) => {
      // @ts-expect-error -- an invalid snapshot: a compile error, and refused when the store is read
      s.records.checkpoints[0] = sealCheckpoint(0, { format: 'chat-realm.snapshot/1', users: 'none' });
    });
    expect(invalid).toBeInstanceOf(CorruptStoreError);
    expect((invalid as Error).message).toMatch(
      /^Corrupt realm store at memory, checkpoint 0: the snapshot is invalid/,
    );
  });
});
