/**
 * `serve --database-url URL --all-realms` (issue 30, placement): the process serves every realm of
 * the database whose write lease it can take, up to `--max-realms`, each under the path prefix
 * `/realm/<name>` (`/realm/<name>/api/v1/...`). Other processes take the rest. Every quarter of
 * the lease it renews all its leases with one statement, closes the realms it lost, and takes free or expired ones while
 * it has room, so the realms of a process that died are picked up by the survivors within about
 * one lease. A request for a realm held by another process is passed on to that process (its
 * answer returned as it is); for a realm nobody holds yet, 503.
 *
 * Each held realm is a leased store and handle, as `serve --lease` (writes are appended with the
 * realm's fencing token); here no process follows a realm it does not hold: all of a realm's
 * requests go to its holder, so memory per process is only its own realms.
 */
import { withEventQueues, type LiveRealm } from '../host/live-realm';
import { openRealm, type RealmHandle } from '../host/realm-handle';
import type { RealmStore } from '../host/store';
import { decodePercentOrRaw } from '../core/url';
import { createFetchHandler } from '../server/fetch';
import { serveNode, type NodeServer } from '../server/node';
import type { FetchHandler } from '../server/types';
import type { PgQueryable } from '../stores/postgres/index';
import { leaseTable, leaseTableDdl, RealmLease, renewLeases } from '../stores/postgres/lease';

export const REALM_PREFIX = '/realm/';
const NAME = /^[A-Za-z0-9_.-]{1,100}$/;

interface Held {
  readonly lease: RealmLease;
  readonly store: RealmStore;
  readonly handle: RealmHandle;
  readonly live: LiveRealm;
  readonly fetch: FetchHandler;
}

export interface PlacementOptions {
  readonly url: string;
  readonly schema?: string | undefined;
  readonly maxRealms: number;
  readonly ttlMs: number;
  readonly port: number;
  readonly host: string;
  readonly advertise?: string | undefined;
  readonly onError: (message: string, error: unknown) => void;
}

export interface Placement {
  readonly server: NodeServer;
  /** The realms this process holds now. */
  held(): string[];
  /** One round: renew, drop lost realms, take free ones (also run on a timer). */
  tick(): Promise<void>;
  stop(): Promise<void>;
}

