/**
 * The realm's write lease in PostgreSQL (src/stores/postgres/lease.ts) and the fence every append
 * of a leased store carries: one holder at a time, takeover only after expiry with a new token,
 * and a fenced old holder's appends refused with nothing written. Against DATABASE_URL when set,
 * else PGlite (pg-backing.ts). Zulip has no counterpart (one Tornado process per realm shard);
 * the shape follows fencing tokens as in Kleppmann's "How to do distributed locking".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeaseLostError, PersistError } from '../../src/host/errors';
import { openRealm } from '../../src/host/realm-handle';
import { postgresStore } from '../../src/stores/postgres/index';
import { RealmLease, renewLeases } from '../../src/stores/postgres/lease';
import { ALL_OPS, appendMark } from '../support/host-ops';
import { cast, devSnapshot } from '../support/realm';
import { openDatabase, uniqueSchema, type PgHandle } from './pg-backing';

let db: PgHandle;
const schemas: string[] = [];
beforeAll(async () => {
  db = await openDatabase();
}, 60_000);
afterAll(async () => {
  for (const s of schemas) await db.client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
  await db.end();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Two processes' leases on one realm, ticked by hand (no timers), and their stores. */
async function pair(ttlMs: number) {
  const schema = uniqueSchema();
  schemas.push(schema);
  const lease = (holder: string) =>
    new RealmLease({ client: db.client, realm: 'r', schema, holder, address: `http://${holder}`, ttlMs });
  const a = lease('a');
  const b = lease('b');
  const store = (l: RealmLease) =>
    postgresStore({ client: db.client, realm: 'r', schema, lease: l, lockWrites: false, listen: false });
  // start() would renew on a timer; these tests tick by hand, so only the table is made here.
  const sa = await store(a);
  const sb = await store(b);
  return { a, b, sa, sb, schema };
}

const change = (version: number) => ({ version, payload: JSON.stringify({ v: version }), checksum: version });

