/**
 * The read-only endpoints live clients start with (issue 13): server settings, the pure half of
 * register, and the channel lists. Routed by the wire layer beside the 20 operations; never
 * stored (they change nothing).
 */
import { fetchApiKey } from './fetchApiKey';
import { getServerSettings } from './getServerSettings';
import { getStreams } from './getStreams';
import { getSubscriptions } from './getSubscriptions';
import { register } from './register';

export { fetchApiKey, getServerSettings, getStreams, getSubscriptions, register };

/**
 * The live-client endpoints, each carrying its definition like `OPERATIONS`.
 *
 * @example
 * ```ts
 * const routes = LIVE_OPERATIONS.map((op) => `${op.def.method} /api/v1${op.def.path}`);
 * expect(routes).toContain('POST /api/v1/register');
 * ```
 */
export const LIVE_OPERATIONS = [
  getServerSettings,
  register,
  getSubscriptions,
  getStreams,
  fetchApiKey,
] as const;
