/**
 * The conformance suite every store adapter passes: call `storeConformance(name, factory)` from a
 * test file. The factory opens a fresh, empty backing (a file, a schema...) and can open more
 * stores on the *same* backing (another process's view), damage a record, and clean up.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openRealm, type ChangeNotice } from '../../src/host/realm-handle';
import { sealChange } from '../../src/host/change';
import { checksum } from '../../src/host/checksum';
import { CorruptStoreError, VersionConflictError } from '../../src/host/errors';
import type { CheckpointStream, RealmStore, SealedChange, SealedCheckpoint } from '../../src/host/store';
import { snapshotRealm } from '../../src/core/snapshot/export';
import { seededRandom } from '../../src/core/context';
import { devSnapshot, cast } from '../support/realm';
import { ALL_OPS, appendMark, noop, randomSnippet } from '../support/host-ops';
import fc from 'fast-check';
import { createRealm } from '../../src/core/snapshot/create';
import type { RealmState } from '../../src/core/state';
import { plausibleCallsByOp } from '../laws/plausible';
import { wire } from '../support/realm';

export interface StoreBacking {
  /** Opens a store on this backing (each call: a new connection, like another process). */
  open(): Promise<RealmStore>;
  /**
   * Overwrites the stored payload of change `version` (keeping its checksum unless one is given),
   * as disk damage (or a foreign writer) would.
   */
  damageChange(version: number, payload: string, checksum?: number): Promise<void>;
  /** Deletes the changes from `version` on (the end of the log), leaving the head record. */
  dropChangesFrom(version: number): Promise<void>;
  /** Removes everything the backing created. */
  cleanup(): Promise<void>;
  /** Stores that keep checkpoints in parts: how many part rows are stored. */
  countCheckpointParts?(): Promise<number>;
}

export type BackingFactory = () => Promise<StoreBacking>;

const hamlet = { userId: cast.hamlet };
const iago = { userId: cast.iago };
const ctx = (seed = 7) => ({ now: 1795219200, random: seededRandom(seed) });

/** A format-1 checkpoint of any JSON: stores keep payloads without reading them. */
function opaqueCheckpoint(version: number, json: object): SealedCheckpoint {
  const payload = JSON.stringify(json);
  return { version, format: 1, payload, checksum: checksum(payload) };
}

function change(version: number, mark: string): SealedChange {
  return sealChange(
    {
      version,
      input: { kind: 'call', op: appendMark.def.name, actor: hamlet, params: { mark } },
      now: 1795219200,
      random: '',
      status: 200,
    },
    0,
  );
}