describe('realm lease', () => {
  it('is held by one process at a time; the other sees where to send writes', async () => {
    const { a, b } = await pair(60_000);
    await a.tick();
    await b.tick();
    expect(a.token).toBe(1);
    expect(b.token).toBeUndefined();
    expect(a.route).toBe('self');
    expect(b.route).toEqual({ address: 'http://a', secret: 'a' });
    // Renewing keeps the token.
    await a.tick();
    expect(a.token).toBe(1);
  });

  it('refuses the appends of a process without the lease, writing nothing', async () => {
    const { a, b, sa, sb } = await pair(60_000);
    await a.tick();
    await b.tick();
    await sa.append(change(1), 0);
    await expect(sb.append(change(2), 1)).rejects.toBeInstanceOf(LeaseLostError);
    await expect(sb.appendBatch([change(2), change(3)], 1)).rejects.toBeInstanceOf(LeaseLostError);
    expect((await sa.changesSince(0)).map((c) => c.version)).toEqual([1]);
  });

  it('is taken over only after it expires, with a new token that fences the old holder', async () => {
    // Long enough that b's lease outlives the slowest backing's queries (PGlite) below.
    const { a, b, sa, sb } = await pair(1000);
    await a.tick();
    await b.tick();
    expect(b.token).toBeUndefined();
    await sleep(1100); // a stalls past its lease
    await b.tick();
    expect(b.token).toBe(2);
    // a still believes it holds token 1: its late appends are refused by the fence, and it learns
    // that it lost the lease from the refusal.
    const lost: boolean[] = [];
    a.onChange((held) => lost.push(held));
    const late = await sa.appendBatch([change(1)], 0).catch((e: unknown) => e);
    expect(late).toBeInstanceOf(LeaseLostError);
    expect((late as LeaseLostError).current).toBe(2);
    expect(a.token).toBeUndefined();
    expect(lost).toEqual([false]);
    expect(await sa.changesSince(0)).toEqual([]);
    // Its renewal fails too, and it now routes to b.
    await b.tick();
    await a.tick();
    expect(a.token).toBeUndefined();
    expect(a.route).toEqual({ address: 'http://b', secret: 'b' });
    await sb.appendBatch([change(1)], 0);
    expect((await sb.changesSince(0)).map((c) => c.version)).toEqual([1]);
  });

  it('is not taken over while it is renewed', async () => {
    const { a, b } = await pair(300);
    await a.tick();
    for (let i = 0; i < 4; i++) {
      await sleep(100);
      await a.tick();
      await b.tick();
      expect(b.token).toBeUndefined();
      expect(a.token).toBe(1);
    }
  });

  it('renews many realms in one statement; one taken over meanwhile is reported lost', async () => {
    const schema = uniqueSchema();
    schemas.push(schema);
    await postgresStore({ client: db.client, realm: 'r0', schema, listen: false });
    const lease = (realm: string, holder: string) =>
      new RealmLease({ client: db.client, realm, schema, holder, address: `http://${holder}`, ttlMs: 1000 });
    const mine = ['r0', 'r1', 'r2'].map((r) => lease(r, 'p'));
    for (const l of mine) await l.tick();
    expect(mine.map((l) => l.token)).toEqual([1, 1, 1]);
    await sleep(1100); // all three expire; another process takes r1
    const other = lease('r1', 'q');
    await other.tick();
    expect(other.token).toBe(2);
    const lost: string[] = [];
    for (const l of mine) l.onChange((held) => held || lost.push(l.options.realm));
    const queries: string[] = [];
    const counting = {
      query: (text: string, params?: unknown[]) => (queries.push(text), db.client.query(text, params)),
    };
    await renewLeases(counting, mine);
    expect(queries).toHaveLength(1);
    expect(mine.map((l) => l.token)).toEqual([1, undefined, 1]);
    expect(lost).toEqual(['r1']);
    // The renewed ones are alive again: nobody else can take them.
    const late = lease('r0', 'q');
    await late.tick();
    expect(late.token).toBeUndefined();
    expect(late.route).toEqual({ address: 'http://p', secret: 'p' });
  });

  it('is free at once when released', async () => {
    const { a, b } = await pair(60_000);
    await a.tick();
    await a.release();
    await b.tick();
    expect(b.token).toBe(2);
  });

  it('a follower (take: false) never takes it', async () => {
    const schema = uniqueSchema();
    schemas.push(schema);
    const f = new RealmLease({
      client: db.client,
      realm: 'r',
      schema,
      address: 'x',
      ttlMs: 100,
      take: false,
    });
    await db.client.query('SELECT 1');
    await postgresStore({ client: db.client, realm: 'r', schema, listen: false });
    await f.tick();
    expect(f.token).toBeUndefined();
    expect(f.route).toBeUndefined();
  });

  it('a fenced handle rejects the batch with PersistError (cause LeaseLostError) and keeps its state', async () => {
    const { a, b, sa, sb } = await pair(150);
    await a.tick();
    const ha = await openRealm({ store: sa, snapshot: devSnapshot(), operations: ALL_OPS });
    await ha.run(appendMark, { userId: cast.hamlet }, { mark: '1' });
    expect(ha.version).toBe(1);
    await sleep(200);
    await b.tick();
    const hb = await openRealm({ store: sb, operations: ALL_OPS });
    const before = ha.state;
    const error = await ha.run(appendMark, { userId: cast.hamlet }, { mark: '2' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PersistError);
    expect((error as PersistError).cause).toBeInstanceOf(LeaseLostError);
    expect(ha.state).toBe(before);
    expect(ha.version).toBe(1);
    // The new holder continues from the last committed change.
    const ok = await hb.run(appendMark, { userId: cast.hamlet }, { mark: '3' });
    expect(ok.version).toBe(2);
    expect(hb.state.users.get(cast.hamlet)!.full_name.endsWith('13')).toBe(true);
    await ha.close();
    await hb.close();
  });
});
