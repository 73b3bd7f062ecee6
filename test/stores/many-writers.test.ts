/**
 * Several writers on one realm in PostgreSQL at the same time, applying conflicting operations
 * (each appends a mark to the same user's name). With DATABASE_URL: four processes. Without it:
 * four handles in this process sharing one PGlite instance (PGlite is single-connection and
 * in-process, so it cannot be shared by processes). Either way: no acknowledged change is lost,
 * and the final state equals a serial replay of the acknowledged changes in version order. Three
 * ways: the default (a batch appends without the write lock, and after losing a race runs again
 * holding it: with processes, that retry never loses, so one retry is enough), the lock for every
 * batch (`writeLock: 'always'`: the writers take turns and never conflict), and no lock at all
 * (`lockWrites: false`: they conflict and retry).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRealm } from '../../src/host/realm-handle';
import { VersionConflictError } from '../../src/host/errors';
import type { RealmStore } from '../../src/host/store';
import { postgresStore } from '../../src/stores/postgres/index';
import { createRealm } from '../../src/core/snapshot/create';
import { snapshotRealm } from '../../src/core/snapshot/export';
import type { RealmState } from '../../src/core/state';
import { ALL_OPS, appendMark } from '../support/host-ops';
import { cast, devSnapshot } from '../support/realm';
import { openDatabase, uniqueSchema, usingServer, type PgHandle } from './pg-backing';

const WRITERS = 4;
const EACH = 25;
const CHILD = new URL('./multi-child.ts', import.meta.url).pathname;
const ROOT = new URL('../..', import.meta.url).pathname;

let db: PgHandle;
const schema = uniqueSchema();
beforeAll(async () => {
  db = await openDatabase();
}, 60_000);
afterAll(async () => {
  await db.client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await db.end();
});

interface Ack {
  version: number;
  mark: string;
}

type Mode = 'contended' | 'always' | 'optimistic';

/**
 * One writer process. It says `ready` once its handle is open and waits for `go` on its stdin, so
 * that the writers start together: processes that start a second apart (tsx compiling under load)
 * would otherwise each finish their few writes before the next begins, and never race.
 */
function child(
  id: string,
  realm: string,
  mode: Mode,
  retries: number,
  hooks: { spawned(p: ChildProcessWithoutNullStreams): void; ready(p: ChildProcessWithoutNullStreams): void },
): Promise<{ acks: Ack[]; conflicts: number }> {
  return new Promise((resolve, reject) => {
    const args = [schema, id, String(EACH), realm, mode, String(retries)];
    const p = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { cwd: ROOT });
    hooks.spawned(p);
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => {
      const before = out;
      out += d.toString();
      if (!before.includes('ready\n') && out.includes('ready\n')) hooks.ready(p);
    });
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('error', reject);
    p.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`writer ${id} exited with ${code}: ${err}`));
      const acks: Ack[] = [];
      let conflicts = 0;
      for (const line of out.split('\n')) {
        const [word, a, b] = line.split(' ');
        if (word === 'ack') acks.push({ version: Number(a), mark: b! });
        if (word === 'conflicts') conflicts = Number(a);
      }
      resolve({ acks, conflicts });
    });
  });
}

/** The writer processes, released together once every one is ready (or at once if one fails). */
async function children(realm: string, mode: Mode, retries: number) {
  const all: ChildProcessWithoutNullStreams[] = [];
  let ready = 0;
  const go = () => {
    for (const q of all) if (!q.stdin.writableEnded) q.stdin.end('go\n');
  };
  const hooks = {
    spawned: (p: ChildProcessWithoutNullStreams) => all.push(p),
    ready: () => {
      if (++ready === WRITERS) go();
    },
  };
  try {
    return await Promise.all(['a', 'b', 'c', 'd'].map((id) => child(id, realm, mode, retries, hooks)));
  } finally {
    go();
  }
}

