import type { OpResult } from '../core/result';
import type { ApiRequest } from '../wire/handle';

export type { ApiRequest } from '../wire/handle';

/**
 * What the servers need from a realm: answer one wire request. A realm handle (`openRealm`,
 * src/host) is one, and persists the change and publishes its events before it answers; a plain
 * object around `handleApiRequest` is another (nothing persisted, handy in tests).
 */
export interface RequestHandler {
  request(request: ApiRequest): Promise<OpResult> | OpResult;
}

/** Where the servers report what they did not expect (a failing store, a bug). */
export interface ServerLogger {
  error(message: string, error: unknown): void;
  /** Routine noise (a client that disconnected mid-request); dropped when absent. */
  debug?(message: string): void;
}

/** A Fetch API handler: what Hono, Bun, Deno, Cloudflare Workers and the Node adapter call. */
export type FetchHandler = (request: Request) => Promise<Response>;