export async function startPlacement(options: PlacementOptions): Promise<Placement> {
  const pg = (await import('pg')).default;
  const { postgresStore } = await import('../stores/postgres/index');
  const pool = new pg.Pool({
    connectionString: options.url,
    max: 4,
    application_name: 'chat-realm-placement',
  });
  const db: PgQueryable = pool;
  const schema = options.schema ?? 'public';
  const leases = leaseTable(schema);
  await db.query(leaseTableDdl(leases)).catch((error: unknown) => {
    if ((error as { code?: unknown }).code !== '23505') throw error;
  });
  const held = new Map<string, Held>();
  const opening = new Set<string>();
  const loading = new Set<RealmLease>();
  let address = options.advertise ?? '';
  let stopping = false;

  /** Where a realm's requests go: here, another process, or nobody yet (read per request: one query). */
  async function holderOf(realm: string): Promise<string | undefined> {
    const { rows } = await db.query(`SELECT address FROM ${leases} WHERE realm = $1 AND expires_at > now()`, [
      realm,
    ]);
    return (rows[0] as { address: string } | undefined)?.address;
  }

  const handler: FetchHandler = async (request) => {
    const url = new URL(request.url);
    if (!url.pathname.startsWith(REALM_PREFIX))
      return json(404, 'Serve a realm under /realm/<name>/api/v1/…');
    // A malformed escape stays raw, and `NAME` then refuses it.
    const name = decodePercentOrRaw(url.pathname.slice(REALM_PREFIX.length).split('/')[0] ?? '');
    if (!NAME.test(name)) return json(404, 'No such realm');
    const mine = held.get(name);
    if (mine) return mine.fetch(request);
    const elsewhere = await holderOf(name);
    if (elsewhere === undefined || elsewhere === address)
      return json(503, `No process serves realm ${name} now; try again`);
    if (request.headers.get('x-chat-realm-hops') !== null) return json(503, `Realm ${name} moved; try again`);
    const headers = new Headers(request.headers);
    headers.set('x-chat-realm-hops', '1');
    headers.delete('host');
    const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
    try {
      const answer = await fetch(new URL(url.pathname + url.search, elsewhere), {
        method: request.method,
        headers,
        ...(hasBody ? { body: await request.arrayBuffer() } : {}),
        signal: AbortSignal.timeout(Math.max(10_000, 3 * options.ttlMs)),
      });
      return new Response(await answer.arrayBuffer(), { status: answer.status, headers: answer.headers });
    } catch (error) {
      options.onError(`passing ${name}'s request to ${elsewhere}`, error);
      return json(503, `The process serving realm ${name} did not answer`);
    }
  };

  const server = await serveNode({ handler, port: options.port, host: options.host });
  address = options.advertise ?? server.url;

  async function take(realm: string): Promise<void> {
    const lease = new RealmLease({ client: db, realm, schema, address, ttlMs: options.ttlMs, renewMs: 1e9 });
    await lease.tick();
    if (lease.token === undefined) return;
    // Renewed with the held ones while the realm loads (a large one may take longer than a lease).
    loading.add(lease);
    let store: RealmStore | undefined;
    try {
      // One pool for every realm of the process, no LISTEN connection per realm (the holder is the
      // realm's only writer: nothing to hear about), checkpoint parts on the calling thread.
      store = await postgresStore({ client: pool, realm, schema, lease, lockWrites: false, listen: false });
      const handle = await openRealm({ store });
      const live = withEventQueues(handle);
      const fetchRealm = createFetchHandler({
        realm: live,
        basePath: `${REALM_PREFIX}${encodeURIComponent(realm)}`,
      });
      held.set(realm, { lease, store, handle, live, fetch: fetchRealm });
    } catch (error) {
      await store?.close();
      await lease.release();
      throw error;
    } finally {
      loading.delete(lease);
    }
  }

  async function drop(realm: string, h: Held): Promise<void> {
    held.delete(realm);
    h.live.close();
    await h.handle.close().catch((error: unknown) => options.onError(`closing realm ${realm}`, error));
    await h.lease.release().catch(() => undefined);
  }

  // Renewing and taking are separate rounds: opening realms (loading their checkpoints) can take
  // longer than a lease, and must never delay the renewal of the realms already held.
  let renewing: Promise<void> | undefined;
  let taking: Promise<void> | undefined;
  function renew(): Promise<void> {
    // One statement renews every lease of the process (the realms held and those still loading);
    // a realm whose lease is gone (it stalled, or the database was unreachable too long) is
    // closed here; its new holder serves it.
    renewing ??= (async () => {
      const leases = [...[...held.values()].map((h) => h.lease), ...loading];
      try {
        await renewLeases(db, leases);
      } catch (error) {
        // Nothing learned: the leases stand until they expire (the fence decides every append).
        options.onError('renewing leases', error);
        return;
      }
      await Promise.all([...held].filter(([, h]) => h.lease.token === undefined).map(([r, h]) => drop(r, h)));
    })().finally(() => (renewing = undefined));
    return renewing;
  }
  async function takeFree(): Promise<void> {
    if (stopping || held.size >= options.maxRealms) return;
    // Realms nobody holds (never leased, or expired), in random order so that processes starting
    // together spread out instead of all trying the same realm first.
    const { rows } = await db
      .query(
        `SELECT h.realm FROM "${schema}".chat_realm_heads h LEFT JOIN ${leases} l ON l.realm = h.realm
        WHERE l.realm IS NULL OR l.expires_at < now()
       UNION SELECT c.realm FROM "${schema}".chat_realm_checkpoints c LEFT JOIN ${leases} l ON l.realm = c.realm
        WHERE l.realm IS NULL OR l.expires_at < now()`,
      )
      // No realm tables yet (an empty database): no realms to take.
      .catch((error: unknown) => {
        if ((error as { code?: unknown }).code === '42P01') return { rows: [] };
        throw error;
      });
    const free = (rows as { realm: string }[])
      .map((r) => r.realm)
      .filter((r) => !held.has(r) && !opening.has(r));
    for (let i = free.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [free[i], free[j]] = [free[j]!, free[i]!];
    }
    for (const realm of free) {
      if (stopping || held.size + opening.size >= options.maxRealms) break;
      opening.add(realm);
      try {
        await take(realm);
      } catch (error) {
        options.onError(`opening realm ${realm}`, error);
      } finally {
        opening.delete(realm);
      }
    }
  }
  const tick = async () => {
    await renew();
    await (taking ??= takeFree().finally(() => (taking = undefined)));
  };
  await tick();
  const timer = setInterval(
    () => void tick().catch((e: unknown) => options.onError('placement', e)),
    Math.max(5, Math.floor(options.ttlMs / 4)),
  );

  return {
    server,
    held: () => [...held.keys()].sort(),
    tick,
    async stop() {
      stopping = true;
      clearInterval(timer);
      await Promise.all([renewing, taking].map((p) => p?.catch(() => undefined)));
      try {
        await server.close(2000);
      } finally {
        await Promise.all([...held].map(([realm, h]) => drop(realm, h)));
        await pool.end();
      }
    },
  };
}

function json(status: number, msg: string): Response {
  return new Response(JSON.stringify({ result: 'error', msg }), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}