/** Four handles in this process on one PGlite, each with its own store, interleaving their writes. */
async function inProcess(realm: string, mode: Mode): Promise<{ acks: Ack[]; conflicts: number }> {
  let conflicts = 0;
  const counting = (store: RealmStore): RealmStore => ({
    ...store,
    appendBatch: (changes, expected) =>
      store.appendBatch(changes, expected).catch((error: unknown) => {
        if (error instanceof VersionConflictError) conflicts++;
        throw error;
      }),
  });
  const handles = await Promise.all(
    Array.from({ length: WRITERS }, async () =>
      openRealm({
        store: counting(
          await postgresStore({ client: db.client, realm, schema, lockWrites: mode !== 'optimistic' }),
        ),
        operations: ALL_OPS,
        maxRetries: 1000,
        writeLock: mode === 'always' ? 'always' : 'contended',
      }),
    ),
  );
  const acks: Ack[] = [];
  await Promise.all(
    handles.map(async (h, w) => {
      for (let i = 0; i < EACH; i++) {
        const mark = `[${'abcd'[w]}${i}]`;
        const r = await h.run(appendMark, { userId: cast.hamlet }, { mark });
        acks.push({ version: r.version, mark });
      }
    }),
  );
  for (const h of handles) await h.close();
  return { acks, conflicts };
}

describe.each([
  // One retry suffices: it runs holding the lock, and appends never land inside another's turn.
  // (Handles sharing one PGlite share its one session, which the lock cannot tell apart.)
  { mode: 'contended', retries: usingServer ? 1 : 1000, title: 'the lock after a lost race (default)' },
  { mode: 'always', retries: 1000, title: "taking turns (writeLock: 'always')" },
  { mode: 'optimistic', retries: 1000, title: 'optimistic (lockWrites: false)' },
] as const)(
  `many writers on one realm (${usingServer ? `${WRITERS} processes, PostgreSQL` : `${WRITERS} handles, one PGlite`}), $title`,
  ({ mode, retries }) => {
    it('loses no acknowledged change and ends in the state of a serial replay', async () => {
      const realm = `multi_${mode}`;
      const init = await openRealm({
        store: await postgresStore({ client: db.client, realm, schema }),
        snapshot: devSnapshot(),
      });
      const initial = init.state;
      await init.close();

      const results = usingServer ? await children(realm, mode, retries) : [await inProcess(realm, mode)];
      const acks = results.flatMap((r) => r.acks).sort((x, y) => x.version - y.version);
      const conflicts = results.reduce((n, r) => n + r.conflicts, 0);

      expect(acks).toHaveLength(WRITERS * EACH);
      // Every acknowledged change has its own version, and they are 1..n without gaps.
      expect(acks.map((a) => a.version)).toEqual(Array.from({ length: WRITERS * EACH }, (_, i) => i + 1));
      // The writers really raced: at least two of them were interleaved with another.
      const interleaved = [...'abcd'].filter((w) => {
        const versions = acks.filter((a) => a.mark.startsWith(`[${w}`)).map((a) => a.version);
        return versions.length > 0 && versions.at(-1)! - versions[0]! + 1 > versions.length;
      });
      expect(interleaved.length).toBeGreaterThanOrEqual(2);
      // Taking turns never conflicts; optimistic processes do (and retry), and so do processes that
      // lock only after a lost race. (Handles sharing one PGlite in this process rarely do: their
      // queries take turns in PGlite's single connection.)
      if (mode === 'always') expect(conflicts).toBe(0);
      else if (usingServer) expect(conflicts).toBeGreaterThan(0);

      const loaded = await openRealm({
        store: await postgresStore({ client: db.client, realm, schema }),
        operations: ALL_OPS,
      });
      expect(loaded.version).toBe(WRITERS * EACH);

      let serial: RealmState = createRealm(snapshotRealm(initial));
      for (const a of acks) {
        const r = appendMark(serial, { userId: cast.hamlet }, { mark: a.mark });
        expect(r.status).toBe(200);
        serial = r.state;
      }
      expect(snapshotRealm(loaded.state)).toEqual(snapshotRealm(serial));
      expect(loaded.state.users.get(cast.hamlet)?.full_name).toBe(
        initial.users.get(cast.hamlet)!.full_name + acks.map((a) => a.mark).join(''),
      );
      await loaded.close();
    }, 120_000);
  },
);
