/**
 * A realm's write lease in PostgreSQL: one row per realm naming the process that may append
 * (holder), where other processes send writes (address), until when (expires_at, on the
 * database's clock, so processes' clocks never matter) and the fencing token, incremented by every
 * takeover. The holder renews it every `renewMs`; any process takes it once it has expired.
 *
 * Renewal and takeover are single UPDATEs of the same row, so PostgreSQL orders them: a renewal
 * that comes after a takeover finds another token and fails, a takeover that comes after a
 * renewal finds the lease alive. The store appends with the token (`fence` in postgresStore), so
 * a holder that stalled past its lease (SIGSTOP, a long pause, a partition) and resumes has its
 * appends refused: it learns it lost the lease from that refusal or from its next renewal.
 */
import type { PgQueryable } from './index';

export interface RealmLeaseOptions {
  readonly client: PgQueryable;
  readonly realm: string;
  /** Schema and table prefix, as the store's (the lease table sits beside its tables). */
  readonly schema?: string;
  readonly tablePrefix?: string;
  /** This process's name in the lease row. Default: random, unique per process start. */
  readonly holder?: string;
  /** Where other processes send this realm's writes while this process holds the lease (a URL). */
  address: string;
  /** How long a lease lives without renewal. Default 3000 ms. */
  readonly ttlMs?: number;
  /** How often the holder renews and the others look for an expired lease. Default ttlMs / 4. */
  readonly renewMs?: number;
  /** Whether this process takes the lease when it is free (false: it only follows). Default true. */
  readonly take?: boolean;
  /** Renewals that fail to reach the database (the lease itself is decided by the fence). */
  readonly onError?: (error: unknown) => void;
}

/** The lease row as last read. */
export interface LeaseView {
  readonly holder: string;
  readonly token: number;
  readonly address: string;
  /** Whether it had not expired when read. */
  readonly live: boolean;
}

export const DEFAULT_LEASE_MS = 3000;
const IDENT = /^[a-z_][a-z0-9_]{0,40}$/;

/** The lease table (also created by the store's migration, so a fenced append always finds it). */
export function leaseTableDdl(table: string): string {
  return `CREATE TABLE IF NOT EXISTS ${table} (
    realm text PRIMARY KEY, holder text NOT NULL, token bigint NOT NULL, address text NOT NULL,
    expires_at timestamptz NOT NULL)`;
}

export function leaseTable(schema = 'public', tablePrefix = 'chat_realm_'): string {
  if (!IDENT.test(schema) || !(tablePrefix === '' || IDENT.test(tablePrefix))) {
    throw new TypeError('schema and tablePrefix must be lower-case identifiers ([a-z_][a-z0-9_]*)');
  }
  return `"${schema}"."${tablePrefix}leases"`;
}

export class RealmLease {
  readonly holder: string;
  readonly ttlMs: number;
  private held: number | undefined;
  private view: LeaseView | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private ticking: Promise<void> | undefined;
  private readonly table: string;
  private readonly listeners = new Set<(held: boolean) => void>();

  constructor(readonly options: RealmLeaseOptions) {
    this.table = leaseTable(options.schema, options.tablePrefix);
    this.ttlMs = options.ttlMs ?? DEFAULT_LEASE_MS;
    if (!Number.isSafeInteger(this.ttlMs) || this.ttlMs < 10)
      throw new RangeError(`ttlMs must be an integer ≥ 10, got ${String(options.ttlMs)}`);
    this.holder = options.holder ?? randomHolder();
  }

  /** The fencing token while this process holds the lease (as far as it knows), else undefined. */
  get token(): number | undefined {
    return this.held;
  }

  /** The lease row as last read or written (undefined before the first tick, or with no row). */
  get leader(): LeaseView | undefined {
    return this.view;
  }

  /** Where writes go now: this process (`'self'`), another's address, or nobody alive. */
  get route(): 'self' | { readonly address: string; readonly secret: string } | undefined {
    if (this.held !== undefined) return 'self';
    const v = this.view;
    if (v === undefined || !v.live || v.holder === this.holder) return undefined;
    // The holder's name is random and known only to the processes that read the lease row: it
    // authenticates batches of forwarded writes (src/host/forward-batch.ts) to their holder.
    return { address: v.address, secret: v.holder };
  }

  /** What batches of writes forwarded to this process must carry (its name in the lease row). */
  get secret(): string {
    return this.holder;
  }

