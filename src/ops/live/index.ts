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
import { updatePresence } from '../presence/updatePresence';
import { getRealmPresence } from '../presence/getRealmPresence';
import { getUserPresence } from '../presence/getUserPresence';
import { setTypingStatus } from '../typing/setTypingStatus';
import { getRealmEmoji } from '../realm/getRealmEmoji';
import { getAlertWords } from '../users/getAlertWords';
import { getSubscriptionStatus } from '../channels/getSubscriptionStatus';

export { fetchApiKey, getServerSettings, getStreams, getSubscriptions, register };
export { updatePresence, getRealmPresence, getUserPresence, setTypingStatus };
export { getRealmEmoji, getAlertWords, getSubscriptionStatus };

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
  updatePresence,
  getRealmPresence,
  getUserPresence,
  setTypingStatus,
  getRealmEmoji,
  getAlertWords,
  getSubscriptionStatus,
  fetchApiKey,
] as const;
