/**
 * chat-realm/server: serve a realm over HTTP. `createFetchHandler` is a Fetch API handler (Hono,
 * Bun, Deno, Workers...); `createNodeHandler` / `serveNode` run it on Node's `http` module.
 * See docs/hosting.md.
 */
export { createFetchHandler, toResponse, DEFAULT_MAX_BODY_BYTES, type FetchHandlerOptions } from './fetch';
export {
  createNodeHandler,
  createNodeRealmHandler,
  serveNode,
  toFetchRequest,
  sendFetchResponse,
  type NodeListener,
  type NodeHandlerOptions,
  type NodeServer,
  type ServeNodeOptions,
} from './node';
export { pureRealm } from './pure';
export { RateLimiter, type RateLimitOptions } from './rate-limit';
export type { ApiRequest, FetchHandler, RequestHandler, ServerLogger } from './types';
export { withDevLogin, devListUsers, devFetchApiKey } from './dev-login';
export { FairScheduler, fairnessKey, type FairnessOptions } from './fairness';
