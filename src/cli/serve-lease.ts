/**
 * `serve --lease`: the realm's write lease for a `serve --database-url` process (one writer per
 * realm; src/stores/postgres/lease.ts). The lease has a small pool of its own, so renewals never
 * wait behind the realm's appends; writes that reach a process without the lease are forwarded
 * to its holder (src/host/leased-handle.ts over src/server/forward.ts).
 */
import { leasedHandle } from '../host/leased-handle';
import type { RealmHandle } from '../host/realm-handle';
import { RealmLease, DEFAULT_LEASE_MS } from '../stores/postgres/lease';
import { httpForward } from '../server/forward';

export { DEFAULT_LEASE_MS };

export interface ServeLease {
  readonly lease: RealmLease;
  /** The handle the server answers with: writes go to the lease holder. */
  wrap(handle: RealmHandle): RealmHandle;
  /** Once the server listens: where others forward to, then take (or follow) the lease. */
  start(address: string): Promise<void>;
  /** Releases the lease (another process takes it at once) and closes the pool. */
  stop(): Promise<void>;
}

export async function openServeLease(options: {
  readonly url: string;
  readonly realm: string;
  readonly schema?: string | undefined;
  readonly ttlMs: number;
  readonly onError: (error: unknown) => void;
}): Promise<ServeLease> {
  const pg = (await import('pg')).default;
  const pool = new pg.Pool({ connectionString: options.url, max: 2, application_name: 'chat-realm-lease' });
  const lease = new RealmLease({
    client: pool,
    realm: options.realm,
    ...(options.schema === undefined ? {} : { schema: options.schema }),
    address: '',
    ttlMs: options.ttlMs,
    onError: options.onError,
  });
  // A stalled holder's forwarded requests are answered (503) once the lease could have moved twice.
  const forward = httpForward({ timeoutMs: Math.max(1000, 2 * options.ttlMs) });
  let stopped: Promise<void> | undefined;
  return {
    lease,
    wrap: (handle) =>
      leasedHandle(handle, {
        lease,
        forward,
        // Writes that pile up while a forward is in flight go to the holder as one request.
        forwardBatch: forward.batch,
        waitMs: Math.max(10_000, 3 * options.ttlMs),
      }),
    async start(address) {
      lease.options.address = address;
      await lease.start();
    },
    stop() {
      stopped ??= (async () => {
        try {
          await lease.release();
        } finally {
          forward.close();
          await pool.end();
        }
      })();
      return stopped;
    },
  };
}