  /** Called with true when this process takes the lease, false when it loses or releases it. */
  onChange(listener: (held: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Creates the table, takes or reads the lease, then renews (or watches for expiry) on a timer. */
  async start(): Promise<void> {
    await this.options.client.query(leaseTableDdl(this.table)).catch((error: unknown) => {
      // Two processes creating it at once: the loser's catalog insert collides; the table is there.
      if ((error as { code?: unknown }).code !== '23505') throw error;
    });
    await this.tick();
    this.timer ??= setInterval(
      () => {
        void this.tick().catch((error: unknown) => this.options.onError?.(error));
      },
      this.options.renewMs ?? Math.max(5, Math.floor(this.ttlMs / 4)),
    );
  }

  /**
   * One step: renew the lease this process holds, or take it if it is free or expired; either way
   * read the row. Concurrent calls share one query.
   */
  tick(): Promise<void> {
    this.ticking ??= this.step().finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  /** The table the row lives in (leases renewed together must share it: `renewLeases`). */
  get tableName(): string {
    return this.table;
  }

  /**
   * What a renewal of many leases in one statement (`renewLeases`) found for this one: renewed
   * (still this process's, at this token) or not (another process took it, or the row is gone).
   */
  settleRenewal(renewed: boolean): void {
    const was = this.held;
    if (was === undefined) return;
    if (renewed) {
      this.view = { holder: this.holder, token: was, address: this.options.address, live: true };
      return;
    }
    this.held = undefined;
    this.view = undefined;
    this.emit(false);
  }

  /** Told by the store that an append was fenced: the lease is gone, whatever the timer thinks. */
  lost(): void {
    if (this.held === undefined) return;
    this.held = undefined;
    this.emit(false);
  }

  /** Stops the timer and, if held, ends the lease now so another process can take it at once. */
  async release(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.ticking?.catch(() => undefined);
    const token = this.held;
    if (token === undefined) return;
    this.held = undefined;
    this.emit(false);
    await this.options.client.query(
      `UPDATE ${this.table} SET expires_at = now() - interval '1 second'
        WHERE realm = $1 AND holder = $2 AND token = $3`,
      [this.options.realm, this.holder, token],
    );
  }

  private async step(): Promise<void> {
    const { realm, address } = this.options;
    const ttl = this.ttlMs;
    const take = this.options.take !== false;
    const was = this.held;
    // One statement: renew (ours) or take (expired, or no row yet), and in every case read the row.
    const { rows } = await this.options.client.query(
      `WITH mine AS (
         INSERT INTO ${this.table} AS l (realm, holder, token, address, expires_at)
         SELECT $1, $2, 1, $3, now() + $4::int * interval '1 millisecond' WHERE $5::boolean
         ON CONFLICT (realm) DO UPDATE
           SET holder = excluded.holder, address = excluded.address, expires_at = excluded.expires_at,
               token = CASE WHEN l.holder = excluded.holder AND l.token = $6::bigint THEN l.token ELSE l.token + 1 END
         WHERE (l.holder = excluded.holder AND l.token = $6::bigint) OR l.expires_at < now()
         RETURNING holder, token, address, true AS live)
       SELECT holder, token, address, live FROM mine
       UNION ALL
       SELECT holder, token, address, expires_at > now() FROM ${this.table}
        WHERE realm = $1 AND NOT EXISTS (SELECT 1 FROM mine)`,
      [realm, this.holder, address, ttl, take || was !== undefined, was ?? -1],
    );
    const row = rows[0] as { holder: string; token: unknown; address: string; live: boolean } | undefined;
    this.view = row && { holder: row.holder, token: Number(row.token), address: row.address, live: row.live };
    const now = row !== undefined && row.holder === this.holder && row.live ? Number(row.token) : undefined;
    this.held = now;
    if (now !== was) {
      if (was !== undefined) this.emit(false);
      if (now !== undefined) this.emit(true);
    }
  }

  private emit(held: boolean): void {
    for (const l of this.listeners) l(held);
  }
}

/**
 * Renews every lease in `leases` that this process holds with one statement per lease table
 * (placement holds many realms: one round trip per renewal round instead of one per realm). A
 * lease is renewed only while its row still names its holder and token, as `tick` does; the others
 * are told they lost it (`settleRenewal`). Leases not held are left alone.
 */
export async function renewLeases(client: PgQueryable, leases: readonly RealmLease[]): Promise<void> {
  const byTable = new Map<string, RealmLease[]>();
  for (const lease of leases) {
    if (lease.token === undefined) continue;
    const group = byTable.get(lease.tableName);
    if (group) group.push(lease);
    else byTable.set(lease.tableName, [lease]);
  }
  for (const [table, group] of byTable) {
    // Tokens as they were when the statement was sent: one that changes meanwhile (lost) is not ours.
    const tokens = group.map((l) => l.token!);
    const { rows } = await client.query(
      `UPDATE ${table} AS l SET expires_at = now() + r.ttl * interval '1 millisecond'
         FROM unnest($1::text[], $2::text[], $3::bigint[], $4::int[]) AS r(realm, holder, token, ttl)
        WHERE l.realm = r.realm AND l.holder = r.holder AND l.token = r.token
        RETURNING l.realm`,
      [group.map((l) => l.options.realm), group.map((l) => l.holder), tokens, group.map((l) => l.ttlMs)],
    );
    const renewed = new Set((rows as { realm: string }[]).map((r) => r.realm));
    group.forEach((lease, i) => {
      if (lease.token === tokens[i]) lease.settleRenewal(renewed.has(lease.options.realm));
    });
  }
}

function randomHolder(): string {
  // 128 bits: the name doubles as the secret of forwarded batches (`route`).
  const words = new Uint32Array(4);
  crypto.getRandomValues(words);
  return `p${Array.from(words, (w) => w.toString(36)).join('')}`;
}