export function storeConformance(name: string, factory: BackingFactory): void {
  describe(`${name} store conformance`, () => {
    const backings: StoreBacking[] = [];
    const stores: RealmStore[] = [];
    const fresh = async () => {
      const b = await factory();
      backings.push(b);
      return b;
    };
    const open = async (b: StoreBacking) => {
      const s = await b.open();
      stores.push(s);
      return s;
    };
    afterEach(async () => {
      for (const s of stores.splice(0)) await s.close();
      for (const b of backings.splice(0)) await b.cleanup();
    });

    it('loads an empty store as no checkpoint and no changes', async () => {
      const store = await open(await fresh());
      expect(await store.load()).toEqual({ checkpoint: null, changes: [], head: null });
      expect(await store.changesSince(0)).toEqual([]);
      expect(store.describe).toEqual(expect.any(String));
    });

    it('returns the latest checkpoint and the changes after it, in order, across reopening', async () => {
      const b = await fresh();
      const store = await open(b);
      await store.writeCheckpoint(opaqueCheckpoint(0, { a: 1 }));
      for (let v = 1; v <= 5; v++) await store.append(change(v, `m${v}`), v - 1);
      await store.writeCheckpoint(opaqueCheckpoint(3, { a: 3 }));
      const again = await open(b);
      const loaded = await again.load();
      expect(loaded.checkpoint).toEqual(opaqueCheckpoint(3, { a: 3 }));
      expect(loaded.changes).toEqual([change(4, 'm4'), change(5, 'm5')]);
      expect(await again.changesSince(1)).toEqual([2, 3, 4, 5].map((v) => change(v, `m${v}`)));
      expect(await again.changesSince(5)).toEqual([]);
    });

    it('keeps binary checkpoint payloads byte for byte', async () => {
      const b = await fresh();
      const store = await open(b);
      const payload = new Uint8Array([0, 1, 2, 255, 254, 10, 13, 0]);
      await store.writeCheckpoint({ version: 0, format: 1, payload, checksum: 42 });
      const loaded = await (await open(b)).load();
      expect(loaded.checkpoint?.payload).toEqual(payload);
    });

    it('writes a checkpoint at an existing version as a no-op', async () => {
      const store = await open(await fresh());
      await store.writeCheckpoint(opaqueCheckpoint(0, { first: true }));
      await store.writeCheckpoint(opaqueCheckpoint(0, { second: true }));
      expect((await store.load()).checkpoint).toEqual(opaqueCheckpoint(0, { first: true }));
    });

    // A write interrupted (a crash, a failing stream) and done again at the same version leaves
    // parts under another key; the retry's row makes them unusable, so its pruning deletes them.
    it('prunes the parts of an interrupted checkpoint once the same version is committed', async () => {
      const b = await fresh();
      const store = await open(b);
      const part = new Uint8Array(1000).fill(7);
      const whole = new Uint8Array([...part, ...part]);
      const stream = (fail: boolean): CheckpointStream => ({
        version: 0,
        format: 3,
        parts: (async function* () {
          yield part.slice();
          yield part.slice();
          if (fail) throw new Error('interrupted');
        })(),
        checksum: () => checksum(whole),
      });
      await expect(store.writeCheckpoint(stream(true))).rejects.toThrow('interrupted');
      if (b.countCheckpointParts) expect(await b.countCheckpointParts()).toBe(2);
      await store.writeCheckpoint(stream(false));
      if (b.countCheckpointParts) expect(await b.countCheckpointParts()).toBe(2); // the committed write's only
      const loaded = await store.load();
      expect(loaded.checkpoint?.version).toBe(0);
      expect(loaded.checkpoint?.payload).toEqual(whole);
    });

    it('refuses an append at the wrong version with both versions and writes nothing', async () => {
      const store = await open(await fresh());
      await store.writeCheckpoint(opaqueCheckpoint(0, {}));
      await store.append(change(1, 'a'), 0);
      const stale = await store.append(change(1, 'b'), 0).catch((e: unknown) => e);
      expect(stale).toBeInstanceOf(VersionConflictError);
      expect(stale).toMatchObject({ expected: 0, actual: 1 });
      const ahead = await store.append(change(3, 'c'), 2).catch((e: unknown) => e);
      expect(ahead).toMatchObject({ name: 'VersionConflictError', expected: 2, actual: 1 });
      expect((await store.load()).changes).toEqual([change(1, 'a')]);
    });

    it('lets exactly one of two writers racing for the same version win', async () => {
      const b = await fresh();
      const s1 = await open(b);
      const s2 = await open(b);
      await s1.writeCheckpoint(opaqueCheckpoint(0, {}));
      const outcomes = await Promise.allSettled([s1.append(change(1, 'x'), 0), s2.append(change(1, 'y'), 0)]);
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const lost = outcomes.find((o) => o.status === 'rejected');
      expect((lost as PromiseRejectedResult).reason).toBeInstanceOf(VersionConflictError);
      expect((await s2.load()).changes).toHaveLength(1);
    });

    it('appends a batch in one go, all or nothing, only at the expected version', async () => {
      const b = await fresh();
      const store = await open(b);
      await store.writeCheckpoint(opaqueCheckpoint(0, {}));
      await store.appendBatch([change(1, 'a'), change(2, 'b'), change(3, 'c')], 0);
      await store.appendBatch([], 3);
      await store.append(change(4, 'd'), 3);
      await store.appendBatch([change(5, 'e')], 4);
      const stale = await store.appendBatch([change(5, 'x'), change(6, 'y')], 4).catch((e: unknown) => e);
      expect(stale).toMatchObject({ name: 'VersionConflictError', expected: 4, actual: 5 });
      const gap = await store.appendBatch([change(6, 'x'), change(8, 'y')], 5).catch((e: unknown) => e);
      expect(gap).toBeInstanceOf(VersionConflictError);
      const again = await open(b);
      expect((await again.load()).changes).toEqual(['a', 'b', 'c', 'd', 'e'].map((m, i) => change(i + 1, m)));
    });

    it('lets exactly one of two batches racing for the same versions win, and writes none of the other', async () => {
      const b = await fresh();
      const s1 = await open(b);
      const s2 = await open(b);
      await s1.writeCheckpoint(opaqueCheckpoint(0, {}));
      const outcomes = await Promise.allSettled([
        s1.appendBatch([change(1, 'x1'), change(2, 'x2')], 0),
        s2.appendBatch([change(1, 'y1'), change(2, 'y2'), change(3, 'y3')], 0),
      ]);
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const lost = outcomes.find((o) => o.status === 'rejected');
      expect((lost as PromiseRejectedResult).reason).toBeInstanceOf(VersionConflictError);
      const stored = (await s2.load()).changes.map((c) => c.payload);
      const winner = outcomes[0]!.status === 'fulfilled' ? ['x1', 'x2'] : ['y1', 'y2', 'y3'];
      expect(stored).toEqual(winner.map((m, i) => change(i + 1, m).payload));
    });

    it('lets writers on one backing take turns when the store has a write lock', async () => {
      const b = await fresh();
      const s1 = await open(b);
      const s2 = await open(b);
      if (!s1.exclusive || !s2.exclusive) return;
      const trace: string[] = [];
      const turn = (store: RealmStore, name: string) =>
        store.exclusive!(async () => {
          trace.push(`${name} in`);
          await new Promise((resolve) => setTimeout(resolve, 30));
          trace.push(`${name} out`);
          return name;
        });
      expect(await Promise.all([turn(s1, 'a'), turn(s2, 'b'), turn(s1, 'c')])).toEqual(['a', 'b', 'c']);
      for (let i = 0; i < trace.length; i += 2) expect(trace[i + 1]).toBe(trace[i]!.replace(' in', ' out'));
      // A failed turn releases the lock.
      await expect(s1.exclusive(() => Promise.reject(new Error('inside')))).rejects.toThrow('inside');
      expect(await s2.exclusive(async () => 'free')).toBe('free');
    });

    it('commits concurrent operations of a handle in batches, every one acknowledged and replayable', async () => {
      const b = await fresh();
      const inner = await b.open();
      const batches: number[] = [];
      const store: RealmStore = {
        ...inner,
        describe: inner.describe,
        appendBatch: (changes, expected) => {
          batches.push(changes.length);
          return inner.appendBatch(changes, expected);
        },
      };
      if (inner.exclusive) store.exclusive = (work) => inner.exclusive!(work);
      const h = await openRealm({ store, snapshot: devSnapshot(), ctx: ctx(), operations: ALL_OPS });
      const marks = 'abcdefghijklmnopqrst'.split('');
      const results = await Promise.all(marks.map((mark) => h.run(appendMark, hamlet, { mark })));
      expect(results.map((r) => r.version)).toEqual(marks.map((_, i) => i + 1));
      expect(batches.reduce((x, y) => x + y, 0)).toBe(marks.length);
      expect(batches.length).toBeLessThan(marks.length);
      const before = snapshotRealm(h.state);
      await h.close();
      const again = await openRealm({ store: await open(b), operations: ALL_OPS });
      expect(again.version).toBe(marks.length);
      expect(snapshotRealm(again.state)).toEqual(before);
      expect(again.state.users.get(cast.hamlet)?.full_name).toMatch(/abcdefghijklmnopqrst$/);
      await again.close();
    });

    it('persists a realm handle and reopens it at the same version and state, random bytes and clock replayed', async () => {
      const b = await fresh();
      const h = await openRealm({
        store: await b.open(),
        snapshot: devSnapshot(),
        ctx: ctx(),
        operations: ALL_OPS,
      });
      expect(h.version).toBe(0);
      await h.run(appendMark, hamlet, { mark: '!' });
      const snip = await h.run(randomSnippet, iago, { content: 'hello' });
      expect(snip.status).toBe(200);
      expect(h.version).toBe(2);
      const before = snapshotRealm(h.state);
      await h.close();
      // Another clock and random source: the replay must use the recorded ones.
      const again = await openRealm({
        store: await b.open(),
        ctx: { now: 1, random: seededRandom(999) },
        operations: ALL_OPS,
      });
      expect(again.version).toBe(2);
      expect(snapshotRealm(again.state)).toEqual(before);
      expect(again.state.users.get(cast.hamlet)?.full_name).toMatch(/!$/);
      await again.close();
    });

    it('writes nothing for a failed or no-op operation', async () => {
      const b = await fresh();
      const store = await b.open();
      const h = await openRealm({ store, snapshot: devSnapshot(), ctx: ctx(), operations: ALL_OPS });
      const failed = await h.run(appendMark, hamlet, { mark: '' });
      expect(failed.status).toBe(400);
      const none = await h.run(noop, hamlet, {});
      expect(none.status).toBe(200);
      expect(h.version).toBe(0);
      expect(await store.changesSince(0)).toEqual([]);
      await h.close();
    });

    it('gives subscribers each change with its events, in version order, after it is stored', async () => {
      const b = await fresh();
      const store = await b.open();
      const h = await openRealm({ store, snapshot: devSnapshot(), ctx: ctx(), operations: ALL_OPS });
      const seen: Array<{ notice: ChangeNotice; stored: number }> = [];
      const stop = h.subscribe((notice) => {
        seen.push({ notice, stored: -1 });
      });
      await Promise.all(['a', 'b', 'c'].map((mark) => h.run(appendMark, hamlet, { mark })));
      stop();
      await h.run(appendMark, hamlet, { mark: 'd' });
      expect(seen.map((s) => s.notice.version)).toEqual([1, 2, 3]);
      expect(seen[2]!.notice.events[0]?.event).toMatchObject({
        type: 'realm_user',
        person: { full_name: expect.stringMatching(/abc$/) },
      });
      expect((await store.changesSince(0)).map((c) => c.version)).toEqual([1, 2, 3, 4]);
      await h.close();
    });

    it('loads from the latest checkpoint plus the changes after it', async () => {
      const b = await fresh();
      const h = await openRealm({
        store: await b.open(),
        snapshot: devSnapshot(),
        ctx: ctx(),
        operations: ALL_OPS,
        checkpoints: false,
      });
      for (const mark of ['1', '2', '3']) await h.run(appendMark, hamlet, { mark });
      await h.checkpoint();
      for (const mark of ['4', '5']) await h.run(appendMark, hamlet, { mark });
      const before = snapshotRealm(h.state);
      await h.close();
      const store = await open(b);
      const loaded = await store.load();
      expect(loaded.checkpoint?.version).toBe(3);
      expect(loaded.changes.map((c) => c.version)).toEqual([4, 5]);
      const again = await openRealm({ store: await b.open(), operations: ALL_OPS });
      expect(snapshotRealm(again.state)).toEqual(before);
      await again.close();
    });

    it('lets a second handle on the same backing catch up before its next operation, and tells its subscribers', async () => {
      const b = await fresh();
      const h1 = await openRealm({
        store: await b.open(),
        snapshot: devSnapshot(),
        ctx: ctx(1),
        operations: ALL_OPS,
      });
      const h2 = await openRealm({ store: await b.open(), ctx: ctx(2), operations: ALL_OPS });
      const heard: number[] = [];
      h2.subscribe((n) => heard.push(n.version));
      await h1.run(appendMark, hamlet, { mark: 'A' });
      const r = await h2.run(appendMark, hamlet, { mark: 'B' });
      expect(r.version).toBe(2);
      expect(h2.state.users.get(cast.hamlet)?.full_name).toMatch(/AB$/);
      expect(heard).toEqual([1, 2]);
      await h1.catchUp();
      expect(snapshotRealm(h1.state)).toEqual(snapshotRealm(h2.state));
      await h1.close();
      await h2.close();
    });

    it('refuses a damaged change with an error naming it, never loading half-way', async () => {
      const b = await fresh();
      const h = await openRealm({
        store: await b.open(),
        snapshot: devSnapshot(),
        ctx: ctx(),
        operations: ALL_OPS,
        checkpoints: false,
      });
      for (const mark of ['1', '2', '3']) await h.run(appendMark, hamlet, { mark });
      await h.close();
      const good = (await (await open(b)).changesSince(1))[0]!;
      await b.damageChange(2, good.payload.slice(0, good.payload.length - 5));
      const error = await openRealm({ store: await open(b), operations: ALL_OPS }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CorruptStoreError);
      expect((error as Error).message).toMatch(/change 2: checksum mismatch/);
    });

    it('records the head with every append, in the same transaction', async () => {
      const store = await open(await fresh());
      await store.writeCheckpoint(opaqueCheckpoint(0, {}));
      expect((await store.load()).head).toBeNull();
      await store.append(change(1, 'a'), 0);
      const second = change(2, 'b');
      await store.append(second, 1);
      expect((await store.load()).head).toEqual({ version: 2, checksum: second.checksum });
      await store.append(change(2, 'c'), 1).catch(() => undefined); // refused: the head stays
      expect((await store.load()).head).toEqual({ version: 2, checksum: second.checksum });
    });

    it('refuses a change that does not chain to the one before it, naming it', async () => {
      const b = await fresh();
      const h = await openRealm({
        store: await b.open(),
        snapshot: devSnapshot(),
        ctx: ctx(),
        operations: ALL_OPS,
        checkpoints: false,
      });
      for (const mark of ['1', '2', '3']) await h.run(appendMark, hamlet, { mark });
      await h.close();
      // A well-formed record with a valid checksum of its own, but not of the log: replaced.
      const forged = change(2, 'X');
      await b.damageChange(2, forged.payload, forged.checksum);
      const error = await openRealm({ store: await open(b), operations: ALL_OPS }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CorruptStoreError);
      expect((error as Error).message).toMatch(
        /change 2: the record does not follow the change before it \(its checksum chain is broken/,
      );
    });

    it('refuses a log that lost changes at its end, naming the first missing one', async () => {
      const b = await fresh();
      const h = await openRealm({
        store: await b.open(),
        snapshot: devSnapshot(),
        ctx: ctx(),
        operations: ALL_OPS,
        checkpoints: false,
      });
      for (const mark of ['1', '2', '3', '4', '5']) await h.run(appendMark, hamlet, { mark });
      await h.close();
      await b.dropChangesFrom(4);
      const error = await openRealm({ store: await open(b), operations: ALL_OPS }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CorruptStoreError);
      expect((error as Error).message).toMatch(
        /, change 4: the change log ends at change 3, but the store's head is change 5 \(changes 4–5 are missing\)$/,
      );
    });

    it('prunes changes older than the oldest kept checkpoint, and still loads', async () => {
      const b = await fresh();
      const h = await openRealm({
        store: await b.open(),
        snapshot: devSnapshot(),
        ctx: ctx(),
        operations: ALL_OPS,
        checkpoints: false,
      });
      for (let round = 1; round <= 3; round++) {
        for (const mark of ['a', 'b']) await h.run(appendMark, hamlet, { mark });
        await h.checkpoint(); // at 2, 4, 6
      }
      await h.run(appendMark, hamlet, { mark: 'z' });
      await h.checkpoint(); // at 7: kept 6 and 7, and the changes from 6 on
      const before = snapshotRealm(h.state);
      await h.close();
      const store = await open(b);
      expect((await store.changesSince(0)).map((c) => c.version)).toEqual([6, 7]);
      const again = await openRealm({ store: await b.open(), operations: ALL_OPS });
      expect(again.version).toBe(7);
      expect(snapshotRealm(again.state)).toEqual(before);
      await again.close();
    });

    it('keeps the edit history of random edits, moves and deletions across checkpoints and reopening (property)', async () => {
      // Just after the dev realm's last message, so content edits are within their time limit.
      const editCtx = () => ({ now: 1735699600, random: seededRandom(3) });
      const initial = createRealm(devSnapshot());
      const byOp = plausibleCallsByOp(initial);
      const edits = fc.oneof(
        { arbitrary: byOp.get('updateMessage')!, weight: 4 },
        { arbitrary: byOp.get('deleteMessage')!, weight: 1 },
      );
      /** The edits, and what clients read of them (every message's GET …/history). */
      const observed = (s: RealmState) => ({
        edits: [...s.messages.edits],
        histories: [...s.messages.edits].map(
          ([id]) => wire(s, 'iago', 'GET', `/messages/${id}/history`).body,
        ),
      });
      let editedRuns = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(edits, { minLength: 1, maxLength: 8 }), fc.nat(8), async (calls, cut) => {
          const b = await fresh();
          const h = await openRealm({
            store: await b.open(),
            snapshot: devSnapshot(),
            ctx: editCtx(),
            operations: ALL_OPS,
            checkpoints: false,
          });
          for (const [i, c] of calls.entries()) {
            if (i === cut) await h.checkpoint();
            await h.run(c.op.def.name, { userId: c.userId }, c.params as never);
          }
          const before = snapshotRealm(h.state);
          const seen = observed(h.state);
          if (seen.edits.length > 0) editedRuns++;
          await h.close();
          // From the checkpoint (if taken) and the change log, then from a checkpoint of it all.
          const replayed = await openRealm({
            store: await b.open(),
            operations: ALL_OPS,
            checkpoints: false,
          });
          expect(observed(replayed.state)).toEqual(seen);
          expect(snapshotRealm(replayed.state)).toEqual(before);
          await replayed.checkpoint();
          await replayed.close();
          const again = await openRealm({ store: await b.open(), operations: ALL_OPS, checkpoints: false });
          expect(observed(again.state)).toEqual(seen);
          expect(snapshotRealm(again.state)).toEqual(before);
          await again.close();
        }),
        { numRuns: 6, seed: 11 },
      );
      // The sequences did edit something (else the property says nothing).
      expect(editedRuns).toBeGreaterThan(0);
    }, 240_000);

    it('writes a checkpoint handed over in parts and reads it back whole', async () => {
      const b = await fresh();
      const store = await open(b);
      const bytes = new Uint8Array(150_000).map((_, i) => (i * 7) & 0xff);
      async function* parts() {
        for (let at = 0; at < bytes.length; at += 1 << 16) yield bytes.subarray(at, at + (1 << 16));
      }
      await store.writeCheckpoint({ version: 0, format: 3, parts: parts(), checksum: () => 42 });
      const loaded = await (await open(b)).load();
      expect(loaded.checkpoint).toMatchObject({ version: 0, format: 3, checksum: 42 });
      expect(loaded.checkpoint?.payload).toEqual(bytes);
    });
  });
}
